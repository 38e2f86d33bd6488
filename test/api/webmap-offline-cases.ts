/**
 * Taking a team's web map offline (sw/sync/webmap): the app's backend (`local`: a Node host, or
 * the service worker in Chromium) and the team's server (`remote`: a Node host). The same cases
 * run Node↔Node (test/api/webmap-offline.test.ts) and Chromium↔Node
 * (test/e2e/webmap-offline-sw.spec.ts, which then also cuts the network and draws the map).
 */
import type { IncomingMessage, Server } from 'node:http'
import type { OutpostApp } from '../../sw/app.ts'
import type { Api, Expect } from './harness.ts'
import { expectError, uniq } from './harness.ts'
import { decodePng, makeLayer, makeStyle, pixel, square } from './render-helpers.ts'
import { TIFFS } from './ingest-files.ts'
import { uploadFile } from './cases/ingest.ts'
import { createUser, rule } from './cases/permissions.ts'

export interface OfflineEnv {
  local: Api
  remote: Api
  /** The team's server as the local backend reaches it. */
  remoteUrl: string
  remotePassword: string
  /** How many tile blobs the local backend keeps whose id starts with `prefix`. */
  tileBlobs(prefix: string): Promise<number>
  /** How many tiles the team's server has drawn for anyone so far (its `GET render/tile` requests; a browser's preflights are not). */
  remoteTiles(): number
  /** Gives the team's raster layer `layer` the file of its raster layer `by` (see `replaceRaster`). */
  replaceRemoteRaster(layer: number, by: number): Promise<void>
}

/**
 * The env's `replaceRemoteRaster` on the team's server `app`: the original takes a new file for
 * a raster layer (`PUT raster_layer.source`), ours refuses it on purpose, so the test writes the
 * other layer's stored file into the layer's record, as that PUT would leave it.
 */
export const replaceRaster = (app: OutpostApp): OfflineEnv['replaceRemoteRaster'] => async (layer, by) => {
  const data = (await app.services()).data
  await data.unitOfWork(async (tx) => tx.resources.setData(layer, JSON.parse((await tx.resources.get(by))!.data)))
}

/** Counts the team's server's tile requests (the env's `remoteTiles`). */
export function countTiles(server: Server): Pick<OfflineEnv, 'remoteTiles'> {
  let drawn = 0
  server.on('request', (req: IncomingMessage) => { if (req.method === 'GET' && req.url?.startsWith('/api/component/render/tile')) drawn++ })
  return { remoteTiles: () => drawn }
}

/**
 * Makes the cases' files before they run: GDAL's first start blocks this process for seconds,
 * and a host's keep-alive socket to the team's server can expire under it (ECONNRESET).
 */
export const offlineFixtures = () => Promise.all([TIFFS.rgb(), TIFFS.rgbOther()])

export interface OfflineCase { name: string; run(env: OfflineEnv, expect: Expect): Promise<void> }

const R = 6378137
/** EPSG:4326 degrees → EPSG:3857 metres. */
export const merc = (lon: number, lat: number) => [R * lon * Math.PI / 180, R * Math.log(Math.tan(Math.PI / 4 + lat * Math.PI / 360))] as const

/** The area taken offline: a small box around 10° E, 50° N. */
export const AREA = [9.95, 49.95, 10.05, 50.05]
export const ZOOMS = [8, 11]
/** The area's tiles at ZOOMS: 1 + 1 + 1 + 4 (at z11 it straddles a column and a row). */
const AREA_TILES = 7

const RED = '<map><layer><class><style><color red="255" green="0" blue="0"/><size>12</size><symbol>circle</symbol></style></class></layer></map>'
const BLUE = '<map><layer><class><style><color red="0" green="0" blue="255"/></style></class></layer></map>'
const GREEN = '<map><layer><class><style><color red="0" green="255" blue="0"/></style></class></layer></map>'

export interface TeamMap { webmap: number; points: number; style: number; basemapLayer: number; /** The style the basemap's tiles are drawn with. */ land: number }

/**
 * On the team's server: a point layer with three red points in the area, a polygon layer
 * filling it in blue served as the basemap's tiles (its render/tile), a dead basemap, and a
 * web map of them.
 */
export async function teamMap(env: OfflineEnv, expect: Expect, opts: { twoLive?: boolean } = {}): Promise<TeamMap> {
  const api = env.remote
  const pts = [[10, 50], [9.98, 49.98], [10.02, 50.02]].map(([lon, lat], i) => ({ geom: `POINT(${merc(lon!, lat!).join(' ')})`, fields: { name: `p${i}` } }))
  const points = await makeLayer(api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }], pts)
  const style = await makeStyle(api, expect, points, RED)
  const [x0, y0] = merc(9, 49)
  const [x1, y1] = merc(11, 51)
  const land = await makeLayer(api, expect, 'POLYGON', [], [{ geom: square(x0, y0, x1, y1), fields: {} }])
  const landStyle = await makeStyle(api, expect, land, BLUE)
  const basemap = async (url: string) => {
    const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'basemap_layer', parent: { id: 0 }, display_name: uniq('Basemap') },
      basemap_layer: { url, copyright_text: 'the team' } } })
    expect(res.status).toBe(201)
    return res.body.id as number
  }
  const basemapLayer = await basemap(`/api/component/render/tile?resource=${landStyle}&z={z}&x={x}&y={y}`)
  const dead = await basemap('http://127.0.0.1:9/{z}/{x}/{y}.png')
  // A second live basemap (the land under a style of its own) for a map whose basemaps come at once.
  const second = opts.twoLive ? [{ resource_id: await basemap(`/api/component/render/tile?resource=${await makeStyle(api, expect, land, BLUE)}&z={z}&x={x}&y={y}`),
    display_name: 'Land 2', enabled: false }] : []
  const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'webmap', parent: { id: 0 }, display_name: uniq('Wells map') },
    webmap: { root_item: { item_type: 'root', children: [{ item_type: 'group', display_name: 'Field', group_expanded: true, children: [
      { item_type: 'layer', display_name: 'Wells', layer_style_id: style, layer_adapter: 'tile', layer_enabled: true, layer_transparency: 10 }] }] } },
    basemap_webmap: { basemaps: [{ resource_id: basemapLayer, display_name: 'Land', enabled: true }, ...second, { resource_id: dead, display_name: 'Gone', enabled: false }] } } })
  expect(res.status).toBe(201)
  return { webmap: res.body.id, points, style, basemapLayer, land: landStyle }
}

export async function connect(env: OfflineEnv, expect: Expect): Promise<number> {
  const res = await env.local.request('POST', '/api/resource/', { body: {
    resource: { cls: 'remote_connection', parent: { id: 0 }, display_name: uniq('team server') },
    remote_connection: { url: env.remoteUrl, username: 'administrator', password: env.remotePassword } } })
  expect(res.status).toBe(201)
  return res.body.id as number
}

const VALIDATION = 'nextgisweb.core.exception.ValidationError'

/** Takes `map` offline through `connection`; the answer's body. */
export async function takeOffline(env: OfflineEnv, expect: Expect, connection: number, map: { webmap: number }, headers?: Record<string, string>,
  area: { bbox: number[]; zooms: number[] } = { bbox: AREA, zooms: ZOOMS }) {
  const res = await env.local.request('POST', '/api/component/outpost/webmap_offline/', { headers,
    body: { connection: { id: connection }, webmap: { id: map.webmap }, ...area } })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body as { id: number; saved: Record<string, any> }
}

/** The local web map's first layer item (`Field` › `Wells`). */
export async function wellsItem(api: Api, webmap: number) {
  return (await api.request('GET', `/api/resource/${webmap}`)).body.webmap.root_item.children[0].children[0]
}

/** How many pixels of a PNG answer are mostly red (the points), blue (the land) or green (the land restyled). */
export function colours(res: { bodyBase64?: string; status: number; headers: Record<string, string> }) {
  const img = decodePng(res as never)
  let red = 0
  let blue = 0
  let green = 0
  for (let y = 0; y < img.height; y++) for (let x = 0; x < img.width; x++) {
    const [r, g, b, a] = pixel(img, x, y)
    if (a > 128 && r > 200 && g < 60 && b < 60) red++
    if (a > 128 && b > 200 && r < 60 && g < 60) blue++
    if (a > 128 && g > 200 && r < 60 && b < 60) green++
  }
  return { red, blue, green }
}

/** An area of 85 tiles at zooms 8-12: long enough to be stopped, or its host killed, while its tiles come. */
export const BIG = { bbox: [9.8, 49.8, 10.2, 50.2], zooms: [8, 12] }
export const BIG_TILES = 85

/** A progress token of the ingest's form. */
export const progressToken = (what: string) => uniq(what).replace(/[^A-Za-z0-9]/g, '_').padEnd(20, '_')

/** Waits until the job reported under `token` is fetching tiles and has a few. */
export async function reachTiles(env: OfflineEnv, expect: Expect, token: string): Promise<void> {
  let stage = ''
  for (let i = 0; i < 600 && stage !== 'tiles'; i++) {
    const p = await env.local.request('GET', `/api/component/outpost/progress/${token}`)
    stage = p.status === 200 && p.body.done > 2 ? p.body.stage : ''
  }
  expect(stage).toBe('tiles')
}

/**
 * Saved map `id` of `map` (teamMap with twoLive, area BIG), cut while its tiles came: listed
 * incomplete with its layer, refresh refused; resumed, it asks the team's server only for the
 * tiles not stored (none twice), its progress never below them; then whole; remove frees all.
 */
export async function resumeChecked(env: OfflineEnv, expect: Expect, id: number, map: TeamMap): Promise<void> {
  const listed = ((await env.local.request('GET', '/api/component/outpost/webmap_offline/')).body as Record<string, any>[]).find((m) => m.id === id)
  expect(listed).toMatchObject({ state: 'incomplete', stopped: expect.any(String), webmap: null, layers: [{ remote: map.points, features: 3 }] })
  const layer = listed!.layers[0].local as number
  expect((await env.local.request('GET', `/api/resource/${layer}/feature_count`)).body.total_count).toBe(3)
  expectError(expect, await env.local.request('POST', `/api/resource/${id}/webmap_offline`), 409, 'outpost.webmap_offline.Incomplete')
  const kept = await env.tileBlobs(`webmap-offline-${id}-0-`) + await env.tileBlobs(`webmap-offline-${id}-1-`)
  expect(kept).toBeGreaterThan(0)
  expect(kept).toBeLessThan(2 * BIG_TILES)
  const drawnBefore = env.remoteTiles()
  const token = progressToken('resume')
  const job = env.local.request('POST', `/api/resource/${id}/webmap_offline/resume`, { headers: { 'x-outpost-progress': token } })
  const seen: number[] = []
  let answer: Awaited<typeof job> | undefined
  void job.then((r) => { answer = r })
  while (!answer) {
    const p = await env.local.request('GET', `/api/component/outpost/progress/${token}`)
    if (p.status === 200 && p.body.state === 'running' && p.body.stage === 'tiles') seen.push(p.body.done)
  }
  expect(answer.status, JSON.stringify(answer.body)).toBe(200)
  // Only the tiles not stored came (the dead basemap's are not the team's server's), and the count started at those stored.
  expect(env.remoteTiles() - drawnBefore).toBe(2 * BIG_TILES - kept)
  expect(seen.every((n) => n >= kept), `progress ${seen.join(',')} from ${kept} kept`).toBe(true)
  const saved = answer.body.saved
  expect(saved).toMatchObject({ state: 'saved', layers: [{ local: layer }],
    basemaps: [{ name: 'Land', tiles: BIG_TILES }, { name: 'Land 2', tiles: BIG_TILES }] })
  expect(saved.stopped).toBeUndefined()
  expect(saved.missing).toEqual([{ kind: 'tiles', name: 'Gone', reason: expect.stringMatching(/could not be read/) }])
  expect(saved.size.tiles).toBe(saved.basemaps[0].bytes + saved.basemaps[1].bytes)
  expect(await env.tileBlobs(`webmap-offline-${id}-`)).toBe(2 * BIG_TILES)
  expect(colours(await env.local.request('GET', `/api/resource/${id}/webmap_offline/tile/1/12/2160/1388`)).blue).toBeGreaterThan(30_000)
  const item = await wellsItem(env.local, saved.webmap)
  expect(item).toMatchObject({ display_name: 'Wells', style_parent_id: layer })
  expect((await env.local.request('GET', `/api/resource/${saved.webmap}`)).body.basemap_webmap.basemaps).toHaveLength(2)
  expectError(expect, await env.local.request('POST', `/api/resource/${id}/webmap_offline/resume`), 409, 'outpost.webmap_offline.NotIncomplete')
  expect((await env.local.request('DELETE', `/api/resource/${id}/webmap_offline`)).body).toEqual({ freed: { tiles: 2 * BIG_TILES } })
  expect((await env.local.request('GET', `/api/resource/${layer}`)).status).toBe(404)
}

/** On the team's server: a raster layer (`tif`, TIFFS.rgb by default) with its raster style, in a web map of its own; `rules` on the layer and map, `styleRules` on the style. */
export async function rasterMap(env: OfflineEnv, expect: Expect, rules: unknown[] = [], styleRules: unknown[] = [], tif = TIFFS.rgb) {
  const api = env.remote
  const layer = await remoteRaster(env, expect, await tif(), rules)
  const style = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'raster_style', parent: { id: layer.body.id }, display_name: 'Ortho style',
    permissions: styleRules } } })
  expect(style.status).toBe(201)
  const wm = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'webmap', parent: { id: 0 }, display_name: uniq('Ortho map'), permissions: rules },
    webmap: { root_item: { item_type: 'root', children: [{ item_type: 'layer', display_name: 'Ortho', layer_style_id: style.body.id, layer_adapter: 'image', layer_enabled: true }] } } } })
  expect(wm.status).toBe(201)
  return { layer, wm, style: style.body.id as number }
}

/** On the team's server: a raster layer of GeoTIFF `tif`, with `rules`. */
export async function remoteRaster(env: OfflineEnv, expect: Expect, tif: Uint8Array, rules: unknown[] = []) {
  const source = await uploadFile(env.remote, expect, 'ortho.tif', tif)
  const layer = await env.remote.request('POST', '/api/resource/', { body: { resource: { cls: 'raster_layer', parent: { id: 0 }, display_name: uniq('Ortho'),
    permissions: rules }, raster_layer: { srs: { id: 3857 }, source } } })
  expect(layer.status).toBe(201)
  return layer
}

/** Takes `rasterMap`'s map offline through `connection` (a small area, one zoom): the answer's body. */
export const takeRasterMap = (env: OfflineEnv, expect: Expect, connection: number, webmap: number) =>
  takeOffline(env, expect, connection, { webmap }, undefined, { bbox: [30.4, 60.4, 30.6, 60.6], zooms: [8, 8] })

export const offlineCases: OfflineCase[] = [
  {
    name: 'saved-map metadata that is not ours (not JSON, another shape) reads as no saved map: not listed, 404',
    async run(env, expect) {
      const items = ['not json', '{"state":"saved"}', JSON.stringify({ state: 'saved', name: 'x', url: 'http://x', connection: 1, remote_webmap: 2, webmap: null,
        bbox: [0, 0, 1, 1], zooms: [1, 2], layers: [7], basemaps: [], missing: [] })]
      const ids: number[] = []
      for (const text of items) {
        const res = await env.local.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: uniq('Not a map') },
          resmeta: { items: { 'outpost.offline_map': text } } } })
        expect(res.status).toBe(201)
        ids.push(res.body.id)
      }
      const listed = await env.local.request('GET', '/api/component/outpost/webmap_offline/')
      expect(listed.status).toBe(200)
      expect((listed.body as { id: number }[]).filter((m) => ids.includes(m.id))).toEqual([])
      for (const id of ids) expectError(expect, await env.local.request('GET', `/api/resource/${id}/webmap_offline`), 404, 'outpost.webmap_offline.NotSaved')
    },
  },
  {
    name: 'estimate: the map\'s layers with their feature counts, the area\'s tiles and bytes; bad areas and unknown maps are refused',
    async run(env, expect) {
      const map = await teamMap(env, expect)
      const connection = await connect(env, expect)
      const url = '/api/component/outpost/webmap_offline/estimate'
      const body = { connection: { id: connection }, webmap: { id: map.webmap }, bbox: AREA, zooms: ZOOMS }
      const res = await env.local.request('POST', url, { body })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toMatchObject({ layers: [{ remote: map.points, features: 3 }], styles: 1, features: 3,
        basemaps: [{ name: 'Land', tiles: AREA_TILES }, { name: 'Gone', tiles: AREA_TILES }], tiles: 2 * AREA_TILES, missing: [] })
      // The sample tile was read: a PNG of the land, not the typical size.
      expect(res.body.tile_bytes).toBeGreaterThan(100)
      expect(res.body.tile_bytes).not.toBe(15_000)
      expect(res.body.bytes).toBe(2 * AREA_TILES * res.body.tile_bytes + 3 * 200)
      for (const bad of [{ ...body, bbox: [10, 50, 9, 51] }, { ...body, bbox: [0, 0, 1] }, { ...body, zooms: [5, 3] }, { ...body, zooms: [0, 21] },
        { ...body, bbox: [-180, -85, 180, 85], zooms: [0, 12] }, { ...body, extra: 1 }]) {
        expectError(expect, await env.local.request('POST', url, { body: bad }), 422, VALIDATION)
      }
      const tooMany = await env.local.request('POST', url, { body: { ...body, bbox: [-180, -85, 180, 85], zooms: [0, 12] } })
      expect(tooMany.body.message).toMatch(/choose a smaller area or fewer zoom levels/)
      const notMap = await env.local.request('POST', url, { body: { ...body, webmap: { id: map.points } } })
      expectError(expect, notMap, 422, VALIDATION)
      expect(notMap.body.message).toMatch(/is not a web map/)
      const noConnection = await env.local.request('POST', url, { body: { ...body, connection: { id: 0 } } })
      expectError(expect, noConnection, 422, VALIDATION)
      expect(noConnection.body.message).toMatch(/is not a remote connection/)
      expectError(expect, await env.local.request('POST', url, { auth: 'guest', body }), 403, 'nextgisweb.core.exception.ForbiddenError')
    },
  },
  {
    name: 'take offline: the layer linked with its features, its style copied, a local web map of them, the basemap\'s tiles kept; listed, refreshed, removed',
    async run(env, expect) {
      const map = await teamMap(env, expect)
      const connection = await connect(env, expect)
      const { id, saved } = await takeOffline(env, expect, connection, map)
      expect(saved).toMatchObject({ state: 'saved', connection, remote_webmap: map.webmap, bbox: AREA, zooms: ZOOMS,
        layers: [{ remote: map.points, features: 3 }], basemaps: [{ name: 'Land', index: 0, tiles: AREA_TILES }] })
      // The dead basemap is not a failure: it is said to be missing, and why.
      expect(saved.missing).toEqual([{ kind: 'tiles', name: 'Gone', reason: expect.stringMatching(/could not be read/) }])
      expect(saved.size.tiles).toBe(saved.basemaps[0].bytes)
      expect(saved.size.total).toBe(saved.size.tiles + 3 * 200)
      // The layer is linked for sync and holds the features.
      const layer = saved.layers[0].local as number
      expect((await env.local.request('GET', `/api/resource/${layer}/sync`)).body.remote.resource.id).toBe(map.points)
      expect((await env.local.request('GET', `/api/resource/${layer}/feature_count`)).body.total_count).toBe(3)
      // The local web map's item points at the local copy of the style, with the item's settings.
      const item = await wellsItem(env.local, saved.webmap)
      expect(item).toMatchObject({ display_name: 'Wells', layer_adapter: 'tile', layer_enabled: true, layer_transparency: 10, style_parent_id: layer })
      const wm = (await env.local.request('GET', `/api/resource/${saved.webmap}`)).body
      expect(wm.resource.parent.id).toBe(id)
      expect(wm.webmap.initial_extent).toEqual(AREA)
      expect(wm.basemap_webmap.basemaps).toEqual([{ resource_id: saved.basemaps[0].resource, display_name: 'Land', enabled: true, opacity: null }])
      // The copied style draws the points red here.
      const t = await env.local.request('GET', `/api/component/render/tile?resource=${item.layer_style_id}&z=8&x=135&y=86`)
      expect(t.status).toBe(200)
      expect(colours(t).red).toBeGreaterThan(20)
      // The basemap's tile comes from here, the same bytes as the team's server's.
      const url = (await env.local.request('GET', `/api/resource/${saved.basemaps[0].resource}`)).body.basemap_layer.url as string
      expect(url).toBe(`/api/resource/${id}/webmap_offline/tile/0/{z}/{x}/{y}`)
      const mine = await env.local.request('GET', url.replace('{z}', '8').replace('{x}', '135').replace('{y}', '86'))
      expect(mine.status).toBe(200)
      expect(mine.headers['content-type']).toBe('image/png')
      expect(colours(mine).blue).toBeGreaterThan(30_000)
      const theirs = await env.remote.request('GET', `/api/resource/${map.basemapLayer}`)
      const remoteTile = await env.remote.request('GET', (theirs.body.basemap_layer.url as string).replace('{z}', '8').replace('{x}', '135').replace('{y}', '86'))
      expect(mine.bodyBase64).toBe(remoteTile.bodyBase64)
      // Outside the area nothing is kept.
      expect((await env.local.request('GET', url.replace('{z}', '8').replace('{x}', '0').replace('{y}', '0'))).status).toBe(204)
      expect(await env.tileBlobs(`webmap-offline-${id}-`)).toBe(AREA_TILES)
      // Listed with its size.
      const list = (await env.local.request('GET', '/api/component/outpost/webmap_offline/')).body as { id: number; size: { total: number } }[]
      expect(list.find((m) => m.id === id)?.size.total).toBe(saved.size.total)
      expect((await env.local.request('GET', `/api/resource/${id}/webmap_offline`)).body).toMatchObject({ id, state: 'saved', refreshed: null })
      // Refresh brings a change made on the team's server.
      const [first] = (await env.remote.request('GET', `/api/resource/${map.points}/feature/`)).body
      expect((await env.remote.request('PUT', `/api/resource/${map.points}/feature/${first.id}`, { body: { fields: { name: 'renamed there' } } })).status).toBe(200)
      // ... and the basemap's tiles again: the land is drawn green there now, and the kept tiles are replaced.
      expect((await env.remote.request('PUT', `/api/resource/${map.land}`, { body: { engine_style: { xml: GREEN } } })).status).toBe(200)
      const refreshed = await env.local.request('POST', `/api/resource/${id}/webmap_offline`)
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
      expect(refreshed.body).toMatchObject({ status: 'ok', rounds: [{ layer, status: 'ok', pulled: { updated: 1 } }],
        tiles: [{ name: 'Land', tiles: AREA_TILES, failed: 0, replaced: true }] })
      const moved = (await env.local.request('GET', `/api/resource/${saved.basemaps[0].resource}`)).body.basemap_layer.url as string
      expect(moved).toBe(`/api/resource/${id}/webmap_offline/tile/1000/{z}/{x}/{y}`)
      const green = colours(await env.local.request('GET', moved.replace('{z}', '8').replace('{x}', '135').replace('{y}', '86')))
      expect(green.green).toBeGreaterThan(30_000)
      expect(green.blue).toBe(0)
      // The old tiles are gone, the size follows the new ones.
      expect((await env.local.request('GET', url.replace('{z}', '8').replace('{x}', '135').replace('{y}', '86'))).status).toBe(204)
      expect(await env.tileBlobs(`webmap-offline-${id}-`)).toBe(AREA_TILES)
      expect(refreshed.body.saved.size.tiles).toBe(refreshed.body.tiles[0].bytes)
      const names = ((await env.local.request('GET', `/api/resource/${layer}/feature/`)).body as { fields: { name: string } }[]).map((f) => f.fields.name)
      expect(names).toContain('renamed there')
      expect((await env.local.request('GET', `/api/resource/${id}/webmap_offline`)).body.refreshed).toEqual(expect.any(String))
      // A guest may not see it; a resource that is not a saved map is a 404.
      expect((await env.local.request('GET', `/api/resource/${id}/webmap_offline`, { auth: 'guest' })).status).toBeGreaterThanOrEqual(401)
      expectError(expect, await env.local.request('GET', `/api/resource/${layer}/webmap_offline`), 404, 'outpost.webmap_offline.NotSaved')
      // The same map again into the same group: it is offline already, named; nothing more is made.
      const again = await env.local.request('POST', '/api/component/outpost/webmap_offline/', {
        body: { connection: { id: connection }, webmap: { id: map.webmap }, bbox: AREA, zooms: ZOOMS } })
      expectError(expect, again, 409, 'outpost.webmap_offline.AlreadySaved')
      expect(again.body.message).toBe(`"${saved.name}" is offline already as saved map ${id}: open it, or refresh it for the team's changes.`)
      expect(again.body.data).toEqual({ resource_id: id, state: 'saved' })
      expect(await env.tileBlobs('webmap-offline-')).toBe(AREA_TILES)
      // Remove frees the tiles and takes the layers, styles and web map with the group.
      const removed = await env.local.request('DELETE', `/api/resource/${id}/webmap_offline`)
      expect(removed.body).toEqual({ freed: { tiles: AREA_TILES } })
      expect(await env.tileBlobs(`webmap-offline-${id}-`)).toBe(0)
      for (const gone of [id, layer, saved.webmap, saved.basemaps[0].resource]) {
        expect((await env.local.request('GET', `/api/resource/${gone}`)).status).toBe(404)
      }
      expect(((await env.local.request('GET', '/api/component/outpost/webmap_offline/')).body as { id: number }[]).some((m) => m.id === id)).toBe(false)
    },
  },
  {
    name: 'stop: a stopped job keeps what came as an incomplete map; resume fetches only the tiles not stored, its count going on from them, two basemaps whole',
    async run(env, expect) {
      const map = await teamMap(env, expect, { twoLive: true })
      const connection = await connect(env, expect)
      const token = progressToken('stop')
      const job = env.local.request('POST', '/api/component/outpost/webmap_offline/', { headers: { 'x-outpost-progress': token },
        body: { connection: { id: connection }, webmap: { id: map.webmap }, ...BIG } })
      await reachTiles(env, expect, token)
      expect((await env.local.request('DELETE', `/api/component/outpost/progress/${token}`)).status).toBe(202)
      const res = await job
      expectError(expect, res, 409, 'nextgisweb.core.exception.OperationalError')
      expect(res.body.message).toMatch(/resume it, or remove it/)
      const id = res.body.data.resource_id as number
      // The same take sent again (as Chromium resends one whose worker it stopped) names the incomplete map to resume; nothing more is made.
      const again = await env.local.request('POST', '/api/component/outpost/webmap_offline/', {
        body: { connection: { id: connection }, webmap: { id: map.webmap }, ...BIG } })
      expectError(expect, again, 409, 'outpost.webmap_offline.AlreadyTaking')
      expect(again.body.message).toMatch(new RegExp(`^".+" was taken offline in part as saved map ${id}, listed as incomplete: resume it to bring the rest\\.$`))
      expect(again.body.data).toEqual({ resource_id: id, state: 'incomplete' })
      const listed = (await env.local.request('GET', '/api/component/outpost/webmap_offline/')).body as { remote_webmap: number }[]
      expect(listed.filter((m) => m.remote_webmap === map.webmap)).toHaveLength(1)
      await resumeChecked(env, expect, id, map)
    },
  },
  {
    name: 'refresh: one stopped while it fetches tiles answers 409 and keeps the kept tiles; a basemap whose tiles fail keeps its old ones whole',
    async run(env, expect) {
      const map = await teamMap(env, expect)
      const connection = await connect(env, expect)
      // About 300 tiles, as the take's stop case: long enough to stop the refresh while they come.
      const { id, saved } = await takeOffline(env, expect, connection, map, undefined, { bbox: [9.8, 49.8, 10.2, 50.2], zooms: [8, 13] })
      const kept = saved.basemaps[0].tiles as number
      const tileUrl = `/api/resource/${id}/webmap_offline/tile/0/8/135/86`
      const before = (await env.local.request('GET', tileUrl)).bodyBase64
      const token = uniq('refr').replace(/[^A-Za-z0-9]/g, '_').padEnd(20, '_')
      const job = env.local.request('POST', `/api/resource/${id}/webmap_offline`, { headers: { 'x-outpost-progress': token } })
      let stage = ''
      for (let i = 0; i < 600 && stage !== 'tiles'; i++) {
        const p = await env.local.request('GET', `/api/component/outpost/progress/${token}`)
        stage = p.status === 200 && p.body.done > 2 ? p.body.stage : ''
      }
      expect(stage).toBe('tiles')
      // A second refresh of the same map meanwhile is refused (both would fill the same slot), and so is its remove.
      expectError(expect, await env.local.request('POST', `/api/resource/${id}/webmap_offline`), 409, 'outpost.webmap_offline.JobRunning')
      expectError(expect, await env.local.request('DELETE', `/api/resource/${id}/webmap_offline`), 409, 'outpost.webmap_offline.JobRunning')
      expect((await env.local.request('DELETE', `/api/component/outpost/progress/${token}`)).status).toBe(202)
      expectError(expect, await job, 409, 'nextgisweb.core.exception.OperationalError')
      // Nothing changed: the same tiles, only them, the saved map as it was.
      expect(await env.tileBlobs(`webmap-offline-${id}-`)).toBe(kept)
      expect((await env.local.request('GET', tileUrl)).bodyBase64).toBe(before)
      expect((await env.local.request('GET', `/api/resource/${id}/webmap_offline`)).body).toMatchObject({ refreshed: null, basemaps: [{ index: 0, tiles: kept }] })
      // The basemap's tiles cannot be read any more (its style is gone there): the refresh keeps the old tiles and says so.
      expect((await env.remote.request('DELETE', `/api/resource/${map.land}`)).status).toBe(200)
      const failed = await env.local.request('POST', `/api/resource/${id}/webmap_offline`)
      expect(failed.status, JSON.stringify(failed.body)).toBe(200)
      expect(failed.body.tiles).toEqual([{ name: 'Land', tiles: 0, bytes: 0, failed: expect.any(Number), replaced: false }])
      expect(failed.body.saved.missing).toContainEqual({ kind: 'tiles', name: 'Land', reason: expect.stringMatching(/the tiles kept before stay/) })
      expect(failed.body.saved.basemaps).toMatchObject([{ index: 0, tiles: kept }])
      expect(await env.tileBlobs(`webmap-offline-${id}-`)).toBe(kept)
      expect((await env.local.request('GET', tileUrl)).bodyBase64).toBe(before)
      expect((await env.local.request('DELETE', `/api/resource/${id}/webmap_offline`)).body).toEqual({ freed: { tiles: kept } })
    },
  },
  {
    name: 'a raster layer of the map comes as a copy of its file with its style, draws its pixels here; refresh renews it, or keeps it when the file is refused',
    async run(env, expect) {
      const api = env.remote
      // The connection's account may read the layer's data now; the refresh below finds it may not any more.
      const u = await createUser(api, expect)
      const { layer, wm, style } = await rasterMap(env, expect, [rule(u.id, 'resource', 'read'), rule(u.id, 'data', 'read')], [rule(u.id, 'data', 'read')])
      const made = await env.local.request('POST', '/api/resource/', { body: {
        resource: { cls: 'remote_connection', parent: { id: 0 }, display_name: uniq('team server as reader') },
        remote_connection: { url: env.remoteUrl, username: u.keyname, password: `pw-${u.keyname}` } } })
      expect(made.status).toBe(201)
      const connection = made.body.id as number
      // TIFFS.rgb: 30-31° E, 60-61° N, a square of (200, 100, 50) in its middle.
      const area = { bbox: [30.4, 60.4, 30.6, 60.6], zooms: [8, 8] }
      const est = await env.local.request('POST', '/api/component/outpost/webmap_offline/estimate', {
        body: { connection: { id: connection }, webmap: { id: wm.body.id }, ...area } })
      expect(est.status, JSON.stringify(est.body)).toBe(200)
      expect(est.body).toMatchObject({ layers: [{ remote: layer.body.id, features: 0, raster: true }], styles: 1, missing: [] })
      expect(est.body.raster_bytes).toBeGreaterThan(0)
      const { id, saved } = await takeRasterMap(env, expect, connection, wm.body.id)
      const fileBytes = async () => Buffer.from((await api.request('GET', `/api/resource/${layer.body.id}/download`)).bodyBase64 ?? '', 'base64').length
      const bytes = await fileBytes()
      expect(saved).toMatchObject({ missing: [], layers: [{ remote: layer.body.id, raster: { bytes } }] })
      expect(saved.size).toMatchObject({ rasters: bytes, total: bytes })
      const local = (await env.local.request('GET', `/api/resource/${saved.layers[0].local}`)).body
      expect(local.resource).toMatchObject({ cls: 'raster_layer', parent: { id } })
      const theirs = (await api.request('GET', `/api/resource/${layer.body.id}`)).body.raster_layer
      expect(local.raster_layer).toMatchObject({ xsize: theirs.xsize, ysize: theirs.ysize, band_count: theirs.band_count })
      const itemOf = async () => (await env.local.request('GET', `/api/resource/${saved.webmap}`)).body.webmap.root_item.children[0]
      const item = await itemOf()
      expect(item).toMatchObject({ display_name: 'Ortho', layer_adapter: 'image', style_parent_id: saved.layers[0].local })
      // The copy draws the square's colour where the original does (render-raster.ts: tile 8/149/73, pixel 176, 159).
      const drawn = async (style: number) => {
        const t = await env.local.request('GET', `/api/component/render/tile?resource=${style}&z=8&x=149&y=73`)
        expect(t.status).toBe(200)
        return pixel(decodePng(t as never), 176, 159)
      }
      expect(await drawn(item.layer_style_id)).toEqual([200, 100, 50, 255])
      // The team's raster changes to another of other pixels: refresh renews the copy, and the map draws the new one.
      const other = await remoteRaster(env, expect, await TIFFS.rgbOther())
      await env.replaceRemoteRaster(layer.body.id, other.body.id)
      const newBytes = await fileBytes()
      const refreshed = await env.local.request('POST', `/api/resource/${id}/webmap_offline`)
      expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200)
      const name = saved.layers[0].name as string
      expect(refreshed.body, JSON.stringify(refreshed.body.rasters)).toMatchObject({ status: 'ok', rounds: [], tiles: [], rasters: [{ name, renewed: true, bytes: newBytes }] })
      const now = refreshed.body.saved
      const renewed = now.layers[0].local as number
      expect(renewed).not.toBe(saved.layers[0].local)
      expect(now).toMatchObject({ missing: [], layers: [{ name, remote: layer.body.id, raster: { bytes: newBytes } }], size: { rasters: newBytes, total: newBytes } })
      // The local web map opens, its item on the new copy's style; the old copy is gone, the new one has its name.
      const after = await itemOf()
      expect(after).toMatchObject({ display_name: 'Ortho', layer_adapter: 'image', style_parent_id: renewed, layer_style_id: now.styles[String(style)] })
      expect(await drawn(after.layer_style_id)).toEqual([40, 160, 90, 255])
      expect((await env.local.request('GET', `/api/resource/${saved.layers[0].local}`)).status).toBe(404)
      expect((await env.local.request('GET', `/api/resource/${renewed}`)).body.resource.display_name).toBe(name)
      // A new copy a refresh cut by a killed host left unrecorded (the app closed mid-refresh) goes with the next refresh.
      const leftover = await env.local.request('POST', '/api/resource/', { body: { resource: { cls: 'raster_layer', parent: { id }, display_name: `${name} (renewed 0a1b2c)` },
        raster_layer: { srs: { id: 3857 }, source: await uploadFile(env.local, expect, 'left.tif', await TIFFS.rgbOther()) } } })
      expect(leftover.status).toBe(201)
      // The team's server refuses the file now (the account may read the layer, not its data): the copy kept stays and draws, the reason is said.
      expect((await api.request('PUT', `/api/resource/${layer.body.id}`, { body: { resource: { permissions: [rule(u.id, 'resource', 'read')] } } })).status).toBe(200)
      const refused = await env.local.request('POST', `/api/resource/${id}/webmap_offline`)
      expect(refused.status, JSON.stringify(refused.body)).toBe(200)
      const why = `its file could not be read from ${env.remoteUrl} (HTTP 403)`
      expect(refused.body.rasters).toEqual([{ name, renewed: false, bytes: 0, reason: why }])
      expect(refused.body.saved).toMatchObject({ layers: [{ local: renewed, raster: { bytes: newBytes } }], styles: now.styles,
        missing: [{ kind: 'layer', name, reason: `the refresh could not renew its copy: ${why}; the copy kept before stays` }] })
      expect(await itemOf()).toMatchObject({ style_parent_id: renewed, layer_style_id: after.layer_style_id })
      expect(await drawn(after.layer_style_id)).toEqual([40, 160, 90, 255])
      // Nothing made for the refused renewal is left, nor the leftover: the group holds the copy and the web map.
      expect((await env.local.request('GET', `/api/resource/?parent=${id}`)).body.map((r: { resource: { id: number } }) => r.resource.id).sort())
        .toEqual([renewed, saved.webmap].sort())
      expect((await env.local.request('DELETE', `/api/resource/${id}/webmap_offline`)).status).toBe(200)
      expect((await env.local.request('GET', `/api/resource/${renewed}`)).status).toBe(404)
    },
  },
  {
    name: 'a raster layer whose file the team\'s server refuses (the account may read it, not its data) is listed as missing with the reason; the rest is saved',
    async run(env, expect) {
      const u = await createUser(env.remote, expect)
      // The item shows to whoever may read its style's data (the original's display config); the file needs the layer's.
      const { layer, wm } = await rasterMap(env, expect, [rule(u.id, 'resource', 'read')], [rule(u.id, 'data', 'read')])
      const res = await env.local.request('POST', '/api/resource/', { body: {
        resource: { cls: 'remote_connection', parent: { id: 0 }, display_name: uniq('team server as reader') },
        remote_connection: { url: env.remoteUrl, username: u.keyname, password: `pw-${u.keyname}` } } })
      expect(res.status).toBe(201)
      const { id, saved } = await takeRasterMap(env, expect, res.body.id, wm.body.id)
      expect(saved).toMatchObject({ state: 'saved', layers: [], size: { rasters: 0 } })
      const name = (await env.remote.request('GET', `/api/resource/${layer.body.id}`)).body.resource.display_name
      expect(saved.missing).toEqual([{ kind: 'layer', name,
        reason: `its file could not be read from ${env.remoteUrl} (HTTP 403)` }])
      // The local web map is there, without the layer that did not come; nothing of the raster was kept.
      expect((await env.local.request('GET', `/api/resource/${saved.webmap}`)).body.webmap.root_item.children).toEqual([])
      expect((await env.local.request('GET', `/api/resource/?parent=${id}`)).body.map((r: { resource: { cls: string } }) => r.resource.cls)).toEqual(['webmap'])
      expect((await env.local.request('DELETE', `/api/resource/${id}/webmap_offline`)).status).toBe(200)
    },
  },
]
