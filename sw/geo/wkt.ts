/**
 * @module geo/wkt
 * WKT in (any common spelling, parsed by `betterknown`) and out as PostGIS `ST_AsText`
 * writes it: `POINT(1 2)`, `POINT Z (1 2 3)`, `MULTIPOINT(1 2,3 4)` (reference §5.2).
 */
import { wktToGeoJSON } from 'betterknown'
import { invalidReason, hasZ, type Geometry, type Position } from './geometry.ts'
import type { GeoJsonLike } from './flat.ts'

const KINDS = new Set(['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon'])

const NUM = '([-+]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][-+]?\\d+)?)'
/** The common 2D point, read without the general parser (bulk loads are mostly points). */
const SIMPLE_POINT = new RegExp(`^\\s*POINT\\s*\\(\\s*${NUM}\\s+${NUM}\\s*\\)\\s*$`, 'i')

/** Parses WKT; throws an `Error` saying what is wrong (callers turn it into a 422). */
export function parseWkt(text: string): Geometry {
  const m = SIMPLE_POINT.exec(text)
  if (m) {
    const x = Number(m[1]), y = Number(m[2])
    if (Number.isFinite(x) && Number.isFinite(y)) return { type: 'Point', coordinates: [x, y] }
  }
  const g = readWkt(text)
  if (g === null) throw new Error('Empty geometries are not supported.')
  const geom = g as Geometry
  if (!KINDS.has(geom.type)) throw new Error(`Geometry type ${geom.type} is not supported.`)
  const reason = invalidReason(geom)
  if (reason) throw new Error(`Geometry is not valid: ${reason}.`)
  return geom
}

/**
 * Any WKT as GeoJSON: collections and `EMPTY` parts included (an empty geometry is `null`),
 * keywords in any case. Throws an `Error` when the text is not WKT. Strict callers use
 * `parseWkt`; the catalogue's filters take everything PostGIS would.
 */
export function readWkt(text: string): GeoJsonLike | null {
  try {
    return wktToGeoJSON(text) as GeoJsonLike | null
  } catch (err) {
    throw new Error(`Invalid WKT: ${(err as Error).message}`)
  }
}

const NAMES: Record<Geometry['type'], string> = {
  Point: 'POINT', LineString: 'LINESTRING', Polygon: 'POLYGON',
  MultiPoint: 'MULTIPOINT', MultiLineString: 'MULTILINESTRING', MultiPolygon: 'MULTIPOLYGON',
}

const pos = (p: Position) => p.join(' ')
const seq = (ps: Position[]) => ps.map(pos).join(',')
const rings = (rs: Position[][]) => rs.map((r) => `(${seq(r)})`).join(',')

export function toWkt(g: Geometry): string {
  const head = NAMES[g.type] + (hasZ(g) ? ' Z ' : '')
  switch (g.type) {
    case 'Point': return `${head}(${pos(g.coordinates)})`
    case 'LineString': case 'MultiPoint': return `${head}(${seq(g.coordinates)})`
    case 'Polygon': case 'MultiLineString': return `${head}(${rings(g.coordinates)})`
    case 'MultiPolygon': return `${head}(${g.coordinates.map((pg) => `(${rings(pg)})`).join(',')})`
  }
}
