/**
 * @module basemap/routes
 * Outpost's own routes for the offline world basemap: its description and its tiles (204 for
 * a tile without land, borders or names, as `feature_layer.mvt` answers an empty tile).
 */
import { PUBLIC, type Routes } from '../core/routes.ts'
import type { Platform } from '../platform/platform.ts'
import { json } from '../core/http.ts'
import { ApiError, invalidParameter } from '../core/error.ts'
import { isTile } from '../geo/tile.ts'
import { basemapTile, worldBasemap, BASEMAP_ATTRIBUTION } from './service.ts'

const TILE_TYPE = 'application/vnd.mapbox-vector-tile'

const basemapMissing = () => new ApiError(404, 'Basemap not available', {
  message: 'This host ships no offline basemap (public/basemap/world.pmtiles).', exception: 'outpost.basemap.BasemapMissing' })

/** The basemap reads only the host's shipped files. */
export interface BasemapVariables { services: { platform: Platform } }

export function mountBasemap(routes: Routes<BasemapVariables>): void {
  routes.add('outpost.basemap', '/api/component/outpost/basemap', 'GET', PUBLIC('the offline world basemap, no user data'), async (c) => {
    const archive = await worldBasemap(c.get('services').platform)
    if (!archive) throw basemapMissing()
    const h = await archive.getHeader()
    return json({ name: 'world', attribution: BASEMAP_ATTRIBUTION, min_zoom: h.minZoom, max_zoom: h.maxZoom,
      tiles: '/api/component/outpost/basemap/{z}/{x}/{y}', layers: ['land', 'boundaries', 'places'] })
  })

  routes.add('outpost.basemap.tile', '/api/component/outpost/basemap/{z}/{x}/{y}', 'GET', PUBLIC('the offline world basemap, no user data'), async (c) => {
    const [z, x, y] = ['z', 'x', 'y'].map((k) => Number(c.req.param(k))) as [number, number, number]
    if (!isTile(z, x, y)) throw invalidParameter('z', `Tile ${z}/${x}/${y} is outside the tile grid.`)
    const platform = c.get('services').platform
    if (!(await worldBasemap(platform))) throw basemapMissing()
    const tile = await basemapTile(platform, z, x, y)
    if (!tile) return new Response(null, { status: 204 })
    // The archive changes only with a new version of the app.
    return new Response(tile as Uint8Array<ArrayBuffer>, { headers: { 'content-type': TILE_TYPE, 'cache-control': 'max-age=86400' } })
  })
}
