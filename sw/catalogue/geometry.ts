/**
 * @module catalogue/geometry
 * What the `intersects_*` filters need: WKT, EWKT (`SRID=n;WKT`) or a GeoJSON geometry read
 * into the geometry kernel's flat shapes in EPSG:4326. The test is the kernel's planar
 * `intersects` in degrees, as PostGIS `ST_Intersects` on `geometry` does (reference §7.6: no
 * antimeridian handling).
 */
import { emptyShape, flatten, FlatError, isEmpty, type FlatShape, type GeoJsonLike, type Project } from '../geo/flat.ts'
import { readWkt } from '../geo/wkt.ts'
import { transformer, UnknownSrsError } from '../geo/reproject.ts'
import { loadProjection, type EpsgSource } from '../geo/srs.ts'

export class GeometryError extends Error {}

const EWKT = /^SRID=(-?\d+)\s*;\s*([\s\S]*)$/i

/** The SRID of an EWKT text, or `undefined` (then it is 4326). */
export function sridOf(text: string): number | undefined {
  const m = EWKT.exec(text.trim())
  return m ? Number(m[1]) : undefined
}

/** Loads the projections the EWKT texts name, so that `parseGeometry` can reproject them. */
export async function loadSrids(texts: Iterable<unknown>, epsg: EpsgSource): Promise<void> {
  const srids = new Set<number>()
  for (const t of texts) {
    const srid = typeof t === 'string' ? sridOf(t) : undefined
    if (srid !== undefined) srids.add(srid)
  }
  for (const srid of srids) await loadProjection(srid, epsg)
}

/**
 * Parses the text of a filter or a stored field. Keywords are case-insensitive (GEOS accepts
 * `polygon(...)`); a missing SRID means 4326; another SRID is reprojected to 4326 (its
 * projection must have been loaded: `loadSrids`).
 */
export function parseGeometry(text: string): FlatShape {
  let body = text.trim()
  let srid = 4326
  const m = EWKT.exec(body)
  if (m) { srid = Number(m[1]); body = m[2]! }
  let geo: GeoJsonLike | null
  if (body.startsWith('{')) {
    try { geo = JSON.parse(body) as GeoJsonLike } catch { throw new GeometryError('Invalid GeoJSON.') }
    if (typeof geo !== 'object' || geo === null || typeof geo.type !== 'string') throw new GeometryError('Invalid GeoJSON.')
  } else {
    if (!/^[A-Za-z]/.test(body)) throw new GeometryError(`Couldn't create spatial object from lookup value '${text}'.`)
    try {
      geo = readWkt(body)
    } catch {
      throw new GeometryError(`Couldn't create spatial object from lookup value '${text}'.`)
    }
  }
  let project: Project | undefined
  if (srid !== 4326) {
    try {
      project = transformer(srid, 4326)
    } catch (err) {
      if (err instanceof UnknownSrsError) throw new GeometryError(`Unknown SRID ${srid}.`)
      throw err
    }
  }
  if (geo === null) return emptyShape()
  try {
    return flatten(geo, project)
  } catch (err) {
    if (err instanceof FlatError) throw new GeometryError(err.message)
    throw err
  }
}

/** The envelope of `s` as the original prints an `extent`. */
export function envelopeEwkt(s: FlatShape): string | null {
  if (isEmpty(s)) return null
  const [x0, y0, x1, y1] = s.bbox
  return `SRID=4326;POLYGON ((${x0} ${y0}, ${x1} ${y0}, ${x1} ${y1}, ${x0} ${y1}, ${x0} ${y0}))`
}
