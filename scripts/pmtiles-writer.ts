/**
 * A PMTiles v3 archive writer for the basemap build (the `pmtiles` package only reads):
 * header, one root directory (gzip), JSON metadata (gzip), then the tile data clustered in
 * tile-id order, identical tiles stored once. Spec: github.com/protomaps/PMTiles, spec/v3.
 */
import { gzipSync } from 'fflate'
import { zxyToTileId } from 'pmtiles'

export interface PmtilesTile { z: number; x: number; y: number; /** gzip-compressed MVT */ data: Uint8Array }

export interface PmtilesOptions { minZoom: number; maxZoom: number; metadata: Record<string, unknown> }

const HEADER = 127
const GZIP = 2
const MVT = 1

function varints(values: number[]): Uint8Array {
  const out: number[] = []
  for (let v of values) {
    while (v >= 0x80) { out.push((v % 0x80) | 0x80); v = Math.floor(v / 0x80) }
    out.push(v)
  }
  return Uint8Array.from(out)
}

interface Entry { tileId: number; offset: number; length: number; runLength: number }

/** The directory encoding: count, id deltas, run lengths, lengths, offsets (0 = right after the previous). */
function directory(entries: Entry[]): Uint8Array {
  const v: number[] = [entries.length]
  let last = 0
  for (const e of entries) { v.push(e.tileId - last); last = e.tileId }
  for (const e of entries) v.push(e.runLength)
  for (const e of entries) v.push(e.length)
  entries.forEach((e, i) => {
    const prev = entries[i - 1]
    v.push(prev && e.offset === prev.offset + prev.length ? 0 : e.offset + 1)
  })
  return varints(v)
}

export function writePmtiles(tiles: PmtilesTile[], opts: PmtilesOptions): Uint8Array {
  const sorted = tiles.map((t) => ({ ...t, id: zxyToTileId(t.z, t.x, t.y) })).sort((a, b) => a.id - b.id)
  const contents: Uint8Array[] = []
  const seen = new Map<string, { offset: number; length: number }>()
  const entries: Entry[] = []
  let dataLength = 0
  for (const t of sorted) {
    const key = Buffer.from(t.data).toString('base64')
    let at = seen.get(key)
    if (!at) {
      at = { offset: dataLength, length: t.data.length }
      seen.set(key, at)
      contents.push(t.data)
      dataLength += t.data.length
    }
    const prev = entries[entries.length - 1]
    // Runs of the same content under consecutive ids share one entry.
    if (prev && prev.offset === at.offset && prev.tileId + prev.runLength === t.id) prev.runLength++
    else entries.push({ tileId: t.id, offset: at.offset, length: at.length, runLength: 1 })
  }
  const root = gzipSync(directory(entries), { level: 9, mtime: 0 })
  if (HEADER + root.length > 16384) throw new Error('The root directory does not fit in 16 KiB; leaf directories are not written.')
  const meta = gzipSync(new TextEncoder().encode(JSON.stringify(opts.metadata)), { level: 9, mtime: 0 })
  const rootOffset = HEADER
  const metaOffset = rootOffset + root.length
  const dataOffset = metaOffset + meta.length
  const out = new Uint8Array(dataOffset + dataLength)
  const v = new DataView(out.buffer)
  out.set(new TextEncoder().encode('PMTiles'), 0)
  v.setUint8(7, 3)
  const u64 = (at: number, n: number) => { v.setUint32(at, n % 2 ** 32, true); v.setUint32(at + 4, Math.floor(n / 2 ** 32), true) }
  u64(8, rootOffset); u64(16, root.length)
  u64(24, metaOffset); u64(32, meta.length)
  u64(40, dataOffset); u64(48, 0) // no leaf directories
  u64(56, dataOffset); u64(64, dataLength)
  u64(72, sorted.length); u64(80, entries.length); u64(88, contents.length)
  v.setUint8(96, 1) // clustered
  v.setUint8(97, GZIP)
  v.setUint8(98, GZIP)
  v.setUint8(99, MVT)
  v.setUint8(100, opts.minZoom)
  v.setUint8(101, opts.maxZoom)
  v.setInt32(102, -180e7, true); v.setInt32(106, -85.0511287e7, true)
  v.setInt32(110, 180e7, true); v.setInt32(114, 85.0511287e7, true)
  v.setUint8(118, 0); v.setInt32(119, 0, true); v.setInt32(123, 0, true)
  out.set(root, rootOffset)
  out.set(meta, metaOffset)
  let at = dataOffset
  for (const c of contents) { out.set(c, at); at += c.length }
  return out
}
