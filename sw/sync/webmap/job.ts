/**
 * @module sync/webmap/job
 * Taking a team's web map offline, as one job: estimate, then bring its layers (linked for
 * sync, as taking a layer offline does), copies of their styles, a local web map whose items
 * point at those copies, and the basemap tiles of the chosen area, all under one new group
 * whose resmeta keeps what was saved (`outpost.offline_map`). A job that fails or is stopped
 * deletes everything it made: nothing half-saved stays. Saved maps are listed, refreshed (a
 * sync round of each layer) and removed (the group, and the tiles' blobs).
 */
import { ApiError, validationError } from '../../core/error.ts'
import type { Principal } from '../../auth/types.ts'
import { progressBoard, requestCancelled, type TrackedProgress } from '../../ingest/progress.ts'
import type { SyncServices } from '../service.ts'
import { remoteClient, type RemoteClient } from '../client.ts'
import type { Credentials } from '../types.ts'
import { fetchTiles, tileSource, type TileReport } from './basemap-tiles.ts'
import type { InnerApi } from './inner.ts'
import { localTree } from './local-map.ts'
import { readRemoteMap, type Missing, type RemoteMap } from './remote-map.ts'
import type { OfflineRequest } from './request.ts'
import { slotPrefix, tileBlobPrefix, tileCount, tileRoute, tilesOf } from './tiles.ts'

/** The resmeta key of a saved map's group. */
export const META_KEY = 'outpost.offline_map'
/** Bytes of a stored feature, for estimates (points with a few fields; lines and polygons are more). */
const BYTES_PER_FEATURE = 200
/** Bytes of a tile when the sample tile cannot be read (a 256 px raster tile of a street map). */
const TYPICAL_TILE_BYTES = 15_000

export interface SavedMap {
  /** `saving` while the job runs (a job cut by a killed host stays so: remove it), then `saved`. */
  state: 'saving' | 'saved'
  name: string
  url: string
  connection: number
  remote_webmap: number
  bbox: [number, number, number, number]
  zooms: [number, number]
  webmap: number | null
  /** `raster`: a raster layer's copy, with its file's bytes (it is a snapshot: refresh does not renew it). */
  layers: { name: string; remote: number; local: number; features: number; raster?: { bytes: number } }[]
  /** `index`: the slot of the basemap's tile blobs (refresh fills the other slot, then moves over). */
  basemaps: { name: string; resource: number; index: number; url: string; tiles: number; bytes: number }[]
  missing: Missing[]
  /** Bytes on the device: the tiles and the rasters' files exactly, the features estimated. */
  size: { tiles: number; features: number; rasters: number; total: number }
  saved: string
  refreshed: string | null
}

export interface JobEnv {
  /** The request's services object (also the owner of the progress board). */
  services: SyncServices
  user: Principal
  inner: InnerApi
}

export async function connectionOf(env: JobEnv, id: number): Promise<{ creds: Credentials; client: RemoteClient }> {
  const { services, user } = env
  const may = await services.data.read((tx) => services.acl.check(tx.acl, user, id, 'connection', 'connect'))
  const creds = may === false ? undefined : await services.classes.remoteConnection(id)
  if (!creds) throw validationError(`Resource id = ${id} is not a remote connection you may use - at \`$.connection\``)
  return { creds, client: remoteClient(creds, services.platform) }
}

/** The size of one sample tile of `map`'s first basemap (the area's first tile at the lowest zoom), or the typical size. */
async function sampleTileBytes(env: JobEnv, client: RemoteClient, map: RemoteMap, req: OfflineRequest): Promise<number> {
  const first = map.basemaps[0]
  if (!first) return TYPICAL_TILE_BYTES
  const [z, x, y] = tilesOf(req.bbox, req.zooms).next().value!
  const bytes = await tileSource(first.url, client, env.services.platform).get(z, x, y, AbortSignal.timeout(15_000)).catch(() => undefined)
  return bytes?.length || TYPICAL_TILE_BYTES
}

/** `POST …/webmap_offline/estimate`: what would come, and about how many bytes. */
export async function estimate(env: JobEnv, req: OfflineRequest) {
  const { creds, client } = await connectionOf(env, req.connection)
  const map = await readRemoteMap(client, creds, req.webmap)
  const tiles = tileCount(req.bbox, req.zooms)
  const tileBytes = await sampleTileBytes(env, client, map, req)
  const layers = [...map.layers].map(([id, l]) => ({ remote: id, name: l.name, features: l.features, ...(l.raster ? { raster: true } : {}) }))
  const features = layers.reduce((n, l) => n + l.features, 0)
  // A raster's file is at most about its samples (8-bit bands; the stored COG is compressed).
  const rasterBytes = [...map.layers.values()].reduce((n, l) => n + (l.raster?.pixels ?? 0), 0)
  const copyable = [...map.styles.values()].filter((s) => COPY[s.cls]).length
  const missing = [...map.missing, ...[...map.styles].filter(([, s]) => !COPY[s.cls])
    .map(([id, s]) => ({ kind: 'style' as const, name: `style ${id}`, reason: `a ${s.cls} cannot be copied here` }))]
  return {
    name: map.name, extent: map.extent, layers, styles: copyable,
    basemaps: map.basemaps.map((b) => ({ name: b.name, tiles })),
    tiles: tiles * map.basemaps.length, tile_bytes: tileBytes, features,
    raster_bytes: rasterBytes,
    bytes: tiles * map.basemaps.length * tileBytes + features * BYTES_PER_FEATURE + rasterBytes,
    missing,
  }
}

/** Style classes copied here, with how to make the copy's member from the remote's. */
const COPY: Record<string, (client: RemoteClient, inner: InnerApi, id: number, member: unknown) => Promise<Record<string, unknown>>> = {
  engine_style: async (_c, _i, _id, member) => ({ engine_style: { xml: (member as { xml: string }).xml } }),
  // The original's name for it, when the team's server answers in its spelling.
  mapserver_style: async (_c, _i, _id, member) => ({ engine_style: { xml: (member as { xml: string }).xml } }),
  // A raster style has no member: the copy draws the copied file as the original draws its own.
  raster_style: async () => ({}),
  qgis_vector_style: async (client, inner, id) => {
    const qml = await client.bytes(`/api/resource/${id}/qml`)
    const upload = await inner.json('PUT', '/api/component/file_upload/', undefined, { raw: qml, type: 'application/xml' })
    return { qgis_vector_style: { file_upload: { id: upload.id } } }
  },
}
const styleClassOf = (cls: string) => (cls === 'mapserver_style' ? 'engine_style' : cls)

const randomToken = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')

/** Runs `work` as a nested request of ours watched under `token`: a stop of the job cancels it. */
async function cancellable<T>(env: JobEnv, signal: AbortSignal, work: (token: string) => Promise<T>): Promise<T> {
  const token = randomToken()
  const cancel = () => { try { progressBoard(env.services).cancel(token) } catch { /* it ended already */ } }
  signal.addEventListener('abort', cancel)
  try {
    return await work(token)
  } finally {
    signal.removeEventListener('abort', cancel)
  }
}

/**
 * `POST …/webmap_offline/`: takes remote web map `req.webmap` offline. Answers the saved map's
 * group id and what was saved. On any failure or a stop, what was made is deleted again.
 */
export async function takeOffline(env: JobEnv, req: OfflineRequest, progress: TrackedProgress): Promise<{ id: number; saved: SavedMap }> {
  const { signal } = progress
  progress.stage('reading')
  const { creds, client } = await connectionOf(env, req.connection)
  const map = await readRemoteMap(client, creds, req.webmap)
  signal.throwIfAborted()
  const saved: SavedMap = { state: 'saving', name: map.name, url: creds.url, connection: req.connection, remote_webmap: req.webmap, bbox: req.bbox,
    zooms: req.zooms, webmap: null, layers: [], basemaps: [], missing: [...map.missing],
    size: { tiles: 0, features: 0, rasters: 0, total: 0 }, saved: env.services.platform.now().toISOString(), refreshed: null }
  const { inner } = env
  const group = (await inner.json('POST', '/api/resource/', { resource: { cls: 'resource_group', parent: { id: req.parent },
    display_name: `${map.name} (offline)` }, resmeta: { items: { [META_KEY]: JSON.stringify(saved) } } })).id as number
  const written: string[] = []
  try {
    // Layers: linked for sync, their features pulled now.
    progress.stage('layers', map.layers.size)
    const localLayer = new Map<number, number>()
    for (const [rid, l] of map.layers) {
      try {
        if (l.raster) {
          const copy = await copyRaster(env, client, signal, group, rid, l.name, l.raster.srs)
          localLayer.set(rid, copy.id)
          saved.layers.push({ name: l.name, remote: rid, local: copy.id, features: 0, raster: { bytes: copy.bytes } })
        } else {
          const id = await cancellable(env, signal, (token) => inner.json('POST', '/api/resource/', {
            resource: { cls: 'vector_layer', parent: { id: group }, display_name: l.name },
            vector_layer: { remote: { connection: { id: req.connection }, resource: { id: rid } } } }, { progress: token }))
          localLayer.set(rid, id.id)
          saved.layers.push({ name: l.name, remote: rid, local: id.id, features: l.features })
        }
      } catch (err) {
        signal.throwIfAborted()
        // A layer this account may not read, of a kind not kept here, or a raster too large for the device, is missing; anything else fails the job.
        const why = missingReason(err, creds)
        if (why === undefined) throw err
        saved.missing.push({ kind: 'layer', name: l.name, reason: why })
      }
      progress.done(saved.layers.length)
    }
    // Styles: copied under the local layers.
    progress.stage('styles', map.styles.size)
    const localStyle = new Map<number, number>()
    for (const item of map.items) {
      const layer = localLayer.get(item.layer)
      const style = map.styles.get(item.style)
      if (layer === undefined || !style || localStyle.has(item.style)) continue
      const copy = COPY[style.cls]
      if (!copy) {
        saved.missing.push({ kind: 'style', name: item.display_name, reason: `its style is a ${style.cls}, which cannot be copied here` })
        continue
      }
      signal.throwIfAborted()
      const member = await copy(client, inner, item.style, style.member)
      const made = await inner.json('POST', '/api/resource/', { resource: { cls: styleClassOf(style.cls), parent: { id: layer },
        display_name: `${item.display_name} ${item.style}` }, ...member })
      localStyle.set(item.style, made.id)
      progress.done(localStyle.size)
    }
    // Basemaps: a local basemap layer each, its tiles served by this server from the blobs.
    const tiles = tileCount(req.bbox, req.zooms)
    progress.stage('tiles', tiles * map.basemaps.length)
    let done = 0
    for (const [index, b] of map.basemaps.entries()) {
      const report = await fetchTiles(tileSource(b.url, client, env.services.platform), env.services.data.blobs, group, index,
        req.bbox, req.zooms, signal, written, () => progress.done(++done))
      if (report.failed) {
        saved.missing.push({ kind: 'tiles', name: b.name, reason: report.given_up ? `its tiles could not be read from ${new URL(b.url, creds.url).origin}; ${report.tiles} of ${tiles} came`
          : `${report.failed} of ${tiles} tiles could not be read` })
      }
      // A basemap none of whose tiles came is only listed as missing.
      if (!report.tiles) continue
      const local = await inner.json('POST', '/api/resource/', { resource: { cls: 'basemap_layer', parent: { id: group }, display_name: b.name },
        basemap_layer: { url: tileRoute(group, index), copyright_text: b.copyright_text,
          z_min: req.zooms[0], z_max: req.zooms[1] } })
      saved.basemaps.push({ name: b.name, resource: local.id, index, url: b.url, tiles: report.tiles, bytes: report.bytes })
    }
    signal.throwIfAborted()
    progress.stage('saving')
    const [w, s, e, n] = req.bbox
    const webmap = await inner.json('POST', '/api/resource/', { resource: { cls: 'webmap', parent: { id: group }, display_name: map.name },
      webmap: { root_item: localTree(map.root, localStyle), initial_extent: [w, s, e, n] },
      basemap_webmap: { basemaps: saved.basemaps.map((b) => {
        const remote = map.basemaps[b.index]!
        return { resource_id: b.resource, display_name: b.name, enabled: remote.enabled, ...(remote.opacity ? { opacity: remote.opacity } : {}) }
      }) } })
    saved.webmap = webmap.id
    saved.size = sizeOf(saved)
    saved.state = 'saved'
    signal.throwIfAborted()
    await inner.json('PUT', `/api/resource/${group}`, { resmeta: { items: { [META_KEY]: JSON.stringify(saved) } } })
    return { id: group, saved }
  } catch (err) {
    // Nothing half-saved: the group goes with everything under it, then the tiles' blobs.
    await inner.json('DELETE', `/api/resource/${group}`).catch((e: unknown) => env.services.platform.log('Undoing a map taken offline failed', e))
    await deleteBlobs(env, written)
    throw signal.aborted ? (signal.reason instanceof ApiError ? signal.reason : requestCancelled()) : err
  }
}

/** Why a layer did not come, when that is a part missing rather than the job failed (`undefined`). */
function missingReason(err: unknown, creds: Credentials): string | undefined {
  if (!(err instanceof ApiError)) return undefined
  if (err.status === 422) return err.opts.message ?? err.title
  // The raster's download: refused, gone, or larger than this device takes (the upload limit).
  if (err.status === 502 && typeof err.opts.data?.limit === 'number') return `its file is larger than this device takes: ${err.opts.message ?? ''}`.trim()
  const remote = Number(err.opts.data?.remote_status)
  if (err.status === 502 && [401, 403, 404].includes(remote)) return `its file could not be read from ${creds.url} (HTTP ${remote})`
  return undefined
}

/**
 * A copy of remote raster layer `rid`: its file (the stored GeoTIFF, read within the upload
 * limit) uploaded here and made a raster layer under `group`, as a person uploading it would.
 */
async function copyRaster(env: JobEnv, client: RemoteClient, signal: AbortSignal, group: number, rid: number, name: string, srs: number) {
  const file = await client.bytes(`/api/resource/${rid}/download`)
  signal.throwIfAborted()
  const upload = await env.inner.json('PUT', '/api/component/file_upload/', undefined, { raw: file, type: 'image/tiff' })
  const made = await cancellable(env, signal, (token) => env.inner.json('POST', '/api/resource/', {
    resource: { cls: 'raster_layer', parent: { id: group }, display_name: name },
    raster_layer: { srs: { id: srs }, source: { id: upload.id } } }, { progress: token }))
  return { id: made.id as number, bytes: file.length }
}

function sizeOf(saved: SavedMap): SavedMap['size'] {
  const tiles = saved.basemaps.reduce((n, b) => n + b.bytes, 0)
  const features = saved.layers.reduce((n, l) => n + l.features, 0) * BYTES_PER_FEATURE
  const rasters = saved.layers.reduce((n, l) => n + (l.raster?.bytes ?? 0), 0)
  return { tiles, features, rasters, total: tiles + features + rasters }
}

async function deleteBlobs(env: JobEnv, ids: Iterable<string>): Promise<void> {
  for (const id of ids) await env.services.data.blobs.deleteBlob(id).catch(() => undefined)
}

/** The saved map of group `id` (`undefined` when the group is none). */
export async function savedMap(env: JobEnv, id: number): Promise<SavedMap | undefined> {
  const doc = await env.inner.json('GET', `/api/resource/${id}`)
  const text = doc?.resmeta?.items?.[META_KEY]
  return typeof text === 'string' ? JSON.parse(text) as SavedMap : undefined
}

/** `GET …/webmap_offline/`: the saved maps this person may read. */
export async function savedMaps(env: JobEnv): Promise<Record<string, unknown>[]> {
  const found = await env.inner.json('GET', `/api/resource/search/?resmeta__has[${META_KEY}]=true&serialization=full`)
  return (found as { resource: { id: number }; resmeta: { items: Record<string, unknown> } }[]).flatMap((r) => {
    const text = r.resmeta?.items?.[META_KEY]
    return typeof text === 'string' ? [{ id: r.resource.id, ...JSON.parse(text) as SavedMap }] : []
  })
}

/** The other blob slot of a basemap's tiles: a refresh fills it while the kept tiles stay in theirs. */
export const otherSlot = (slot: number) => (slot < SLOTS ? slot + SLOTS : slot - SLOTS)
/** Basemap slots 0…SLOTS-1 and their refresh twins SLOTS…2·SLOTS-1 (the tile route's `{i}`). */
export const SLOTS = 1000

export interface TileRefresh { name: string; tiles: number; bytes: number; failed: number; replaced: boolean }

/**
 * `POST /api/resource/{id}/webmap_offline`: refreshes a saved map. Each kept basemap's tiles of
 * the area are fetched again into its other slot (progress and Stop as when it was taken);
 * then a sync round of each linked layer (the server's changes come, ours go); then a basemap
 * whose every tile came moves over to the new tiles and the old go. A basemap with any tile
 * that failed keeps its old tiles whole (a crew half-refreshed out of coverage keeps a whole
 * map). A stop or failure before the rounds drops the new tiles and changes nothing.
 */
export async function refresh(env: JobEnv, id: number, saved: SavedMap, progress: TrackedProgress) {
  // Two refreshes of one map would fill the same slot: the second waits its turn (asked again).
  const running = refreshing.get(env.services) ?? new Set<number>()
  refreshing.set(env.services, running)
  if (running.has(id)) throw refreshRunning(id)
  running.add(id)
  try {
    return await refreshOnce(env, id, saved, progress)
  } finally {
    running.delete(id)
  }
}

/** Saved maps being refreshed, per services object (one per host: the worker, a Node process). */
const refreshing = new WeakMap<object, Set<number>>()

const refreshRunning = (id: number) => new ApiError(409, 'Refresh under way', {
  message: `Saved map ${id} is being refreshed already; try again when that refresh has ended.`,
  exception: 'outpost.webmap_offline.RefreshRunning', data: { resource_id: id } })

async function refreshOnce(env: JobEnv, id: number, saved: SavedMap, progress: TrackedProgress) {
  const { signal } = progress
  const { services } = env
  const { creds, client } = await connectionOf(env, saved.connection)
  const perMap = tileCount(saved.bbox, saved.zooms)
  progress.stage('tiles', perMap * saved.basemaps.length)
  const written: string[] = []
  const fetched: { slot: number; report: TileReport }[] = []
  let done = 0
  try {
    for (const b of saved.basemaps) {
      const slot = otherSlot(b.index)
      // What an earlier refresh cut by a killed host left in that slot goes first.
      await deleteBlobs(env, await services.data.blobs.listBlobs(slotPrefix(id, slot)))
      fetched.push({ slot, report: await fetchTiles(tileSource(b.url, client, services.platform), services.data.blobs, id, slot,
        saved.bbox, saved.zooms, signal, written, () => progress.done(++done)) })
    }
    // The last point a Stop is heeded: after it, the rounds and the move run to their end.
    signal.throwIfAborted()
  } catch (err) {
    await deleteBlobs(env, written)
    throw signal.aborted ? (signal.reason instanceof ApiError ? signal.reason : requestCancelled()) : err
  }
  const linked = saved.layers.filter((l) => !l.raster)
  progress.stage('layers', linked.length)
  const rounds: Record<string, unknown>[] = []
  for (const l of linked) {
    rounds.push({ layer: l.local, ...await env.inner.json('POST', `/api/resource/${l.local}/sync`) })
    progress.done(rounds.length)
  }
  progress.stage('saving')
  const tiles: TileRefresh[] = []
  const basemaps: SavedMap['basemaps'] = []
  const missing = saved.missing.filter((m) => m.kind !== 'tiles' || !saved.basemaps.some((b) => b.name === m.name))
  for (const [k, b] of saved.basemaps.entries()) {
    const { slot, report } = fetched[k]!
    const replaced = report.failed === 0 && report.tiles > 0
    tiles.push({ name: b.name, tiles: report.tiles, bytes: report.bytes, failed: report.failed, replaced })
    if (!replaced) {
      await deleteBlobs(env, await services.data.blobs.listBlobs(slotPrefix(id, slot)))
      missing.push({ kind: 'tiles', name: b.name, reason: `the refresh could not read ${report.failed} of ${perMap} tiles from ${new URL(b.url, creds.url).origin}; the tiles kept before stay` })
      basemaps.push(b)
      continue
    }
    await env.inner.json('PUT', `/api/resource/${b.resource}`, { basemap_layer: { url: tileRoute(id, slot) } })
    await deleteBlobs(env, await services.data.blobs.listBlobs(slotPrefix(id, b.index)))
    basemaps.push({ ...b, index: slot, tiles: report.tiles, bytes: report.bytes })
  }
  const next: SavedMap = { ...saved, basemaps, missing, refreshed: services.platform.now().toISOString() }
  next.size = sizeOf(next)
  await env.inner.json('PUT', `/api/resource/${id}`, { resmeta: { items: { [META_KEY]: JSON.stringify(next) } } })
  return { status: rounds.every((r) => r.status === 'ok') ? 'ok' : rounds.some((r) => r.status === 'error') ? 'error' : 'conflicts', rounds, tiles,
    saved: next }
}

/**
 * `DELETE /api/resource/{id}/webmap_offline`: the group and everything in it, then every tile
 * blob of the map (listed by prefix: a job cut by a killed host left some too). Answers how many.
 */
export async function remove(env: JobEnv, id: number): Promise<{ tiles: number }> {
  await env.inner.json('DELETE', `/api/resource/${id}`)
  const ids = await env.services.data.blobs.listBlobs(tileBlobPrefix(id))
  await deleteBlobs(env, ids)
  return { tiles: ids.length }
}
