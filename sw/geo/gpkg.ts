/**
 * @module geo/gpkg
 * GeoPackage geometry blobs: the `GP` header (version 0, little-endian, SRS id, an XY
 * envelope except for points) followed by ISO WKB (OGC 12-128r18 §2.1.3).
 */
import { bboxOf, type Bbox, type Geometry } from './geometry.ts'
import { readWkb, wkbSize, writeWkb } from './wkb.ts'

const ENVELOPE_BYTES = [0, 32, 48, 48, 64]

/** Byte length of `g` as a GeoPackage blob. */
export function gpkgSize(g: Geometry): number {
  // Points carry no envelope: it would only repeat the coordinates (GDAL does the same).
  return 8 + (g.type !== 'Point' ? 32 : 0) + wkbSize(g)
}

/** Writes `g` as a GeoPackage blob at `o` of `view`; returns the offset after it. */
export function writeGpkg(view: DataView, o: number, g: Geometry, srsId: number): number {
  const withEnvelope = g.type !== 'Point'
  view.setUint8(o, 0x47) // 'G'
  view.setUint8(o + 1, 0x50) // 'P'
  view.setUint8(o + 2, 0)
  view.setUint8(o + 3, (withEnvelope ? 1 << 1 : 0) | 1) // envelope indicator 1 (XY), little-endian
  view.setInt32(o + 4, srsId, true)
  if (withEnvelope) {
    const b = bboxOf(g)
    view.setFloat64(o + 8, b[0], true)
    view.setFloat64(o + 16, b[2], true)
    view.setFloat64(o + 24, b[1], true)
    view.setFloat64(o + 32, b[3], true)
  }
  return writeWkb(view, o + 8 + (withEnvelope ? 32 : 0), g)
}

export function encodeGpkg(g: Geometry, srsId: number): Uint8Array {
  const out = new Uint8Array(gpkgSize(g))
  writeGpkg(new DataView(out.buffer), 0, g, srsId)
  return out
}

/**
 * A blob around WKB as it is, without envelope (readers take the bounds from the coordinates,
 * `gpkgBbox`): for a storage that hands out WKB, with no decoding and re-encoding per feature.
 */
export function gpkgOfWkb(wkb: Uint8Array, srsId: number): Uint8Array {
  const out = new Uint8Array(8 + wkb.length)
  out.set([0x47, 0x50, 0, 1]) // 'GP', version 0, no envelope, little-endian header
  new DataView(out.buffer).setInt32(4, srsId, true)
  out.set(wkb, 8)
  return out
}

interface Header { le: boolean; empty: boolean; envelope: number; wkbOffset: number; srsId: number }

function header(blob: Uint8Array): Header {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) throw new Error('Not a GeoPackage geometry blob.')
  const flags = blob[3]!
  const le = (flags & 1) === 1
  const envelope = (flags >> 1) & 7
  if (envelope > 4) throw new Error('Invalid GeoPackage envelope indicator.')
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
  return { le, empty: (flags & 0x10) !== 0, envelope, wkbOffset: 8 + ENVELOPE_BYTES[envelope]!, srsId: view.getInt32(4, le) }
}

/** Where the WKB of a blob starts, or `undefined` for an empty geometry. */
export function gpkgWkbOffset(blob: Uint8Array): number | undefined {
  const h = header(blob)
  return h.empty ? undefined : h.wkbOffset
}

export function decodeGpkg(blob: Uint8Array): Geometry | null {
  const h = header(blob)
  if (h.empty) return null
  return readWkb(blob, h.wkbOffset)
}

/** The XY bounds of a blob: from its envelope when it has one, else from its coordinates. */
export function gpkgBbox(blob: Uint8Array): Bbox | null {
  const h = header(blob)
  if (h.empty) return null
  if (h.envelope > 0) {
    const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
    return [view.getFloat64(8, h.le), view.getFloat64(24, h.le), view.getFloat64(16, h.le), view.getFloat64(32, h.le)]
  }
  // A point without envelope: read its coordinates straight from the WKB.
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
  const o = h.wkbOffset
  const wle = blob[o] === 1
  const code = view.getUint32(o + 1, wle)
  if (code % 1000 === 1 || (code & 0x0fffffff) === 1) {
    const x = view.getFloat64(o + 5, wle), y = view.getFloat64(o + 13, wle)
    return [x, y, x, y]
  }
  return bboxOf(readWkb(blob, o))
}

/** The WKB inside a blob (a view, no copy); `null` for an empty geometry. */
export function gpkgWkb(blob: Uint8Array): Uint8Array | null {
  const h = header(blob)
  return h.empty ? null : blob.subarray(h.wkbOffset)
}
