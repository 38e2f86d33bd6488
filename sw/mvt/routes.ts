/**
 * @module mvt/routes
 * `feature_layer.mvt` (spec §4.9, reference §9) and the deprecated
 * `/api/resource/{id}/{z}/{x}/{y}.mvt`: parse, check the layers, answer the tile or 204.
 */
import { onPath, onQuery, type RequestContext, type Routes } from '../core/routes.ts'
import { invalidParameter, parameterRequired } from '../core/error.ts'
import { lastValue, queryFloat, queryInt, queryIntList } from '../core/validate.ts'
import { isTile, MAX_ZOOM } from '../geo/tile.ts'
import { resourceNotFound } from '../resource/errors.ts'
import { notFeatureLayer, resourceHeads, type DataOutVariables } from '../feature/capability.ts'
import { renderTile, type TileAddress, type TileOptions } from './service.ts'

export const MVT_TYPE = 'application/vnd.mapbox-vector-tile'
const MAX_EXTENT = 65536

function required(params: URLSearchParams, name: string): number {
  const v = queryInt(params, name, { min: 0 })
  if (v === undefined) throw parameterRequired(name)
  return v
}

/** `extent`, `padding` and `simplification` with the original's defaults. */
export function tileOptions(params: URLSearchParams): TileOptions {
  const extent = queryInt(params, 'extent', { min: 1 }) ?? 4096
  if (extent > MAX_EXTENT) throw invalidParameter('extent', `Value must be <= ${MAX_EXTENT}.`)
  const padding = queryFloat(params, 'padding', { min: 0, max: 0.5 }) ?? 0.05
  // The spec limits it to 0…8; the default is the original's extent / 512 (8 at 4096).
  const simplification = queryFloat(params, 'simplification', { min: 0, max: 8 }) ?? Math.min(8, extent / 512)
  return { extent, padding, simplification }
}

function tileAddress(z: number, x: number, y: number): TileAddress {
  if (z > MAX_ZOOM) throw invalidParameter('z', `Value must be <= ${MAX_ZOOM}.`)
  if (!isTile(z, x, y)) throw invalidParameter(x >= 2 ** z ? 'x' : 'y', `Tile ${z}/${x}/${y} is outside the tile grid.`)
  return { z, x, y }
}

/**
 * `Server-Timing` of a tile answer: the server's own work from the app's start on the request
 * (authentication, routing, resource and permission checks) to the tile's bytes (`cut` when
 * any layer was cut, `cache` when all came from the tile cache), so clients and the
 * benchmark can tell it from the transport's time. A cut names where its layers came from in
 * `desc`: `index` (the layer's tile index), `rtree`, `indexing` (the R*Tree while the index
 * is being built), `engine` (the layer's engine: PostGIS's `ST_AsMVT`), `generic`; several
 * joined by `+`.
 */
export const serverTiming = (cached: boolean, ms: number, sources: readonly string[] = []) =>
  `${cached ? 'cache' : 'cut'};dur=${ms.toFixed(2)}${!cached && sources.length ? `;desc=${sources.join('+')}` : ''}`

async function answer(c: RequestContext<DataOutVariables>, ids: number[], t: TileAddress, opts: TileOptions): Promise<Response> {
  const started = c.get('started') ?? performance.now()
  const services = c.get('services')
  const heads = await resourceHeads(services, ids)
  const layers = []
  for (const id of ids) {
    const head = heads.find((h) => h.id === id)
    if (!head) throw resourceNotFound(id)
    if (!head.isFeatureLayer) throw notFeatureLayer(id)
    const layer = await services.classes.featureLayer(id)
    if (!layer) throw resourceNotFound(id)
    layers.push(layer)
  }
  const { bytes, cached, sources } = await renderTile(services, layers, t, { ...opts, layerPrefix: services.names.mvtPrefix })
  const timing = serverTiming(cached, performance.now() - started, sources)
  if (!bytes) return new Response(null, { status: 204, headers: { 'server-timing': timing } })
  return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': MVT_TYPE, 'server-timing': timing } })
}

export function mountMvt(routes: Routes<DataOutVariables>): void {
  routes.add('feature_layer.mvt', '/api/component/feature_layer/mvt', 'GET', onQuery('data', 'read'), (c) => {
    const params = new URL(c.req.url).searchParams
    const ids = queryIntList(params, 'resource')
    if (ids === undefined) throw parameterRequired('resource')
    if (!ids.length || lastValue(params, 'resource') === '') throw invalidParameter('resource', 'At least one resource is required.')
    const t = tileAddress(required(params, 'z'), required(params, 'x'), required(params, 'y'))
    return answer(c, ids, t, tileOptions(params))
  })

  // Deprecated since 3.0.4 (spec §4.9), kept for old clients: the same tile of one layer.
  routes.add('feature_layer.mvt', '/api/resource/{id}/{z}/{x}/{file}', 'GET', onPath('data', 'read'), (c) => {
    const n = (k: string) => Number(c.req.param(k))
    const t = tileAddress(n('z'), n('x'), parseInt(c.req.param('file') ?? '', 10))
    return answer(c, [n('id')], t, tileOptions(new URL(c.req.url).searchParams))
  }, { file: '[0-9]+\\.mvt' })
}
