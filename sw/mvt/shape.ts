/**
 * @module mvt/shape
 * A feature's geometry read from its GeoPackage blob straight into tile units (x right,
 * y down, 0…extent across the tile), as flat coordinate arrays: no GeoJSON objects on the
 * tile path. Z is dropped (the original forces 2D before cutting).
 */
import type { Bbox, Geometry, Position } from '../geo/geometry.ts'
import { latToMercator, lonToMercator } from '../geo/tile.ts'
import { transformer } from '../geo/reproject.ts'
import { gpkgWkbOffset } from '../geo/gpkg.ts'

/** MVT geometry types. */
export const POINT = 1
export const LINE = 2
export const POLYGON = 3

/** Points in one flat array; lines one array each; polygons as rings (outer first). */
export type TileShape =
  | { type: typeof POINT; points: number[] }
  | { type: typeof LINE; lines: number[][] }
  | { type: typeof POLYGON; polygons: number[][][] }

/** Pushes the tile coordinates of the layer-SRS position (x, y) onto `out`. */
export type Project = (x: number, y: number, out: number[]) => void

/**
 * The projection from a layer's SRS into the tile `box3857` of `extent` units. 3857 and
 * 4326 are computed inline; other systems go through proj4.
 */
export function tileProjection(srs: number, box3857: Bbox, extent: number): Project {
  const k = extent / (box3857[2] - box3857[0])
  const x0 = box3857[0], y0 = box3857[3]
  if (srs === 3857) return (x, y, out) => { out.push((x - x0) * k, (y0 - y) * k) }
  if (srs === 4326) return (x, y, out) => { out.push((lonToMercator(x) - x0) * k, (y0 - latToMercator(y)) * k) }
  const t = transformer(srs, 3857)
  return (x, y, out) => {
    const p = t([x, y])
    out.push((p[0]! - x0) * k, (y0 - p[1]!) * k)
  }
}

/** A cursor over the WKB of one blob; methods rather than closures (thousands per tile). */
class Reader {
  view: DataView
  o: number
  le = true
  dim = 2

  constructor(blob: Uint8Array, offset: number, readonly project: Project) {
    this.view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength)
    this.o = offset
  }

  u32(): number {
    const v = this.view.getUint32(this.o, this.le)
    this.o += 4
    return v
  }

  /** Reads a geometry header; returns its base type code (1…6). */
  header(): number {
    this.le = this.view.getUint8(this.o) === 1
    let code = this.view.getUint32(this.o + 1, this.le)
    this.o += 5
    this.dim = 2
    if (code & 0x80000000) { this.dim = 3; code &= 0x0fffffff }
    if (code >= 1000 && code < 2000) { this.dim = 3; code -= 1000 }
    return code
  }

  point(out: number[]): void {
    const v = this.view, o = this.o, le = this.le
    this.project(v.getFloat64(o, le), v.getFloat64(o + 8, le), out)
    this.o += 8 * this.dim
  }

  points(): number[] {
    const n = this.u32()
    const out: number[] = []
    for (let i = 0; i < n; i++) this.point(out)
    return out
  }

  rings(): number[][] {
    const n = this.u32()
    const out: number[][] = []
    for (let i = 0; i < n; i++) out.push(this.points())
    return out
  }
}

/** The blob's geometry in tile units, or `null` for an empty or unsupported one. */
export function readShape(blob: Uint8Array, project: Project): TileShape | null {
  let offset: number | undefined
  try {
    offset = gpkgWkbOffset(blob)
  } catch {
    return null
  }
  if (offset === undefined) return null
  const r = new Reader(blob, offset, project)
  const code = r.header()
  switch (code) {
    case 1: { const points: number[] = []; r.point(points); return { type: POINT, points } }
    case 2: return { type: LINE, lines: [r.points()] }
    case 3: return { type: POLYGON, polygons: [r.rings()] }
    case 4: {
      const points: number[] = []
      for (let i = 0, n = r.u32(); i < n; i++) { r.header(); r.point(points) }
      return { type: POINT, points }
    }
    case 5: {
      const lines: number[][] = []
      for (let i = 0, n = r.u32(); i < n; i++) { r.header(); lines.push(r.points()) }
      return { type: LINE, lines }
    }
    case 6: {
      const polygons: number[][][] = []
      for (let i = 0, n = r.u32(); i < n; i++) { r.header(); polygons.push(r.rings()) }
      return { type: POLYGON, polygons }
    }
    default: return null
  }
}

/** A geometry object in tile units (the generic path, for layers without GeoPackage storage). */
export function shapeOf(g: Geometry, project: Project): TileShape | null {
  const flat = (ps: Position[]) => {
    const out: number[] = []
    for (const p of ps) project(p[0]!, p[1]!, out)
    return out
  }
  switch (g.type) {
    case 'Point': return { type: POINT, points: flat([g.coordinates]) }
    case 'MultiPoint': return { type: POINT, points: flat(g.coordinates) }
    case 'LineString': return { type: LINE, lines: [flat(g.coordinates)] }
    case 'MultiLineString': return { type: LINE, lines: g.coordinates.map(flat) }
    case 'Polygon': return { type: POLYGON, polygons: [g.coordinates.map(flat)] }
    case 'MultiPolygon': return { type: POLYGON, polygons: g.coordinates.map((p) => p.map(flat)) }
    default: return null
  }
}

const POINT_OUT: number[] = []

/**
 * Fast path of `readShape` for a single point: its tile position in `out[0..1]`, or `false`
 * when the blob holds anything else (the caller then reads it with `readShape`).
 */
export function readPoint(blob: Uint8Array, project: Project, out: [number, number]): boolean {
  // Header: 'GP', version, flags (bit 0 little-endian, bits 1-3 envelope), srs id; points mostly carry no envelope.
  const flags = blob[3]!
  if (blob[0] !== 0x47 || blob[1] !== 0x50 || flags & 0x10) return false
  const o = 8 + ([0, 32, 48, 48, 64][(flags >> 1) & 7] ?? 0)
  if (blob.length < o + 21) return false
  const view = new DataView(blob.buffer, blob.byteOffset + o, 21)
  const le = view.getUint8(0) === 1
  const code = view.getUint32(1, le)
  if (code !== 1 && code !== 1001 && code !== 0x80000001) return false
  POINT_OUT.length = 0
  project(view.getFloat64(5, le), view.getFloat64(13, le), POINT_OUT)
  out[0] = POINT_OUT[0]!
  out[1] = POINT_OUT[1]!
  return true
}

const CORNERS: number[] = []

/**
 * Whether a blob's envelope (when it has one: lines and polygons do) spans less than one
 * tile unit both ways: such a feature rounds to nothing and is skipped unread. Only the
 * envelope's two corners are projected.
 */
export function tinyInTile(blob: Uint8Array, project: Project): boolean {
  const flags = blob[3]!
  if (((flags >> 1) & 7) === 0 || blob.length < 40) return false
  const le = (flags & 1) === 1
  const v = new DataView(blob.buffer, blob.byteOffset + 8, 32)
  CORNERS.length = 0
  project(v.getFloat64(0, le), v.getFloat64(16, le), CORNERS) // minX, minY
  project(v.getFloat64(8, le), v.getFloat64(24, le), CORNERS) // maxX, maxY
  return Math.abs(CORNERS[2]! - CORNERS[0]!) < 1 && Math.abs(CORNERS[3]! - CORNERS[1]!) < 1
}

/** The box of flat arrays `parts` (`[minX, minY, maxX, maxY]`). */
export function partsBbox(parts: number[][]): Bbox {
  const b: Bbox = [Infinity, Infinity, -Infinity, -Infinity]
  for (const p of parts) {
    for (let i = 0; i < p.length; i += 2) {
      const x = p[i]!, y = p[i + 1]!
      if (x < b[0]) b[0] = x
      if (y < b[1]) b[1] = y
      if (x > b[2]) b[2] = x
      if (y > b[3]) b[3] = y
    }
  }
  return b
}
