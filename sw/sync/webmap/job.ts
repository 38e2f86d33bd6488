/**
 * @module sync/webmap/job
 * Taking a team's web map offline, as one job: estimate, then bring its layers (linked for
 * sync, as taking a layer offline does), copies of their styles, a local web map whose items
 * point at those copies, and the basemap tiles of the chosen area, all under one new group
 * whose resmeta keeps what was saved (`outpost.offline_map`). A job that fails, is stopped or
 * whose host is killed keeps what came, the map marked incomplete, and is resumed from there.
 * Saved maps are listed, resumed, refreshed (their tiles and rasters again and a sync round of
 * each layer) and removed (the group, and the tiles' blobs).
 */
import { ApiError, validationError } from '../../core/error.ts'
import { EXTERNAL_SERVICE_ERROR } from '../../core/outbound.ts'
import type { Principal } from '../../auth/types.ts'
import { progressBoard, requestCancelled, type TrackedProgress } from '../../ingest/progress.ts'
import type { SyncServices } from '../service.ts'
import { remoteClient, type RemoteClient } from '../client.ts'
import type { Credentials } from '../types.ts'
import { fetchTiles, tileSource, type BasemapFetch } from './basemap-tiles.ts'
import type { InnerApi } from './inner.ts'
import { localTree } from './local-map.ts'
import { layerItems, readRemoteMap, type Missing, type RemoteMap } from './remote-map.ts'
import type { OfflineRequest } from './request.ts'
import { slotPrefix, tileBlobPrefix, tileCount, tileRoute, tilesOf } from './tiles.ts'

/** The resmeta key of a saved map's group. */
export const META_KEY = 'outpost.offline_map'
/** Bytes of a stored feature, for estimates (points with a few fields; lines and polygons are more). */
const BYTES_PER_FEATURE = 200
/** Bytes of a tile when the sample tile cannot be read (a 256 px raster tile of a street map). */
const TYPICAL_TILE_BYTES = 15_000

export interface SavedMap {
  /**
   * `saving` while the job runs, then `saved`; `incomplete` when it was stopped or failed (what
   * came is kept: resume it). A job cut by a killed host stays `saving`, listed as `incomplete`.
   */
  state: 'saving' | 'saved' | 'incomplete'
  /** Why an incomplete map did not finish. */
  stopped?: string
  name: string
  url: string
  connection: number
  remote_webmap: number
  bbox: [number, number, number, number]
  zooms: [number, number]
  webmap: number | null
  /** `raster`: a raster layer's copy, with its file's bytes (refresh makes a new copy and moves over to it). */
  layers: { name: string; remote: number; local: number; features: number; raster?: { bytes: number } }[]
  /** Remote style id → its local copy (what a resumed job does not copy again). */
  styles?: Record<string, number>
  /**
   * `index`: the slot of the basemap's tile blobs (refresh fills the other slot, then moves
   * over); `resource`: its local basemap layer, `null` in an incomplete map (made at the end).
   */
  basemaps: { name: string; resource: number | null; index: number; url: string; tiles: number; bytes: number }[]
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
 * group id and what was saved. A stop or failure after the group is made keeps what came
 * (layers fully pulled, tiles stored), the map marked `incomplete`: `resume` goes on from there.
 */
export async function takeOffline(env: JobEnv, req: OfflineRequest, progress: TrackedProgress): Promise<{ id: number; saved: SavedMap }> {
  progress.stage('reading')
  const { creds, client } = await connectionOf(env, req.connection)
  await refuseTakenAgain(env, req)
  const map = await readRemoteMap(client, creds, req.webmap)
  progress.signal.throwIfAborted()
  const saved: SavedMap = { state: 'saving', name: map.name, url: creds.url, connection: req.connection, remote_webmap: req.webmap, bbox: req.bbox,
    zooms: req.zooms, webmap: null, layers: [], styles: {}, basemaps: [], missing: [...map.missing],
    size: { tiles: 0, features: 0, rasters: 0, total: 0 }, saved: env.services.platform.now().toISOString(), refreshed: null }
  const group = (await env.inner.json('POST', '/api/resource/', { resource: { cls: 'resource_group', parent: { id: req.parent },
    display_name: `${map.name} (offline)` }, resmeta: { items: { [META_KEY]: JSON.stringify(saved) } } })).id as number
  return { id: group, saved: await exclusive(env, group, () => fill(env, group, saved, map, { creds, client }, progress)) }
}

/**
 * A 409 when group `req.parent` holds a saved map of the same remote web map (same connection,
 * same remote id): a take sent again (Chromium resends a request whose worker it killed) or a
 * second tap. An incomplete one is to be resumed, a complete one is offline already; either way
 * the answer names it (`data.resource_id`) and nothing is made.
 */
async function refuseTakenAgain(env: JobEnv, req: OfflineRequest): Promise<void> {
  const same = (await savedMapsFound(env, `parent_id=${req.parent}&`))
    .find(({ saved }) => saved.connection === req.connection && saved.remote_webmap === req.webmap)
  if (same) throw takenAlready(same.id, same.saved)
}

const takenAlready = (id: number, saved: SavedMap) => saved.state === 'saved'
  ? new ApiError(409, 'Web map offline already', {
    message: `"${saved.name}" is offline already as saved map ${id}: open it, or refresh it for the team's changes.`,
    exception: 'outpost.webmap_offline.AlreadySaved', data: { resource_id: id, state: saved.state } })
  : new ApiError(409, 'Web map offline in part', {
    message: saved.state === 'saving'
      ? `"${saved.name}" is being taken offline already as saved map ${id}; wait for it to end.`
      : `"${saved.name}" was taken offline in part as saved map ${id}, listed as incomplete: resume it to bring the rest.`,
    exception: 'outpost.webmap_offline.AlreadyTaking', data: { resource_id: id, state: saved.state } })

/**
 * `POST /api/resource/{id}/webmap_offline/resume`: goes on with an incomplete saved map: the
 * remote map is read again, then only what is not here yet comes (layers not pulled, tiles not
 * stored), the progress counting from what is. What an earlier run made but did not record
 * (a host killed between a create and its record) is deleted first.
 */
export async function resume(env: JobEnv, id: number, saved: SavedMap, progress: TrackedProgress): Promise<{ id: number; saved: SavedMap }> {
  if (saved.state === 'saved') throw notIncomplete(id)
  return { id, saved: await exclusive(env, id, async () => {
    progress.stage('reading')
    const { creds, client } = await connectionOf(env, saved.connection)
    const map = await readRemoteMap(client, creds, saved.remote_webmap)
    progress.signal.throwIfAborted()
    await dropUnrecorded(env, id, saved)
    return fill(env, id, { ...saved, state: 'saving', webmap: null, basemaps: [], missing: [...map.missing] }, map, { creds, client }, progress)
  }) }
}

/** Deletes what an earlier run made under group `id` but did not record in `saved` (its records are what resume trusts). */
async function dropUnrecorded(env: JobEnv, id: number, saved: SavedMap): Promise<void> {
  const children = async (parent: number) => (await childrenOf(env, parent)).map((r) => r.id)
  const layers = new Set(saved.layers.map((l) => l.local))
  const styles = new Set(Object.values(saved.styles ?? {}))
  for (const child of await children(id)) {
    if (!layers.has(child)) await env.inner.json('DELETE', `/api/resource/${child}`)
    else for (const style of await children(child)) if (!styles.has(style)) await env.inner.json('DELETE', `/api/resource/${style}`)
  }
}

/**
 * Brings to group `group` what of `map` is not there yet (per `saved`'s records), recording
 * each layer as it comes so that a killed host loses no whole layer. On a stop or failure the
 * map is marked incomplete with the reason (its tiles stay as blobs) and the error is thrown.
 */
async function fill(env: JobEnv, group: number, saved: SavedMap, map: RemoteMap, remote: { creds: Credentials; client: RemoteClient },
  progress: TrackedProgress): Promise<SavedMap> {
  const { signal } = progress
  const { inner, services } = env
  const { creds, client } = remote
  const record = () => inner.json('PUT', `/api/resource/${group}`, { resmeta: { items: { [META_KEY]: JSON.stringify(saved) } } })
  let fetches: BasemapFetch[] = []
  try {
    // Layers: linked for sync, their features pulled now; one pulled before is kept.
    progress.stage('layers', map.layers.size)
    const localLayer = new Map(saved.layers.map((l) => [l.remote, l.local]))
    let layersDone = 0
    for (const [rid, l] of map.layers) {
      if (!localLayer.has(rid)) {
        try {
          if (l.raster) {
            const copy = await copyRaster(env, client, signal, group, rid, l.name, l.raster.srs)
            localLayer.set(rid, copy.id)
            saved.layers.push({ name: l.name, remote: rid, local: copy.id, features: 0, raster: { bytes: copy.bytes } })
          } else {
            const id = await cancellable(env, signal, (token) => inner.json('POST', '/api/resource/', {
              resource: { cls: 'vector_layer', parent: { id: group }, display_name: l.name },
              vector_layer: { remote: { connection: { id: saved.connection }, resource: { id: rid } } } }, { progress: token }))
            localLayer.set(rid, id.id)
            saved.layers.push({ name: l.name, remote: rid, local: id.id, features: l.features })
          }
          await record()
        } catch (err) {
          signal.throwIfAborted()
          // A layer this account may not read, of a kind not kept here, or a raster too large for the device, is missing; anything else fails the job.
          const why = missingReason(err, creds)
          if (why === undefined) throw err
          saved.missing.push({ kind: 'layer', name: l.name, reason: why })
        }
      }
      progress.done(++layersDone)
    }
    // Styles: copied under the local layers.
    progress.stage('styles', map.styles.size)
    const localStyle = new Map(Object.entries(saved.styles ?? {}).map(([r, l]) => [Number(r), l]))
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
      saved.styles = Object.fromEntries(localStyle)
      progress.done(localStyle.size)
    }
    await record()
    // Basemaps: their tiles all at once in a small pool, those stored before not again.
    const tiles = tileCount(saved.bbox, saved.zooms)
    fetches = []
    for (const [index, b] of map.basemaps.entries()) {
      fetches.push({ source: tileSource(b.url, client, services.platform), slot: index, kept: await keptTiles(env, slotPrefix(group, index)) })
    }
    // Staged once the kept tiles are known: fetchTiles counts them first, so the count never starts below them.
    progress.stage('tiles', tiles * map.basemaps.length)
    let done = 0
    const reports = await fetchTiles(fetches, services.data.blobs, group, saved.bbox, saved.zooms, signal, [], (n) => progress.done(done += n))
    // A basemap whose tiles came, then stopped coming, lost its connection (a weak network): the
    // job is not over but cut, to be resumed. One none of whose tiles ever came is missing (below).
    const cut = reports.findIndex((r) => r.given_up && r.tiles > 0)
    if (cut >= 0) throw tilesCut(group, map.basemaps[cut]!.name, new URL(map.basemaps[cut]!.url, creds.url).origin, reports[cut]!.tiles, tiles)
    progress.stage('saving')
    // A local basemap layer each, its tiles served by this server from the blobs; one none of whose tiles came is only listed as missing.
    for (const [index, b] of map.basemaps.entries()) {
      const report = reports[index]!
      if (report.failed) {
        saved.missing.push({ kind: 'tiles', name: b.name, reason: report.given_up ? `its tiles could not be read from ${new URL(b.url, creds.url).origin}; ${report.tiles} of ${tiles} came`
          : `${report.failed} of ${tiles} tiles could not be read` })
      }
      if (!report.tiles) continue
      signal.throwIfAborted()
      const local = await inner.json('POST', '/api/resource/', { resource: { cls: 'basemap_layer', parent: { id: group }, display_name: b.name },
        basemap_layer: { url: tileRoute(group, index), copyright_text: b.copyright_text,
          z_min: saved.zooms[0], z_max: saved.zooms[1] } })
      saved.basemaps.push({ name: b.name, resource: local.id, index, url: b.url, tiles: report.tiles, bytes: report.bytes })
    }
    signal.throwIfAborted()
    const [w, s, e, n] = saved.bbox
    const webmap = await inner.json('POST', '/api/resource/', { resource: { cls: 'webmap', parent: { id: group }, display_name: map.name },
      webmap: { root_item: localTree(map.root, localStyle), initial_extent: [w, s, e, n] },
      basemap_webmap: { basemaps: saved.basemaps.map((b) => {
        const remote = map.basemaps[b.index]!
        return { resource_id: b.resource, display_name: b.name, enabled: remote.enabled, ...(remote.opacity ? { opacity: remote.opacity } : {}) }
      }) } })
    saved.webmap = webmap.id
    saved.size = sizeOf(saved)
    saved.state = 'saved'
    delete saved.stopped
    signal.throwIfAborted()
    await record()
    return saved
  } catch (err) {
    // What came stays, marked incomplete with why: resume goes on from it, remove deletes it.
    const stopped = signal.aborted ? stoppedKept(group) : err
    saved.state = 'incomplete'
    saved.stopped = stopped instanceof ApiError ? stopped.opts.message ?? stopped.title : 'it failed'
    saved.webmap = null
    // The tiles stored so far, per basemap (no local basemap layer yet: the end of the job makes those).
    saved.basemaps = fetches.flatMap((f) => f.report?.tiles ? [{ name: map.basemaps[f.slot]!.name, resource: null, index: f.slot,
      url: map.basemaps[f.slot]!.url, tiles: f.report.tiles, bytes: f.report.bytes }] : [])
    saved.size = sizeOf(saved)
    await record().catch((e: unknown) => env.services.platform.log('Marking a map taken offline incomplete failed', e))
    throw stopped
  }
}

/** The tiles of blob slot `prefix` already stored, and their bytes (read once, when a job resumes). */
async function keptTiles(env: JobEnv, prefix: string): Promise<{ ids: Set<string>; bytes: number }> {
  const ids = new Set(await env.services.data.blobs.listBlobs(prefix))
  let bytes = 0
  for (const id of ids) bytes += (await env.services.data.blobs.getBlob(id))?.length ?? 0
  return { ids, bytes }
}

/** Runs `work` on saved map `id` while no other job of this host works on it (two would fill the same blobs). */
async function exclusive<T>(env: JobEnv, id: number, work: () => Promise<T>): Promise<T> {
  const running = runningOf(env)
  if (running.has(id)) throw jobRunning(id)
  running.add(id)
  try {
    return await work()
  } finally {
    running.delete(id)
  }
}

/** Saved maps a job works on, per services object (one per host: the worker, a Node process). */
const running = new WeakMap<object, Set<number>>()
const runningOf = (env: JobEnv) => {
  const set = running.get(env.services) ?? new Set<number>()
  running.set(env.services, set)
  return set
}

/** A map's state as listed: one left `saving` by a host killed mid-job (no job of this host on it) is incomplete. */
const listedState = (env: JobEnv, id: number, saved: SavedMap): SavedMap =>
  saved.state === 'saving' && !runningOf(env).has(id) ? { ...saved, state: 'incomplete', stopped: saved.stopped ?? 'the app stopped while it was saved' } : saved

const jobRunning = (id: number) => new ApiError(409, 'Job under way', {
  message: `Saved map ${id} is being saved, resumed or refreshed already; try again when that has ended.`,
  exception: 'outpost.webmap_offline.JobRunning', data: { resource_id: id } })

const notIncomplete = (id: number) => new ApiError(409, 'Saved map complete', {
  message: `Saved map ${id} is complete: there is nothing to resume; refresh it instead.`,
  exception: 'outpost.webmap_offline.NotIncomplete', data: { resource_id: id } })

const incomplete = (id: number) => new ApiError(409, 'Saved map incomplete', {
  message: `Saved map ${id} is incomplete: resume it before refreshing it.`,
  exception: 'outpost.webmap_offline.Incomplete', data: { resource_id: id } })

const tilesCut = (id: number, name: string, origin: string, came: number, of: number) => new ApiError(502, 'Basemap tiles cut off', {
  message: `The tiles of basemap "${name}" stopped coming from ${origin} after ${came} of ${of}; what came is kept as an incomplete saved map: resume it when the network is back.`,
  exception: EXTERNAL_SERVICE_ERROR, data: { url: origin, resource_id: id } })

/** A stopped take or resume: what came is kept (the request's usual cancel says nothing was created). */
const stoppedKept = (id: number) => new ApiError(409, 'Request cancelled', {
  message: 'The request was cancelled before it finished; what came is kept as an incomplete saved map: resume it, or remove it.',
  exception: 'nextgisweb.core.exception.OperationalError', data: { cancelled: true, resource_id: id } })

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
  const saved = parseSaved(doc?.resmeta?.items?.[META_KEY])
  return saved ? listedState(env, id, saved) : undefined
}

/** `GET …/webmap_offline/`: the saved maps this person may read. */
export async function savedMaps(env: JobEnv): Promise<Record<string, unknown>[]> {
  return (await savedMapsFound(env, '')).map(({ id, saved }) => ({ id, ...saved }))
}

/** The saved maps this person may read, found by a resource search (`filter`: more of its query, each ending in `&`). */
async function savedMapsFound(env: JobEnv, filter: string): Promise<{ id: number; saved: SavedMap }[]> {
  const found = await env.inner.json('GET', `/api/resource/search/?${filter}resmeta__has[${META_KEY}]=true&serialization=full`)
  return (found as { resource: { id: number }; resmeta: { items: Record<string, unknown> } }[]).flatMap((r) => {
    const saved = parseSaved(r.resmeta?.items?.[META_KEY])
    return saved ? [{ id: r.resource.id, saved: listedState(env, r.resource.id, saved) }] : []
  })
}

const isInt = (v: unknown) => Number.isSafeInteger(v)
const arrayOf = (v: unknown, each: (x: Record<string, unknown>) => boolean) =>
  Array.isArray(v) && v.every((x) => !!x && typeof x === 'object' && each(x as Record<string, unknown>))

/**
 * A group's `outpost.offline_map` item read as a saved map, or undefined when it is not one of
 * ours: anyone who may edit the group's metadata can write that item, and text of another shape
 * must read as "not a saved map" (404, not listed), never fail a listing or a job with a 500.
 */
export function parseSaved(text: unknown): SavedMap | undefined {
  if (typeof text !== 'string') return undefined
  let v: Record<string, unknown>
  try { v = JSON.parse(text) } catch { return undefined }
  if (!v || typeof v !== 'object') return undefined
  const ok = ['saving', 'saved', 'incomplete'].includes(v.state as string) && typeof v.name === 'string' && typeof v.url === 'string'
    && isInt(v.connection) && isInt(v.remote_webmap) && (v.webmap === null || isInt(v.webmap))
    && Array.isArray(v.bbox) && v.bbox.length === 4 && v.bbox.every(Number.isFinite)
    && Array.isArray(v.zooms) && v.zooms.length === 2 && v.zooms.every(isInt)
    && arrayOf(v.layers, (l) => typeof l.name === 'string' && isInt(l.remote) && isInt(l.local) && typeof l.features === 'number')
    && arrayOf(v.basemaps, (b) => typeof b.name === 'string' && typeof b.url === 'string' && isInt(b.index) && (b.resource === null || isInt(b.resource))
      && typeof b.tiles === 'number' && typeof b.bytes === 'number')
    && arrayOf(v.missing, (m) => typeof m.name === 'string') && (v.styles === undefined || (!!v.styles && typeof v.styles === 'object'))
  return ok ? v as unknown as SavedMap : undefined
}

/** The other blob slot of a basemap's tiles: a refresh fills it while the kept tiles stay in theirs. */
export const otherSlot = (slot: number) => (slot < SLOTS ? slot + SLOTS : slot - SLOTS)
/** Basemap slots 0…SLOTS-1 and their refresh twins SLOTS…2·SLOTS-1 (the tile route's `{i}`). */
export const SLOTS = 1000

export interface TileRefresh { name: string; tiles: number; bytes: number; failed: number; replaced: boolean }

/**
 * `POST /api/resource/{id}/webmap_offline`: refreshes a saved map. Each kept basemap's tiles of
 * the area are fetched again into its other slot (progress and Stop as when it was taken), and
 * each copied raster's file into a new copy beside the old; then a sync round of each linked
 * layer (the server's changes come, ours go); then a basemap whose every tile came moves over
 * to the new tiles and the old go, and the web map moves over to the rasters' new copies. A
 * basemap with any tile that failed keeps its old tiles whole (a crew half-refreshed out of
 * coverage keeps a whole map), a raster whose file did not come its old copy. A stop or failure
 * before the rounds drops the new tiles and copies and changes nothing.
 */
export async function refresh(env: JobEnv, id: number, saved: SavedMap, progress: TrackedProgress) {
  if (saved.state !== 'saved') throw incomplete(id)
  // Two jobs on one map would fill the same slot: the second waits its turn (asked again).
  return exclusive(env, id, () => refreshOnce(env, id, saved, progress))
}

async function refreshOnce(env: JobEnv, id: number, saved: SavedMap, progress: TrackedProgress) {
  const { signal } = progress
  const { services } = env
  const { creds, client } = await connectionOf(env, saved.connection)
  const perMap = tileCount(saved.bbox, saved.zooms)
  progress.stage('tiles', perMap * saved.basemaps.length)
  const written: string[] = []
  const fetches: BasemapFetch[] = []
  let done = 0
  // Filled as each raster's new copy is whole: a stop deletes those made.
  const rasters: RasterRenewals = { made: [], report: [] }
  try {
    for (const b of saved.basemaps) {
      const slot = otherSlot(b.index)
      // What an earlier refresh cut by a killed host left in that slot goes first.
      await deleteBlobs(env, await services.data.blobs.listBlobs(slotPrefix(id, slot)))
      fetches.push({ source: tileSource(b.url, client, services.platform), slot })
    }
    await fetchTiles(fetches, services.data.blobs, id, saved.bbox, saved.zooms, signal, written, (n) => progress.done(done += n))
    signal.throwIfAborted()
    await dropRenewalLeftovers(env, id, saved)
    const copied = saved.layers.filter((l) => l.raster)
    progress.stage('rasters', copied.length)
    await renewRasters(env, { creds, client }, id, copied, signal, rasters, (n) => progress.done(n))
    // The last point a Stop is heeded: after it, the rounds and the moves run to their end.
    signal.throwIfAborted()
  } catch (err) {
    await deleteBlobs(env, written)
    for (const r of rasters.made) await env.inner.json('DELETE', `/api/resource/${r.local}`).catch(() => undefined)
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
  // A kept part's earlier failure to refresh is said again below if it failed again.
  const missing = saved.missing.filter((m) => m.kind === 'tiles' ? !saved.basemaps.some((b) => b.name === m.name)
    : m.kind !== 'layer' || !saved.layers.some((l) => l.raster && l.name === m.name))
  for (const [k, b] of saved.basemaps.entries()) {
    const { slot, report } = fetches[k] as Required<BasemapFetch>
    const replaced = report.failed === 0 && report.tiles > 0
    tiles.push({ name: b.name, tiles: report.tiles, bytes: report.bytes, failed: report.failed, replaced })
    if (!replaced) {
      await deleteBlobs(env, await services.data.blobs.listBlobs(slotPrefix(id, slot)))
      missing.push({ kind: 'tiles', name: b.name, reason: `the refresh could not read ${report.failed} of ${perMap} tiles from ${new URL(b.url, creds.url).origin}; the tiles kept before stay` })
      basemaps.push(b)
      continue
    }
    await env.inner.json('PUT', `/api/resource/${b.resource!}`, { basemap_layer: { url: tileRoute(id, slot) } })
    await deleteBlobs(env, await services.data.blobs.listBlobs(slotPrefix(id, b.index)))
    basemaps.push({ ...b, index: slot, tiles: report.tiles, bytes: report.bytes })
  }
  for (const r of rasters.report) {
    if (!r.renewed) missing.push({ kind: 'layer', name: r.name, reason: `the refresh could not renew its copy: ${r.reason}; the copy kept before stays` })
  }
  const next: SavedMap = { ...saved, basemaps, missing, refreshed: services.platform.now().toISOString() }
  await moveToRenewed(env, id, next, rasters.made)
  next.size = sizeOf(next)
  await env.inner.json('PUT', `/api/resource/${id}`, { resmeta: { items: { [META_KEY]: JSON.stringify(next) } } })
  return { status: rounds.every((r) => r.status === 'ok') ? 'ok' : rounds.some((r) => r.status === 'error') ? 'error' : 'conflicts', rounds, tiles,
    rasters: rasters.report, saved: next }
}

/** A raster's new copy made beside the kept one (`layer`): its resource, file bytes, and old local style → new. */
interface RasterCopy { layer: SavedMap['layers'][number]; local: number; bytes: number; styles: Map<number, number> }
/** What a refresh answers per copied raster. */
export interface RasterRefresh { name: string; renewed: boolean; bytes: number; reason?: string }
interface RasterRenewals { made: RasterCopy[]; report: RasterRefresh[] }

/** What a raster's new copy is named after, until it takes the old copy's name. */
const RENEWING = ' (renewed'

/**
 * Deletes the raster copies a refresh cut by a killed host left unrecorded in group `group`: a
 * new copy not moved over to (named as one), or an old copy moved away from but not deleted
 * (named as a recorded raster). Only raster layers so named: whatever else a person put in the
 * group stays.
 */
async function dropRenewalLeftovers(env: JobEnv, group: number, saved: SavedMap): Promise<void> {
  const recorded = new Set(saved.layers.map((l) => l.local))
  const names = new Set(saved.layers.filter((l) => l.raster).map((l) => l.name))
  for (const child of await childrenOf(env, group)) {
    if (child.cls !== 'raster_layer' || recorded.has(child.id)) continue
    if (names.has(child.display_name) || [...names].some((n) => child.display_name.startsWith(n + RENEWING))) {
      await env.inner.json('DELETE', `/api/resource/${child.id}`)
    }
  }
}

const childrenOf = async (env: JobEnv, parent: number) =>
  (await env.inner.json('GET', `/api/resource/?parent=${parent}`) as { resource: { id: number; cls: string; display_name: string } }[]).map((r) => r.resource)

/**
 * A new copy of each copied raster of group `group`, made beside the kept one (the remote
 * raster layer's file downloaded again, as copyRaster takes it, and its raster styles copied
 * under it). One whose download is refused, too large or fails keeps its old copy, what was
 * made for it is deleted, and it is reported with why, in `out`. A stop throws; the caller
 * deletes the copies made (`out.made` grows as each is whole).
 */
async function renewRasters(env: JobEnv, remote: { creds: Credentials; client: RemoteClient }, group: number, copied: SavedMap['layers'],
  signal: AbortSignal, out: RasterRenewals, onDone: (n: number) => void): Promise<void> {
  for (const l of copied) {
    let local: number | undefined
    try {
      const old = await env.inner.json('GET', `/api/resource/${l.local}`)
      // A name of its own while both are there (names are unique in a group); it takes the old name once that is gone.
      const copy = await copyRaster(env, remote.client, signal, group, l.remote, `${l.name}${RENEWING} ${randomToken().slice(0, 6)})`, Number(old.raster_layer.srs.id))
      local = copy.id
      const styles = new Map<number, number>()
      for (const style of await childrenOf(env, l.local)) {
        if (style.cls !== 'raster_style') continue
        signal.throwIfAborted()
        const made = await env.inner.json('POST', '/api/resource/', { resource: { cls: 'raster_style', parent: { id: local }, display_name: style.display_name } })
        styles.set(style.id, made.id as number)
      }
      out.made.push({ layer: l, local, bytes: copy.bytes, styles })
      out.report.push({ name: l.name, renewed: true, bytes: copy.bytes })
    } catch (err) {
      if (local !== undefined) {
        await env.inner.json('DELETE', `/api/resource/${local}`).catch((e: unknown) => env.services.platform.log('Deleting a raster copy not renewed failed', e))
      }
      signal.throwIfAborted()
      // Our own server failing (not the team's answer) fails the refresh.
      if (!(err instanceof ApiError) || (err.status >= 500 && err.opts.exception !== EXTERNAL_SERVICE_ERROR)) throw err
      out.report.push({ name: l.name, renewed: false, bytes: 0, reason: missingReason(err, remote.creds) ?? err.opts.message ?? err.title })
    }
    onDone(out.report.length)
  }
}

/**
 * Moves the saved map of group `group` (`saved`, changed in place) over to the rasters' new
 * copies: the local web map's items point at the new styles, the map is recorded with them,
 * then the old copies go and the new take their names. Recorded before the old go, so that a host killed between
 * leaves an old copy unrecorded (deleted by the next refresh: dropRenewalLeftovers), never the
 * one the map draws.
 */
async function moveToRenewed(env: JobEnv, group: number, saved: SavedMap, made: RasterCopy[]): Promise<void> {
  if (!made.length) return
  const restyled = new Map(made.flatMap((m) => [...m.styles]))
  const webmap = await env.inner.json('GET', `/api/resource/${saved.webmap!}`)
  const root = webmap.webmap.root_item as Record<string, unknown>
  // Every item kept: those of other layers point at their own styles still.
  const styles = new Map([...layerItems(root)].map((i) => Number(i.layer_style_id)).map((s) => [s, restyled.get(s) ?? s] as const))
  await env.inner.json('PUT', `/api/resource/${saved.webmap!}`, { webmap: { root_item: localTree(root, styles) } })
  const local = new Map(made.map((m) => [m.layer.local, m]))
  saved.layers = saved.layers.map((l) => {
    const m = local.get(l.local)
    return m ? { ...l, local: m.local, raster: { bytes: m.bytes } } : l
  })
  saved.styles = Object.fromEntries(Object.entries(saved.styles ?? {}).map(([r, s]) => [r, restyled.get(s) ?? s]))
  saved.size = sizeOf(saved)
  await env.inner.json('PUT', `/api/resource/${group}`, { resmeta: { items: { [META_KEY]: JSON.stringify(saved) } } })
  for (const m of made) {
    await env.inner.json('DELETE', `/api/resource/${m.layer.local}`)
    await env.inner.json('PUT', `/api/resource/${m.local}`, { resource: { display_name: m.layer.name } })
  }
}

/**
 * `DELETE /api/resource/{id}/webmap_offline`: the group and everything in it, then every tile
 * blob of the map (listed by prefix: a job cut by a killed host left some too). Answers how many.
 */
export async function remove(env: JobEnv, id: number): Promise<{ tiles: number }> {
  // A job under way would go on writing tiles after they were deleted: stop it first.
  if (runningOf(env).has(id)) throw jobRunning(id)
  await env.inner.json('DELETE', `/api/resource/${id}`)
  const ids = await env.services.data.blobs.listBlobs(tileBlobPrefix(id))
  await deleteBlobs(env, ids)
  return { tiles: ids.length }
}
