/**
 * @module sync/webmap/request
 * What `POST /api/component/outpost/webmap_offline/` (and `…/estimate`) take: a connection, the
 * remote web map, an area (`bbox`, EPSG:4326 `[west, south, east, north]`) and a zoom range.
 * Validated at the edge; the area's tiles are capped so that a job stays bounded.
 */
import { validationError } from '../../core/error.ts'
import { expectKeys, expectKind, expectObject, expectRef } from '../../core/validate.ts'
import { tileCount, type Bbox4326 } from './tiles.ts'



export interface OfflineRequest {
  connection: number
  webmap: number
  bbox: Bbox4326
  /** `[min, max]`, both included. */
  zooms: [number, number]
  /** Where the saved map's group goes (the main group by default). */
  parent: number
}

/** Highest zoom of the basemap tiles brought to the device. */
export const MAX_OFFLINE_ZOOM = 20
/** Tiles of one basemap in one job: about 100-400 MB of raster tiles, what a phone can keep. */
export const MAX_TILES = 20_000

export function parseOfflineRequest(body: Record<string, unknown>): OfflineRequest {
  expectKeys(body, ['connection', 'webmap', 'bbox', 'zooms', 'parent'], '$')
  const connection = expectRef(body.connection, '$.connection')
  const webmap = expectRef(body.webmap, '$.webmap')
  const parent = body.parent === undefined ? 0 : expectRef(body.parent, '$.parent')
  const b = expectKind<unknown[]>('array', body.bbox, '$.bbox')
  if (b.length !== 4 || !b.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw validationError('Expected [west, south, east, north] in degrees - at `$.bbox`')
  }
  const bbox = b as Bbox4326
  const [w, s, e, n] = bbox
  if (w < -180 || e > 180 || s < -90 || n > 90 || w >= e || s >= n) {
    throw validationError('Expected west < east within [-180, 180] and south < north within [-90, 90] - at `$.bbox`')
  }
  const z = expectKind<unknown[]>('array', body.zooms, '$.zooms')
  if (z.length !== 2 || !z.every((v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_OFFLINE_ZOOM) || (z[0] as number) > (z[1] as number)) {
    throw validationError(`Expected [min, max] zoom levels from 0 to ${MAX_OFFLINE_ZOOM}, min ≤ max - at \`$.zooms\``)
  }
  const zooms = z as [number, number]
  const tiles = tileCount(bbox, zooms)
  if (tiles > MAX_TILES) {
    throw validationError(`The area has ${tiles} basemap tiles at zooms ${zooms[0]}-${zooms[1]}, more than ${MAX_TILES}: choose a smaller area or fewer zoom levels - at \`$.zooms\``,
      { tiles, max_tiles: MAX_TILES })
  }
  return { connection, webmap, bbox, zooms, parent }
}
