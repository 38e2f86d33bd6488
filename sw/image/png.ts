/**
 * @module image/png
 * Icon images: decoding any PNG to 8-bit RGBA, the original's "cover then crop" resize
 * (reference §10: scale until the box is covered, upscaling allowed, then cut the centre) and
 * encoding back to PNG. Pure JS (fast-png), so it runs the same in the worker and in Node.
 */
import { decode, encode } from 'fast-png'

export interface Rgba {
  width: number
  height: number
  /** width × height × 4 bytes, straight (not premultiplied) alpha. */
  data: Uint8Array
}

/** Decodes a PNG of any colour type and depth to RGBA8; throws on anything that is not a PNG. */
export function decodeRgba(bytes: Uint8Array): Rgba {
  const png = decode(bytes)
  const { width, height, channels, depth, palette, transparency } = png
  const src = png.data
  const out = new Uint8Array(width * height * 4)
  // 16-bit samples keep their high byte; lower depths are already unpacked by fast-png
  // except for palette indices, which it leaves packed for depths below 8.
  const scale = depth === 16 ? 1 / 257 : depth < 8 && !palette ? 255 / ((1 << depth) - 1) : 1
  if (palette) {
    const bitsPerRow = Math.ceil((width * depth) / 8)
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let idx: number
        if (depth === 8) idx = src[y * width + x]!
        else {
          const bit = x * depth
          const byte = src[y * bitsPerRow + (bit >> 3)]!
          idx = (byte >> (8 - depth - (bit & 7))) & ((1 << depth) - 1)
        }
        const c = palette[idx] ?? [0, 0, 0, 0]
        const o = (y * width + x) * 4
        out[o] = c[0]!; out[o + 1] = c[1]!; out[o + 2] = c[2]!
        out[o + 3] = c.length > 3 ? c[3]! : 255
      }
    }
    return { width, height, data: out }
  }
  const grayKey = channels === 1 && transparency?.length ? transparency[0] : undefined
  const rgbKey = channels === 3 && transparency && transparency.length >= 3 ? transparency : undefined
  for (let i = 0, n = width * height; i < n; i++) {
    const o = i * 4
    const s = i * channels
    if (channels <= 2) {
      const g = src[s]!
      out[o] = out[o + 1] = out[o + 2] = Math.round(g * scale)
      out[o + 3] = channels === 2 ? Math.round(src[s + 1]! * scale) : grayKey !== undefined && g === grayKey ? 0 : 255
    } else {
      const r = src[s]!, g = src[s + 1]!, b = src[s + 2]!
      out[o] = Math.round(r * scale); out[o + 1] = Math.round(g * scale); out[o + 2] = Math.round(b * scale)
      out[o + 3] = channels === 4 ? Math.round(src[s + 3]! * scale)
        : rgbKey && r === rgbKey[0] && g === rgbKey[1] && b === rgbKey[2] ? 0 : 255
    }
  }
  return { width, height, data: out }
}

export function encodeRgba(img: Rgba): Uint8Array {
  return encode({ width: img.width, height: img.height, data: img.data, channels: 4, depth: 8 })
}

/**
 * Scales `img` to cover `width` × `height` and crops the centre. Each output pixel averages
 * the source area it covers (weighted by overlap, alpha-premultiplied), which is a box filter
 * when shrinking and close to nearest-neighbour smoothing when enlarging; for enlargement a
 * bilinear sample is used instead so that icons do not look blocky.
 */
export function coverResize(img: Rgba, width: number, height: number): Rgba {
  const scale = Math.max(width / img.width, height / img.height)
  // The crop window in source pixels, centred.
  const winW = width / scale, winH = height / scale
  const x0 = (img.width - winW) / 2, y0 = (img.height - winH) / 2
  const out = new Uint8Array(width * height * 4)
  const src = img.data
  const sw = img.width, sh = img.height
  const step = 1 / scale
  for (let oy = 0; oy < height; oy++) {
    for (let ox = 0; ox < width; ox++) {
      let r = 0, g = 0, b = 0, a = 0, wsum = 0
      if (step <= 1) {
        // Enlarging: bilinear at the output pixel's centre.
        const fx = Math.min(Math.max(x0 + (ox + 0.5) * step - 0.5, 0), sw - 1)
        const fy = Math.min(Math.max(y0 + (oy + 0.5) * step - 0.5, 0), sh - 1)
        const ix = Math.floor(fx), iy = Math.floor(fy)
        const dx = fx - ix, dy = fy - iy
        for (const [px, py, w] of [[ix, iy, (1 - dx) * (1 - dy)], [ix + 1, iy, dx * (1 - dy)],
          [ix, iy + 1, (1 - dx) * dy], [ix + 1, iy + 1, dx * dy]] as const) {
          if (w === 0) continue
          const i = (Math.min(py, sh - 1) * sw + Math.min(px, sw - 1)) * 4
          const al = src[i + 3]! * w
          r += src[i]! * al; g += src[i + 1]! * al; b += src[i + 2]! * al; a += al; wsum += w
        }
      } else {
        // Shrinking: area average over the footprint [sx0, sx1) × [sy0, sy1).
        const sx0 = x0 + ox * step, sx1 = sx0 + step
        const sy0 = y0 + oy * step, sy1 = sy0 + step
        for (let py = Math.max(0, Math.floor(sy0)); py < Math.min(sh, Math.ceil(sy1)); py++) {
          const wy = Math.min(py + 1, sy1) - Math.max(py, sy0)
          if (wy <= 0) continue
          for (let px = Math.max(0, Math.floor(sx0)); px < Math.min(sw, Math.ceil(sx1)); px++) {
            const wx = Math.min(px + 1, sx1) - Math.max(px, sx0)
            if (wx <= 0) continue
            const w = wx * wy
            const i = (py * sw + px) * 4
            const al = src[i + 3]! * w
            r += src[i]! * al; g += src[i + 1]! * al; b += src[i + 2]! * al; a += al; wsum += w
          }
        }
      }
      const o = (oy * width + ox) * 4
      if (a > 0) {
        out[o] = Math.round(r / a); out[o + 1] = Math.round(g / a); out[o + 2] = Math.round(b / a)
      }
      out[o + 3] = wsum > 0 ? Math.round(a / wsum) : 0
    }
  }
  return { width, height, data: out }
}

/** Reads `{width, height}` from a PNG's IHDR without decoding it. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.length < 24) return undefined
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return { width: v.getUint32(16), height: v.getUint32(20) }
}
