/**
 * Uploads small on disk that expand enormously, made in a second or two without ever holding
 * the expansion: a zip of 3 GiB of GeoJSON whitespace (about 3 MB) and a sparse 100000×100000
 * RGB GeoTIFF (no tile written, 1.2 MB of tile offsets). Each is made once per process.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib'

const GiB = 1024 ** 3

/**
 * A raw DEFLATE stream of `prefix`, `count` × `chunk` and `suffix`: each part compressed once
 * with a full flush (byte-aligned, no back-reference across parts), so the same compressed
 * chunk can be repeated; an empty final block ends the stream.
 */
function repeatedDeflate(prefix: Uint8Array, chunk: Uint8Array, count: number, suffix: Uint8Array): { data: Uint8Array; crc: number; size: number } {
  const flush = { finishFlush: constants.Z_FULL_FLUSH, level: 9 }
  const head = deflateRawSync(prefix, flush)
  const body = deflateRawSync(chunk, flush)
  const tail = deflateRawSync(suffix, flush)
  const end = deflateRawSync(new Uint8Array(0))
  const data = new Uint8Array(head.length + body.length * count + tail.length + end.length)
  let at = 0
  let crc = crc32(prefix)
  data.set(head, at); at += head.length
  for (let i = 0; i < count; i++) { data.set(body, at); at += body.length; crc = crc32(chunk, crc) }
  data.set(tail, at); at += tail.length
  data.set(end, at)
  crc = crc32(suffix, crc)
  return { data, crc, size: prefix.length + chunk.length * count + suffix.length }
}

/** A one-member zip (DEFLATE) whose headers declare `declared` bytes uncompressed. */
function zipOf(name: string, d: { data: Uint8Array; crc: number; size: number }, declared = d.size): Uint8Array {
  const n = new TextEncoder().encode(name)
  const local = new DataView(new ArrayBuffer(30))
  local.setUint32(0, 0x04034b50, true); local.setUint16(4, 20, true); local.setUint16(8, 8, true)
  local.setUint32(14, d.crc >>> 0, true); local.setUint32(18, d.data.length, true); local.setUint32(22, declared, true)
  local.setUint16(26, n.length, true)
  const central = new DataView(new ArrayBuffer(46))
  central.setUint32(0, 0x02014b50, true); central.setUint16(4, 20, true); central.setUint16(6, 20, true); central.setUint16(10, 8, true)
  central.setUint32(16, d.crc >>> 0, true); central.setUint32(20, d.data.length, true); central.setUint32(24, declared, true)
  central.setUint16(28, n.length, true)
  const cdAt = 30 + n.length + d.data.length
  const eocd = new DataView(new ArrayBuffer(22))
  eocd.setUint32(0, 0x06054b50, true); eocd.setUint16(8, 1, true); eocd.setUint16(10, 1, true)
  eocd.setUint32(12, 46 + n.length, true); eocd.setUint32(16, cdAt, true)
  const parts = [new Uint8Array(local.buffer), n, d.data, new Uint8Array(central.buffer), n, new Uint8Array(eocd.buffer)]
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0))
  let at = 0
  for (const p of parts) { out.set(p, at); at += p.length }
  return out
}

/** `{"type":"FeatureCollection","features":[` + `gib` GiB of spaces + one point + `]}`. */
function whitespaceGeojson(gib: number) {
  const chunk = new Uint8Array(16 * 1024 * 1024).fill(0x20)
  return repeatedDeflate(new TextEncoder().encode('{"type":"FeatureCollection","features":['), chunk, (gib * GiB) / chunk.length,
    new TextEncoder().encode('{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[1,2]}}]}'))
}

let bomb: Uint8Array | undefined
/** 3 GiB of GeoJSON whitespace in a ~3 MB zip whose headers say so. */
export function zipBomb(): Uint8Array {
  return (bomb ??= zipOf('bomb.geojson', whitespaceGeojson(3)))
}

let liar: Uint8Array | undefined
/** `gib` GiB of GeoJSON whitespace in a zip whose headers claim 100 bytes. */
export function lyingZipBomb(gib = 1): Uint8Array {
  return (liar ??= zipOf('liar.geojson', whitespaceGeojson(gib), 100))
}

/**
 * A tiled, uncompressed RGB GeoTIFF of `size`×`size` pixels in EPSG:4326 with no tile
 * written (offsets and byte counts 0: GDAL reads them as empty): 1.2 MB for 100000².
 */
export function sparseTiff(size = 100_000): Uint8Array {
  const tiles = Math.ceil(size / 256) ** 2
  const entries: Array<[tag: number, type: number, values: number[]]> = [
    [256, 4, [size]], [257, 4, [size]], [258, 3, [8, 8, 8]], [259, 3, [1]], [262, 3, [2]], [277, 3, [3]], [284, 3, [1]],
    [322, 3, [256]], [323, 3, [256]], [324, 4, new Array(tiles).fill(0)], [325, 4, new Array(tiles).fill(0)],
    [33550, 12, [0.0001, 0.0001, 0]], [33922, 12, [0, 0, 0, 10, 50, 0]],
    [34735, 3, [1, 1, 0, 3, 1024, 0, 1, 2, 1025, 0, 1, 1, 2048, 0, 1, 4326]],
  ]
  const SIZE: Record<number, number> = { 3: 2, 4: 4, 12: 8 }
  const ifdAt = 8
  let dataAt = ifdAt + 2 + entries.length * 12 + 4
  const total = dataAt + entries.reduce((a, [, t, v]) => a + (v.length * SIZE[t]! > 4 ? v.length * SIZE[t]! : 0), 0)
  const view = new DataView(new ArrayBuffer(total))
  view.setUint16(0, 0x4949, true); view.setUint16(2, 42, true); view.setUint32(4, ifdAt, true)
  view.setUint16(ifdAt, entries.length, true)
  const put = (at: number, type: number, v: number) => type === 3 ? view.setUint16(at, v, true) : type === 4 ? view.setUint32(at, v, true) : view.setFloat64(at, v, true)
  entries.forEach(([tag, type, values], i) => {
    const e = ifdAt + 2 + i * 12
    view.setUint16(e, tag, true); view.setUint16(e + 2, type, true); view.setUint32(e + 4, values.length, true)
    const bytes = values.length * SIZE[type]!
    let at = e + 8
    if (bytes > 4) { view.setUint32(e + 8, dataAt, true); at = dataAt; dataAt += bytes }
    values.forEach((v, k) => put(at + k * SIZE[type]!, type, v))
  })
  return new Uint8Array(view.buffer)
}
