/**
 * @module geo/flat
 * Geometries flattened for predicates (OpenLayers' `geom/flat` style): polygons as rings of
 * flat `[x, y, x, y, …]` arrays, lines as flat arrays, points in one flat array, and the box.
 * The one `intersects` of the backend works on these: the feature filter and the catalogue's
 * `intersects_*` both use it.
 */
import type { Bbox, Position } from './geometry.ts'

export interface FlatShape {
  /** Each polygon is a list of rings; each ring a closed flat coordinate array. */
  polygons: number[][][]
  lines: number[][]
  points: number[]
  /** `[minX, minY, maxX, maxY]`; an empty shape has an inverted box. */
  bbox: Bbox
}

/** A coordinate list that is not one: non-numbers, non-finite values, a failed projection. */
export class FlatError extends Error {}

/** A GeoJSON geometry object as parsed JSON or WKT gives it, not yet checked. */
export interface GeoJsonLike { type: string; coordinates?: unknown; geometries?: GeoJsonLike[] }

export type Project = (p: Position) => Position

export function emptyShape(): FlatShape {
  return { polygons: [], lines: [], points: [], bbox: [Infinity, Infinity, -Infinity, -Infinity] }
}

/**
 * Flattens a GeoJSON geometry (collections and empty parts included), checking every
 * coordinate and mapping it through `project` when given. Throws `FlatError`.
 */
export function flatten(g: GeoJsonLike, project?: Project): FlatShape {
  const shape = emptyShape()
  addGeometry(shape, g, project)
  return shape
}

function flat(coords: unknown, project: Project | undefined, shape: FlatShape): number[] {
  if (!Array.isArray(coords)) throw new FlatError('Invalid coordinates.')
  const out: number[] = []
  const b = shape.bbox
  for (const p of coords as unknown[]) {
    if (!Array.isArray(p) || p.length < 2 || typeof p[0] !== 'number' || typeof p[1] !== 'number'
      || !Number.isFinite(p[0]) || !Number.isFinite(p[1])) {
      throw new FlatError('Invalid coordinates.')
    }
    const q = project ? project(p as Position) : (p as Position)
    const x = q[0]!, y = q[1]!
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new FlatError('Coordinates out of the projection\'s range.')
    out.push(x, y)
    if (x < b[0]) b[0] = x
    if (y < b[1]) b[1] = y
    if (x > b[2]) b[2] = x
    if (y > b[3]) b[3] = y
  }
  return out
}

function addGeometry(shape: FlatShape, g: GeoJsonLike, project: Project | undefined): void {
  const c = g.coordinates as unknown[] | undefined
  switch (g.type) {
    case 'Point':
      if (Array.isArray(c) && c.length) shape.points.push(...flat([c], project, shape))
      return
    case 'MultiPoint': shape.points.push(...flat(c, project, shape)); return
    case 'LineString': if (c?.length) shape.lines.push(flat(c, project, shape)); return
    case 'MultiLineString': for (const l of c ?? []) if ((l as unknown[])?.length) shape.lines.push(flat(l, project, shape)); return
    case 'Polygon': if (c?.length) shape.polygons.push((c as unknown[]).map((r) => flat(r, project, shape))); return
    case 'MultiPolygon':
      for (const p of c ?? []) if ((p as unknown[])?.length) shape.polygons.push((p as unknown[]).map((r) => flat(r, project, shape)))
      return
    case 'GeometryCollection':
      for (const sub of g.geometries ?? []) addGeometry(shape, sub, project)
      return
    default:
      throw new FlatError(`Unsupported geometry type '${g.type}'.`)
  }
}

export function isEmpty(s: FlatShape): boolean {
  return s.bbox[0] > s.bbox[2]
}

const boxesOverlap = (a: Bbox, b: Bbox) => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
  return v > 0 ? 1 : v < 0 ? -1 : 0
}

const within = (a: number, b: number, c: number) => Math.min(a, b) <= c && c <= Math.max(a, b)

/** Closed segments p1p2 and p3p4 share at least one point. */
function segmentsMeet(x1: number, y1: number, x2: number, y2: number, x3: number, y3: number, x4: number, y4: number): boolean {
  const d1 = orient(x3, y3, x4, y4, x1, y1), d2 = orient(x3, y3, x4, y4, x2, y2)
  const d3 = orient(x1, y1, x2, y2, x3, y3), d4 = orient(x1, y1, x2, y2, x4, y4)
  if (d1 !== d2 && d3 !== d4) return true
  if (d1 === 0 && within(x3, x4, x1) && within(y3, y4, y1)) return true
  if (d2 === 0 && within(x3, x4, x2) && within(y3, y4, y2)) return true
  if (d3 === 0 && within(x1, x2, x3) && within(y1, y2, y3)) return true
  if (d4 === 0 && within(x1, x2, x4) && within(y1, y2, y4)) return true
  return false
}

/** Every segment chain of `s` (ring edges and lines), and each point as a zero-length one. */
function chains(s: FlatShape): number[][] {
  const out: number[][] = []
  for (const poly of s.polygons) for (const ring of poly) out.push(ring)
  for (const line of s.lines) out.push(line)
  for (let i = 0; i < s.points.length; i += 2) out.push([s.points[i]!, s.points[i + 1]!, s.points[i]!, s.points[i + 1]!])
  return out
}

function ringContains(ring: number[], x: number, y: number): boolean {
  let inside = false
  for (let i = 0, j = ring.length - 2; i < ring.length; j = i, i += 2) {
    const xi = ring[i]!, yi = ring[i + 1]!, xj = ring[j]!, yj = ring[j + 1]!
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside
  }
  return inside
}

/** Strictly inside some polygon of `s` (outer ring, outside its holes). */
function polygonsContain(s: FlatShape, x: number, y: number): boolean {
  for (const [outer, ...holes] of s.polygons) {
    if (outer && ringContains(outer, x, y) && !holes.some((h) => ringContains(h, x, y))) return true
  }
  return false
}

/** One vertex of each part of `s`: if no edges cross, a part is inside iff its vertex is. */
function representativePoints(s: FlatShape): number[] {
  const out: number[] = []
  for (const poly of s.polygons) if (poly[0]?.length) out.push(poly[0][0]!, poly[0][1]!)
  for (const line of s.lines) if (line.length) out.push(line[0]!, line[1]!)
  out.push(...s.points)
  return out
}

/** Planar ST_Intersects: the shapes share at least one point (boundaries included). */
export function intersects(a: FlatShape, b: FlatShape): boolean {
  if (isEmpty(a) || isEmpty(b) || !boxesOverlap(a.bbox, b.bbox)) return false // trivial reject
  const sa = chains(a), sb = chains(b)
  for (const pa of sa) {
    for (let i = 0; i + 3 < pa.length; i += 2) {
      const ax1 = pa[i]!, ay1 = pa[i + 1]!, ax2 = pa[i + 2]!, ay2 = pa[i + 3]!
      for (const pb of sb) {
        for (let j = 0; j + 3 < pb.length; j += 2) {
          if (segmentsMeet(ax1, ay1, ax2, ay2, pb[j]!, pb[j + 1]!, pb[j + 2]!, pb[j + 3]!)) return true
        }
      }
    }
  }
  const ra = representativePoints(a), rb = representativePoints(b)
  for (let i = 0; i < ra.length; i += 2) if (polygonsContain(b, ra[i]!, ra[i + 1]!)) return true
  for (let i = 0; i < rb.length; i += 2) if (polygonsContain(a, rb[i]!, rb[i + 1]!)) return true
  return false
}
