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

/** The phases of a cut tile's request, ms each (`serverTiming`). */
export interface TilePhases {
  /** Reading the change tokens (PostgreSQL: the counters' statement). */
  tokens: number
  /** Judging the credentials. */
  auth: number
  /** The route's permission check (and routing). */
  check: number
  /** Parsing the request and finding its layers (heads, feature layers: caches). */
  layers: number
  /** The longest engine cut (PostGIS: the `ST_AsMVT` statement, its round trip included); 0 without one. */
  engine: number
  /** The rest to the tile's bytes: the tile cache, cutting in this process, joining the layers. */
  tile: number
}

/**
 * `Server-Timing` of a tile answer: the server's own work from the app's start on the request
 * (authentication, routing, resource and permission checks) to the tile's bytes (`cut` when
 * any layer was cut, `cache` when all came from the tile cache), so clients and the
 * benchmark can tell it from the transport's time. A cut names where its layers came from in
 * `desc`: `index` (the layer's tile index), `rtree`, `indexing` (the R*Tree while the index
 * is being built), `engine` (the layer's engine: PostGIS's `ST_AsMVT`), `generic`; several
 * joined by `+`; then its phases, one metric each (`TilePhases`), which add up to its `dur`.
 */
export function serverTiming(cached: boolean, ms: number, sources: readonly string[] = [], phases?: TilePhases): string {
  const head = `${cached ? 'cache' : 'cut'};dur=${ms.toFixed(2)}${!cached && sources.length ? `;desc=${sources.join('+')}` : ''}`
  if (cached || !phases) return head
  return [head, ...Object.entries(phases).map(([k, v]) => `${k};dur=${v.toFixed(2)}`)].join(', ')
}

async function answer(c: RequestContext<DataOutVariables>, ids: number[], t: TileAddress, opts: TileOptions): Promise<Response> {
  const entered = performance.now()
  const started = c.get('started') ?? entered
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
  const found = performance.now()
  const { bytes, cached, sources, engineMs = 0 } = await renderTile(services, layers, t, { ...opts, layerPrefix: services.names.mvtPrefix },
    c.get('pendingRefresh'))
  const done = performance.now()
  const marks = c.get('marks') ?? { refreshed: started, authenticated: started }
  const timing = serverTiming(cached, done - started, sources, { tokens: marks.refreshed - started, auth: marks.authenticated - marks.refreshed,
    check: entered - marks.authenticated, layers: found - entered, engine: engineMs, tile: done - found - engineMs })
  if (!bytes) return new Response(null, { status: 204, headers: { 'server-timing': timing } })
  return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': MVT_TYPE, 'server-timing': timing } })
}

/** An uncached tile is one statement on PostgreSQL, which reads the change counters too (port.ts `PendingRefresh`). */
const CARRIES = { carriesRefresh: true }

export function mountMvt(routes: Routes<DataOutVariables>): void {
  routes.add('feature_layer.mvt', '/api/component/feature_layer/mvt', 'GET', onQuery('data', 'read'), (c) => {
    const params = new URL(c.req.url).searchParams
    const ids = queryIntList(params, 'resource')
    if (ids === undefined) throw parameterRequired('resource')
    if (!ids.length || lastValue(params, 'resource') === '') throw invalidParameter('resource', 'At least one resource is required.')
    const t = tileAddress(required(params, 'z'), required(params, 'x'), required(params, 'y'))
    return answer(c, ids, t, tileOptions(params))
  }, undefined, CARRIES)

  // Deprecated since 3.0.4 (spec §4.9), kept for old clients: the same tile of one layer.
  routes.add('feature_layer.mvt', '/api/resource/{id}/{z}/{x}/{file}', 'GET', onPath('data', 'read'), (c) => {
    const n = (k: string) => Number(c.req.param(k))
    const t = tileAddress(n('z'), n('x'), parseInt(c.req.param('file') ?? '', 10))
    return answer(c, [n('id')], t, tileOptions(new URL(c.req.url).searchParams))
  }, { file: '[0-9]+\\.mvt' }, CARRIES)
}
