/**
 * @module geo/geometry
 * The geometry model shared by the codecs: GeoJSON geometry objects (without collections),
 * 2D or 3D. Helpers name a geometry's layer type, walk its coordinates and box it.
 */
import type { LineString, MultiLineString, MultiPoint, MultiPolygon, Point, Polygon, Position } from 'geojson'

export type { Position }
export type Geometry = Point | LineString | Polygon | MultiPoint | MultiLineString | MultiPolygon

/** `[minX, minY, maxX, maxY]`. */
export type Bbox = [number, number, number, number]

const LAYER_TYPE: Record<Geometry['type'], string> = {
  Point: 'POINT', LineString: 'LINESTRING', Polygon: 'POLYGON',
  MultiPoint: 'MULTIPOINT', MultiLineString: 'MULTILINESTRING', MultiPolygon: 'MULTIPOLYGON',
}

/** The first position of a geometry, used to read its dimension. */
function firstPosition(g: Geometry): Position | undefined {
  let c: unknown = g.coordinates
  while (Array.isArray(c) && Array.isArray(c[0])) c = c[0]
  return Array.isArray(c) && typeof c[0] === 'number' ? c as Position : undefined
}

export function hasZ(g: Geometry): boolean {
  return (firstPosition(g)?.length ?? 2) >= 3
}

/** The layer geometry type a geometry has: `POINT`, `MULTIPOLYGONZ`… */
export function layerTypeOf(g: Geometry): string {
  return LAYER_TYPE[g.type] + (hasZ(g) ? 'Z' : '')
}

/** Calls `fn` on every position. */
export function eachPosition(g: Geometry, fn: (p: Position) => void): void {
  switch (g.type) {
    case 'Point': fn(g.coordinates); break
    case 'LineString': case 'MultiPoint': for (const p of g.coordinates) fn(p); break
    case 'Polygon': case 'MultiLineString': for (const r of g.coordinates) for (const p of r) fn(p); break
    case 'MultiPolygon': for (const pg of g.coordinates) for (const r of pg) for (const p of r) fn(p); break
  }
}

/** A copy of `g` with every position replaced by `fn(position)`. */
export function mapPositions(g: Geometry, fn: (p: Position) => Position): Geometry {
  switch (g.type) {
    case 'Point': return { type: g.type, coordinates: fn(g.coordinates) }
    case 'LineString': case 'MultiPoint': return { type: g.type, coordinates: g.coordinates.map(fn) }
    case 'Polygon': case 'MultiLineString': return { type: g.type, coordinates: g.coordinates.map((r) => r.map(fn)) }
    case 'MultiPolygon': return { type: g.type, coordinates: g.coordinates.map((pg) => pg.map((r) => r.map(fn))) }
  }
}

export function bboxOf(g: Geometry): Bbox {
  if (g.type === 'Point') return [g.coordinates[0]!, g.coordinates[1]!, g.coordinates[0]!, g.coordinates[1]!]
  const b: Bbox = [Infinity, Infinity, -Infinity, -Infinity]
  eachPosition(g, (p) => {
    const x = p[0]!, y = p[1]!
    if (x < b[0]) b[0] = x
    if (y < b[1]) b[1] = y
    if (x > b[2]) b[2] = x
    if (y > b[3]) b[3] = y
  })
  return b
}

/**
 * Why `g` is not a valid geometry, or `undefined` when it is: finite coordinates of one
 * dimension, lines of two or more positions, closed rings of four or more.
 */
/**
 * Largest absolute coordinate accepted: no reference system comes near it, and past it
 * reprojection overflows (±1e308 made every later `/extent` of the layer fail).
 */
export const COORDINATE_LIMIT = 1e15

/** Why box `b` is out of bounds, or `undefined` (NaN and infinities are out too). */
export function bboxProblem(b: Bbox): string | undefined {
  for (const v of b) if (!(Math.abs(v) <= COORDINATE_LIMIT)) return `coordinate ${v} is beyond ±${COORDINATE_LIMIT}`
  return undefined
}

export function invalidReason(g: Geometry): string | undefined {
  const dim = firstPosition(g)?.length
  if (dim === undefined) return 'empty geometry'
  let bad: string | undefined
  eachPosition(g, (p) => {
    if (bad) return
    if (p.length !== dim) bad = 'mixed coordinate dimensions'
    else if (!p.every(Number.isFinite)) bad = 'non-finite coordinate'
  })
  if (bad) return bad
  const line = (l: Position[]) => (l.length < 2 ? 'a line needs at least two points' : undefined)
  const ring = (r: Position[]) => {
    if (r.length < 4) return 'a polygon ring needs at least four points'
    const a = r[0]!, b = r[r.length - 1]!
    return a.every((v, i) => v === b[i]) ? undefined : 'a polygon ring is not closed'
  }
  const poly = (p: Position[][]) => (p.length === 0 ? 'empty polygon' : p.map(ring).find(Boolean))
  switch (g.type) {
    case 'Point': return undefined
    case 'MultiPoint': return g.coordinates.length ? undefined : 'empty geometry'
    case 'LineString': return line(g.coordinates)
    case 'MultiLineString': return g.coordinates.length ? g.coordinates.map(line).find(Boolean) : 'empty geometry'
    case 'Polygon': return poly(g.coordinates)
    case 'MultiPolygon': return g.coordinates.length ? g.coordinates.map(poly).find(Boolean) : 'empty geometry'
  }
}
