/**
 * @module geo/measure
 * Planar measures and the intersects predicate, in the geometry's own coordinates.
 */
import { bboxOf, type Geometry, type Position } from './geometry.ts'

type Ring = Position[]

function ringArea(r: Ring): number {
  let s = 0
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) s += (r[j]![0]! * r[i]![1]!) - (r[i]![0]! * r[j]![1]!)
  return Math.abs(s) / 2
}

function polygonArea(p: Ring[]): number {
  return p.reduce((s, r, i) => (i === 0 ? s + ringArea(r) : s - ringArea(r)), 0)
}

function lineLength(l: Position[]): number {
  let s = 0
  for (let i = 1; i < l.length; i++) s += Math.hypot(l[i]![0]! - l[i - 1]![0]!, l[i]![1]! - l[i - 1]![1]!)
  return s
}

/** Area of polygons; `null` for points and lines (reference §5.3, geometry_info). */
export function areaOf(g: Geometry): number | null {
  if (g.type === 'Polygon') return polygonArea(g.coordinates)
  if (g.type === 'MultiPolygon') return g.coordinates.reduce((s, p) => s + polygonArea(p), 0)
  return null
}

/** Length of lines, perimeter of polygons; `null` for points. */
export function lengthOf(g: Geometry): number | null {
  switch (g.type) {
    case 'Point': case 'MultiPoint': return null
    case 'LineString': return lineLength(g.coordinates)
    case 'MultiLineString': case 'Polygon': return g.coordinates.reduce((s, l) => s + lineLength(l), 0)
    case 'MultiPolygon': return g.coordinates.reduce((s, p) => s + p.reduce((t, r) => t + lineLength(r), 0), 0)
  }
}

/** The parts of `g` as points, segments chains and polygons. */
interface Parts { points: Position[]; lines: Position[][]; polygons: Ring[][] }

function partsOf(g: Geometry): Parts {
  switch (g.type) {
    case 'Point': return { points: [g.coordinates], lines: [], polygons: [] }
    case 'MultiPoint': return { points: g.coordinates, lines: [], polygons: [] }
    case 'LineString': return { points: [], lines: [g.coordinates], polygons: [] }
    case 'MultiLineString': return { points: [], lines: g.coordinates, polygons: [] }
    case 'Polygon': return { points: [], lines: [], polygons: [g.coordinates] }
    case 'MultiPolygon': return { points: [], lines: [], polygons: g.coordinates }
  }
}

function orient(a: Position, b: Position, c: Position): number {
  const v = (b[0]! - a[0]!) * (c[1]! - a[1]!) - (b[1]! - a[1]!) * (c[0]! - a[0]!)
  return v > 0 ? 1 : v < 0 ? -1 : 0
}

function onSegment(a: Position, b: Position, p: Position): boolean {
  return Math.min(a[0]!, b[0]!) <= p[0]! && p[0]! <= Math.max(a[0]!, b[0]!) &&
    Math.min(a[1]!, b[1]!) <= p[1]! && p[1]! <= Math.max(a[1]!, b[1]!)
}

function segmentsMeet(a: Position, b: Position, c: Position, d: Position): boolean {
  const o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b)
  if (o1 !== o2 && o3 !== o4) return true
  return (o1 === 0 && onSegment(a, b, c)) || (o2 === 0 && onSegment(a, b, d)) ||
    (o3 === 0 && onSegment(c, d, a)) || (o4 === 0 && onSegment(c, d, b))
}

function pointOnLine(p: Position, l: Position[]): boolean {
  for (let i = 1; i < l.length; i++) if (orient(l[i - 1]!, l[i]!, p) === 0 && onSegment(l[i - 1]!, l[i]!, p)) return true
  return false
}

function pointInRing(p: Position, r: Ring): boolean {
  let inside = false
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
    const a = r[i]!, b = r[j]!
    if ((a[1]! > p[1]!) !== (b[1]! > p[1]!) && p[0]! < ((b[0]! - a[0]!) * (p[1]! - a[1]!)) / (b[1]! - a[1]!) + a[0]!) inside = !inside
  }
  return inside
}

/** Inside or on the boundary of the polygon (holes excluded). */
function pointInPolygon(p: Position, poly: Ring[]): boolean {
  if (poly.some((r) => pointOnLine(p, r))) return true
  if (!pointInRing(p, poly[0]!)) return false
  return !poly.slice(1).some((h) => pointInRing(p, h))
}

function linesMeet(a: Position[], b: Position[]): boolean {
  for (let i = 1; i < a.length; i++) for (let j = 1; j < b.length; j++) {
    if (segmentsMeet(a[i - 1]!, a[i]!, b[j - 1]!, b[j]!)) return true
  }
  return false
}

function lineMeetsPolygon(l: Position[], poly: Ring[]): boolean {
  return poly.some((r) => linesMeet(l, r)) || pointInPolygon(l[0]!, poly)
}

function polygonsMeet(a: Ring[], b: Ring[]): boolean {
  return a.some((r) => lineMeetsPolygon(r, b)) || pointInPolygon(b[0]![0]!, a)
}

/** Whether two geometries share at least one point (planar, as PostGIS ST_Intersects). */
export function intersects(a: Geometry, b: Geometry): boolean {
  const ba = bboxOf(a), bb = bboxOf(b)
  if (ba[0] > bb[2] || bb[0] > ba[2] || ba[1] > bb[3] || bb[1] > ba[3]) return false
  const pa = partsOf(a), pb = partsOf(b)
  const same = (p: Position, q: Position) => p[0] === q[0] && p[1] === q[1]
  for (const p of pa.points) {
    if (pb.points.some((q) => same(p, q)) || pb.lines.some((l) => pointOnLine(p, l)) ||
      pb.polygons.some((g) => pointInPolygon(p, g))) return true
  }
  for (const l of pa.lines) {
    if (pb.points.some((q) => pointOnLine(q, l)) || pb.lines.some((m) => linesMeet(l, m)) ||
      pb.polygons.some((g) => lineMeetsPolygon(l, g))) return true
  }
  for (const g of pa.polygons) {
    if (pb.points.some((q) => pointInPolygon(q, g)) || pb.lines.some((m) => lineMeetsPolygon(m, g)) ||
      pb.polygons.some((h) => polygonsMeet(g, h))) return true
  }
  return false
}
