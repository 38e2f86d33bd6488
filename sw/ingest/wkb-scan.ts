/**
 * @module ingest/wkb-scan
 * Reads what ingest needs to know about a GeoPackage geometry blob without building it: its
 * type, dimensions, part count, bounds and the first structural problem, in one pass over the
 * bytes and with no allocation. A blob that fits the layer and has no problem is stored as
 * GDAL wrote it; only the others are rebuilt (`geom-fix.ts`).
 */

/** WKB base types (ISO codes without the dimension thousands). */
export const Kind = { None: 0, Point: 1, Line: 2, Polygon: 3, MultiPoint: 4, MultiLine: 5, MultiPolygon: 6, Collection: 7 } as const
export type Kind = number

/** Structural problems, in the original's words (`vector_layer/ogrloader.py`). */
export const Flaw = { None: 0, EmptyRing: 1, UnclosedRing: 2, ShortRing: 3, EmptyLine: 4, ShortLine: 5, NonFinite: 6,
  Unsupported: 7, Malformed: 8 } as const
export type Flaw = number

export const FLAW_TEXT: Record<number, string> = {
  [Flaw.EmptyRing]: 'has empty rings',
  [Flaw.UnclosedRing]: 'has unclosed rings',
  [Flaw.ShortRing]: 'has less than 3 points in a polygon ring',
  [Flaw.EmptyLine]: 'contains an empty linestring',
  [Flaw.ShortLine]: 'has less than 2 points in a linestring',
  [Flaw.NonFinite]: 'has coordinates that are not finite numbers (they cannot be placed in the layer\'s reference system)',
  [Flaw.Unsupported]: 'has an unsupported geometry type (curves, triangles or surfaces)',
  [Flaw.Malformed]: 'has a malformed geometry',
}

/** What `scan` found; reused between calls. `bbox` is `[minX, minY, maxX, maxY]`. */
export class Scan {
  kind: Kind = Kind.None
  z = false
  m = false
  /** Members of a multi geometry or collection; 1 for a single one. */
  parts = 0
  /** No coordinates at all (a null or empty geometry). */
  empty = true
  flaw: Flaw = Flaw.None
  readonly bbox = new Float64Array(4)
}

const ENVELOPE_BYTES = [0, 32, 48, 48, 64]

class Cursor {
  view!: DataView
  o = 0
  le = true
  end = 0
}
const C = new Cursor()

/** Scans a GeoPackage blob (or `null`) into `out`; returns `out`. */
export function scanGpkg(blob: Uint8Array | null, out: Scan): Scan {
  out.kind = Kind.None
  out.z = out.m = false
  out.parts = 0
  out.empty = true
  out.flaw = Flaw.None
  out.bbox[0] = out.bbox[1] = Infinity
  out.bbox[2] = out.bbox[3] = -Infinity
  if (!blob) return out
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) { out.flaw = Flaw.Malformed; return out }
  const flags = blob[3]!
  const envelope = (flags >> 1) & 7
  if (envelope > 4) { out.flaw = Flaw.Malformed; return out }
  if (flags & 0x10) return out // the empty flag
  C.view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
  C.o = 8 + ENVELOPE_BYTES[envelope]!
  C.end = blob.length
  try {
    geometry(out, true)
  } catch {
    flaw(out, Flaw.Malformed)
  }
  return out
}

function u32(): number {
  if (C.o + 4 > C.end) throw new RangeError('truncated')
  const v = C.view.getUint32(C.o, C.le)
  C.o += 4
  return v
}

/** Reads `n` positions of `dim` doubles, growing the box; returns whether first equals last (x, y, z). */
function positions(out: Scan, n: number, dim: number, closed: boolean): boolean {
  if (C.o + n * dim * 8 > C.end) throw new RangeError('truncated')
  const b = out.bbox
  const v = C.view
  const le = C.le
  const start = C.o
  for (let i = 0; i < n; i++) {
    const x = v.getFloat64(C.o, le)
    const y = v.getFloat64(C.o + 8, le)
    if (!Number.isFinite(x) || !Number.isFinite(y)) flaw(out, Flaw.NonFinite)
    if (x < b[0]!) b[0] = x
    if (y < b[1]!) b[1] = y
    if (x > b[2]!) b[2] = x
    if (y > b[3]!) b[3] = y
    C.o += dim * 8
  }
  if (n) out.empty = false
  if (!closed || n < 2) return true
  const last = start + (n - 1) * dim * 8
  const cmp = Math.min(dim, 3) // the original compares x, y and z of first and last
  for (let k = 0; k < cmp; k++) if (v.getFloat64(start + k * 8, le) !== v.getFloat64(last + k * 8, le)) return false
  return true
}

function flaw(out: Scan, f: Flaw): void {
  if (out.flaw === Flaw.None) out.flaw = f
}

function geometry(out: Scan, top: boolean): Kind {
  if (C.o + 5 > C.end) throw new RangeError('truncated')
  C.le = C.view.getUint8(C.o) === 1
  let code = C.view.getUint32(C.o + 1, C.le)
  C.o += 5
  let z = false
  let m = false
  if (code & 0x80000000) z = true // EWKB flags
  if (code & 0x40000000) m = true
  code &= 0x0fffffff
  const thousands = Math.floor(code / 1000)
  if (thousands === 1 || thousands === 3) z = true
  if (thousands === 2 || thousands === 3) m = true
  const kind = code % 1000
  if (top) { out.kind = kind; out.z = z; out.m = m; out.parts = 1 }
  const dim = 2 + (z ? 1 : 0) + (m ? 1 : 0)
  switch (kind) {
    case Kind.Point: {
      // An empty point is written as NaN coordinates.
      if (C.o + dim * 8 > C.end) throw new RangeError('truncated')
      const x = C.view.getFloat64(C.o, C.le)
      const y = C.view.getFloat64(C.o + 8, C.le)
      if (Number.isNaN(x) && Number.isNaN(y)) { C.o += dim * 8; return kind }
      positions(out, 1, dim, false)
      return kind
    }
    case Kind.Line: {
      const n = u32()
      positions(out, n, dim, false)
      if (n === 0) flaw(out, top ? Flaw.None : Flaw.EmptyLine)
      else if (n < 2) flaw(out, Flaw.ShortLine)
      return kind
    }
    case Kind.Polygon: {
      const rings = u32()
      for (let r = 0; r < rings; r++) {
        const n = u32()
        if (n === 0) { flaw(out, Flaw.EmptyRing); continue }
        if (!positions(out, n, dim, true)) flaw(out, Flaw.UnclosedRing)
        else if (n < 4) flaw(out, Flaw.ShortRing)
      }
      return kind
    }
    case Kind.MultiPoint: case Kind.MultiLine: case Kind.MultiPolygon: case Kind.Collection: {
      const n = u32()
      if (top) out.parts = n
      for (let i = 0; i < n; i++) geometry(out, false)
      return kind
    }
    default:
      flaw(out, Flaw.Unsupported)
      throw new RangeError('unsupported') // its layout is unknown: stop here
  }
}
