/**
 * @module sync/webmap/publish
 * Publishing a web map made here to a team's server, as one job (the opposite of taking one
 * offline, job.ts): a group there with the map's new layers (their schema), copies of the
 * styles it uses, its basemaps and annotations, and the web map pointing at them; then each new
 * layer is linked here to its copy and a sync round sends its features up as creates, so later
 * edits sync as for any linked layer. All or nothing: a failure or a Stop deletes what was made
 * there, unlinks what was linked here and puts back a map it had changed. The map remembers where
 * it went (resmeta `outpost.published`): the next publish updates the same map there.
 */
import { ApiError, insufficientPermissions, validationError } from '../../core/error.ts'
import { requestCancelled, type TrackedProgress } from '../../ingest/progress.ts'
import type { RemoteClient } from '../client.ts'
import { connectionOf, type JobEnv } from './job.ts'
import { localTree } from './local-map.ts'
import { oldWebmap, pickBasemapSettings, publishAnnotations, publishBasemaps, settingsOf } from './publish-members.ts'
import type { Missing } from './remote-map.ts'
import { linkMember, planPublish, PUBLISHED_KEY, type Plan, type PublishRequest, type Published } from './publish-plan.ts'
import { RemoteWriter, remoteWriteRefused } from './publish-remote.ts'

export interface PublishAnswer {
  /** The web map on the team's server, and the link that opens it there. */
  id: number
  url: string
  /** Its group there (the new layers and the map are in it). */
  group: number
  /** Whether an earlier publish's map was updated (else it was made). */
  updated: boolean
  layers: { name: string; local: number; remote: number; how: 'linked' | 'created'; pushed: number }[]
  styles: number
  basemaps: number
  annotations: number
  /** What did not go, and why (a basemap served by this server only, a bookmark layer not published). */
  skipped: Missing[]
  /** Whether the map here remembers this publish (needs resource.update on it). */
  remembered: boolean
}


/**
 * The link that opens map `id` from the team's server for anyone: an Outpost host's embed page
 * (its app's `?webmap=` would open the map of the opener's own device), or the original's display page.
 */
async function mapLink(client: RemoteClient, id: number): Promise<string> {
  const version = await client.get('/api/component/pyramid/pkg_version').catch(() => undefined)
  const base = client.creds.url.replace(/\/+$/, '')
  return typeof version?.outpost === 'string' ? `${base}/embed.html?webmap=${id}&panel=1` : `${base}/resource/${id}/display`
}

/**
 * `POST /api/resource/{id}/webmap_publish`: publishes web map `id` to `req.connection`'s
 * server. Answers the map there; on any failure or a stop, nothing it made stays.
 */
export async function publishWebmap(env: JobEnv, id: number, req: PublishRequest, progress: TrackedProgress): Promise<PublishAnswer> {
  // Two publishes of one map at once would both make it there: the second is refused (asked again, it updates).
  const running = publishing.get(env.services) ?? new Set<number>()
  publishing.set(env.services, running)
  if (running.has(id)) throw publishRunning(id)
  running.add(id)
  try {
    return await publishOnce(env, id, req, progress)
  } finally {
    running.delete(id)
  }
}

/** Web maps being published, per services object (one per host: the worker, a Node process). */
const publishing = new WeakMap<object, Set<number>>()

const publishRunning = (id: number) => new ApiError(409, 'Publish under way', {
  message: `Web map ${id} is being published already; try again when that has ended.`,
  exception: 'outpost.webmap_publish.PublishRunning', data: { resource_id: id } })

async function publishOnce(env: JobEnv, id: number, req: PublishRequest, progress: TrackedProgress): Promise<PublishAnswer> {
  const { signal } = progress
  const { inner, services } = env
  progress.stage('reading')
  const { creds, client } = await connectionOf(env, req.connection)
  const plan = await planPublish(inner, id, creds, (c) => services.classes.remoteConnection(c))
  // A new layer is linked (resource.update) and synced (data.write) here: a refusal comes before anything is made there.
  for (const layer of plan.layers.values()) {
    if (layer.how !== 'create') continue
    for (const [scope, permission] of [['resource', 'update'], ['data', 'write']] as const) {
      if (await services.data.read((tx) => services.acl.check(tx.acl, env.user, layer.local, scope, permission)) !== true) {
        throw insufficientPermissions(permission, scope, layer.local)
      }
    }
  }
  // An earlier publish is updated while its map is there; gone, the map is made anew.
  const before = plan.before && (await client.json('GET', `/api/resource/${plan.before.webmap}`, undefined, [401, 403, 404])).status === 200
    ? plan.before : undefined
  if (!before) {
    const parent = await client.json('GET', `/api/resource/${req.parent}`, undefined, [401, 403, 404])
    if (parent.status !== 200 || parent.body?.resource?.cls !== 'resource_group') {
      throw validationError(`Resource ${req.parent} is not a group ${creds.username ?? 'a guest'} may read on ${creds.url} - at \`$.parent\``,
        { url: creds.url, remote_status: parent.status })
    }
  }
  signal.throwIfAborted()
  const writer = new RemoteWriter(client)
  const linked: number[] = []
  let restore: Record<string, unknown> | undefined
  try {
    const answer = await publishTo(env, plan, before, req, writer, linked, progress, (old) => { restore = old })
    return answer
  } catch (err) {
    // Nothing half-published: links here undone, the map there put back, what was made there deleted.
    const log = (m: string, e: unknown) => services.platform.log(m, e)
    for (const layer of linked) await inner.json('PUT', `/api/resource/${layer}`, { vector_layer: { remote: null } }).catch((e: unknown) => log('Undoing a publish: unlink failed', e))
    if (restore && before) await client.json('PUT', `/api/resource/${before.webmap}`, restore).catch((e: unknown) => log('Undoing a publish: restoring the map failed', e))
    await writer.undo(log)
    throw signal.aborted ? (signal.reason instanceof ApiError ? signal.reason : requestCancelled()) : err
  }
}

async function publishTo(env: JobEnv, plan: Plan, before: Published | undefined, req: PublishRequest, writer: RemoteWriter,
  linked: number[], progress: TrackedProgress, changed: (old: Record<string, unknown>) => void): Promise<PublishAnswer> {
  const { signal } = progress
  const { inner } = env
  const { client } = writer
  const skipped: Missing[] = []
  const group = before?.group ?? await writer.create({ resource: { cls: 'resource_group', parent: { id: req.parent }, display_name: plan.name } },
    `create group '${plan.name}' in group ${req.parent}`)

  progress.stage('layers', plan.layers.size)
  let n = 0
  for (const layer of plan.layers.values()) {
    signal.throwIfAborted()
    if (layer.how === 'create') {
      layer.remote = await writer.createUnique({ resource: { cls: 'vector_layer', parent: { id: group }, display_name: layer.name },
        vector_layer: layer.member, feature_layer: { versioning: { enabled: true } } }, `create layer '${layer.name}' in group ${group}`)
    }
    progress.done(++n)
  }

  progress.stage('styles', plan.styles.size)
  const styles: Record<string, number> = {}
  n = 0
  for (const style of plan.styles.values()) {
    signal.throwIfAborted()
    const member = style.cls === 'engine_style' ? { engine_style: { xml: style.xml } }
      : { qgis_vector_style: { file_upload: { id: await client.upload(await inner.bytes(`/api/resource/${style.local}/qml`), 'style.qml', 'application/xml') } } }
    const kept = before?.styles[style.local]
    if (kept !== undefined && (await client.json('GET', `/api/resource/${kept}`, undefined, [403, 404])).status === 200) {
      await writer.send('PUT', `/api/resource/${kept}`, member, `change style ${kept}`)
      styles[style.local] = kept
    } else {
      const layer = plan.layers.get(style.layer)!.remote!
      styles[style.local] = await writer.createUnique({ resource: { cls: style.cls, parent: { id: layer }, display_name: style.name }, ...member },
        `create style '${style.name}' under layer ${layer}`)
    }
    progress.done(++n)
  }

  progress.stage('webmap')
  const basemaps = await publishBasemaps(env, plan, before, group, writer, skipped)
  const m = plan.webmap
  const settings: Record<string, unknown> = settingsOf(m)
  const bookmark = m.bookmark_resource?.id as number | undefined
  const bookmarkThere = bookmark === undefined ? undefined : plan.layers.get(bookmark)?.remote
  settings.bookmark_resource = bookmarkThere === undefined ? null : { id: bookmarkThere }
  if (bookmark !== undefined && bookmarkThere === undefined) skipped.push({ kind: 'layer', name: `bookmarks (resource ${bookmark})`, reason: 'the bookmark layer is not one of the map\'s layers, so it is not on that server' })
  const body = {
    webmap: { ...settings, root_item: localTree(m.root_item, new Map(Object.entries(styles).map(([k, v]) => [Number(k), v]))) },
    basemap_webmap: { ...pickBasemapSettings(plan.basemapWebmap), basemaps: basemaps.items },
  }
  let webmap: number
  if (before) {
    const old = await client.get(`/api/resource/${before.webmap}`)
    changed({ webmap: oldWebmap(old.webmap), basemap_webmap: old.basemap_webmap })
    await writer.send('PUT', `/api/resource/${before.webmap}`, body, `change web map ${before.webmap}`)
    webmap = before.webmap
  } else {
    webmap = await writer.create({ resource: { cls: 'webmap', parent: { id: group }, display_name: plan.name }, ...body },
      `create web map '${plan.name}' in group ${group}`)
  }
  const annotations = await publishAnnotations(env, plan, webmap, writer, skipped)

  // The new layers linked here to their copies; a round sends their features up as creates.
  const creates = [...plan.layers.values()].filter((l) => l.how === 'create')
  progress.stage('features', creates.length)
  const layers: PublishAnswer['layers'] = []
  n = 0
  for (const layer of plan.layers.values()) {
    let pushed = 0
    if (layer.how === 'create') {
      signal.throwIfAborted()
      await inner.json('PUT', `/api/resource/${layer.local}`, linkMember({ connection: req.connection, resource: layer.remote! }))
      linked.push(layer.local)
      const report = await inner.json('POST', `/api/resource/${layer.local}/sync`)
      if (report.push_refused) {
        const { url, username } = client.creds
        throw remoteWriteRefused(url, username, `add the features of layer '${layer.name}'`, 403, {}, 'data.write on the layers it makes there')
      }
      if (report.status !== 'ok') {
        throw new ApiError(502, 'Features not published', { message: `The features of layer '${layer.name}' could not be sent to ${client.creds.url}: `
          + `${report.error?.message ?? report.error?.title ?? `the round ended with ${report.status}`}`, exception: 'outpost.webmap_publish.FeaturesNotSent',
          data: { layer: layer.local, report } })
      }
      pushed = Number(report.pushed?.created ?? 0)
      progress.done(++n)
    }
    layers.push({ name: layer.name, local: layer.local, remote: layer.remote!, how: layer.how === 'create' ? 'created' : 'linked', pushed })
  }
  // The last point a Stop is heeded: one pressed while the last layer's features went up undoes it all.
  signal.throwIfAborted()

  // Past this point the publish stands: a map that cannot remember it, or an old annotation that stays, is said, not undone.
  progress.stage('saving')
  for (const old of before?.annotations ?? []) await client.json('DELETE', `/api/resource/${webmap}/annotation/${old}`, undefined, [403, 404]).catch(() => undefined)
  const published: Published = { url: client.creds.url, connection: req.connection, group, webmap, styles, basemaps: basemaps.made,
    annotations: annotations.made, published: env.services.platform.now().toISOString() }
  const remembered = await inner.json('PUT', `/api/resource/${plan.id}`, { resmeta: { items: { ...plan.resmeta, [PUBLISHED_KEY]: JSON.stringify(published) } } })
    .then(() => true, (err: unknown) => {
      if (err instanceof ApiError && err.status === 403) return false
      throw err
    })
  return { id: webmap, url: await mapLink(client, webmap), group, updated: !!before, layers, styles: plan.styles.size, basemaps: basemaps.items.length,
    annotations: annotations.made.length, skipped, remembered }
}
