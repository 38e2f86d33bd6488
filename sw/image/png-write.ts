/**
 * @module image/png-write
 * A small PNG writer for map tiles, for hosts whose canvas encoder is slow (Skia in Node
 * compresses at zlib level 6 with adaptive filters: about 19 ms of a raster tile's 30). Tiles
 * need speed more than the last byte: one "Up" filter for every row and a fast deflate level
 * give files no larger than Skia's for photographic rasters, in a tenth of the time; opaque
 * images are written as RGB (a quarter less to compress). The deflate itself is the host's
 * (`node:zlib` in Node), passed in.
 */

/** zlib-wrapped deflate of `data` (what PNG's IDAT holds). */
export type Deflate = (data: Uint8Array) => Uint8Array

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

function crc32(bytes: Uint8Array, start: number, end: number): number {
  let c = 0xffffffff
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10]

/**
 * The scanlines of straight-alpha RGBA `rgba` (`width` × `height`), each with filter "Up"
 * (the first with "None"), as RGB when every pixel is opaque; `channels` says which.
 */
export function filterRows(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): { rows: Uint8Array; channels: 3 | 4 } {
  let opaque = true
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) { opaque = false; break }
  const ch = opaque ? 3 : 4
  const stride = width * ch
  const rows = new Uint8Array((stride + 1) * height)
  for (let y = 0; y < height; y++) {
    let o = y * (stride + 1)
    rows[o++] = y === 0 ? 0 : 2
    const s = y * width * 4, p = s - width * 4
    if (ch === 4) {
      if (y === 0) rows.set(rgba.subarray(0, width * 4), o)
      else for (let i = 0; i < stride; i++) rows[o + i] = rgba[s + i]! - rgba[p + i]!
    } else if (y === 0) {
      for (let x = 0; x < width; x++, o += 3) { rows[o] = rgba[s + x * 4]!; rows[o + 1] = rgba[s + x * 4 + 1]!; rows[o + 2] = rgba[s + x * 4 + 2]! }
    } else {
      for (let x = 0; x < width; x++, o += 3) {
        const a = s + x * 4, b = p + x * 4
        rows[o] = rgba[a]! - rgba[b]!; rows[o + 1] = rgba[a + 1]! - rgba[b + 1]!; rows[o + 2] = rgba[a + 2]! - rgba[b + 2]!
      }
    }
  }
  return { rows, channels: ch }
}

/** Encodes straight-alpha RGBA as an 8-bit PNG (RGB when opaque), deflating with `deflate`. */
export function writePng(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number, deflate: Deflate): Uint8Array {
  const { rows, channels } = filterRows(rgba, width, height)
  const idat = deflate(rows)
  const out = new Uint8Array(8 + 25 + 12 + idat.length + 12)
  const v = new DataView(out.buffer)
  out.set(SIGNATURE, 0)
  let o = 8
  const chunk = (type: string, body: (at: number) => number) => {
    const start = o
    o += 4
    for (let i = 0; i < 4; i++) out[o++] = type.charCodeAt(i)
    const len = body(o)
    v.setUint32(start, len)
    o += len
    v.setUint32(o, crc32(out, start + 4, o))
    o += 4
  }
  chunk('IHDR', (at) => {
    v.setUint32(at, width); v.setUint32(at + 4, height)
    out[at + 8] = 8; out[at + 9] = channels === 4 ? 6 : 2; out[at + 10] = 0; out[at + 11] = 0; out[at + 12] = 0
    return 13
  })
  chunk('IDAT', (at) => { out.set(idat, at); return idat.length })
  chunk('IEND', () => 0)
  return out
}
