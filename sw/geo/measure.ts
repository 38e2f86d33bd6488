/**
 * @module geo/measure
 * Planar measures in the geometry's own coordinates (the intersects predicate is in `geo/flat`).
 */
import type { Geometry, Position } from './geometry.ts'

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
