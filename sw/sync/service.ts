/**
 * @module sync/service
 * What the sync endpoints read: a linked layer's state (changes waiting, conflicts, the last
 * rounds), the list of linked layers, a connection's remote tree, the team's server the app
 * is served from.
 */
import type { AclEvaluator } from '../auth/acl.ts'
import type { DataPort } from '../port/port.ts'
import type { Platform } from '../platform/platform.ts'
import { remoteClient, type RemoteClient } from './client.ts'
import { RemoteShape } from './remote-shape.ts'
import { boundedFetch } from '../core/outbound.ts'
import { connectionNotFound, notLinked, asReadRefusal, WRITE_REFUSED, writeRefusedMessage } from './errors.ts'
import { runningOf } from './round.ts'
import { problemJson, waitingCounts } from './state.ts'
import type { SyncLookup } from './types.ts'
import type { ResourceRefs } from '../resource/types.ts'

/** The probe of the app's own origin: a small answer, soon. */
const TEAM_PROBE = { maxBytes: 64 * 1024, idleMs: 5000, totalMs: 5000 }

export interface SyncServices {
  platform: Platform
  data: DataPort
  classes: SyncLookup & ResourceRefs
  acl: AclEvaluator
}

/** `GET /api/resource/{id}/sync`: where the exchange of layer `id` stands. */
export async function syncState(services: SyncServices, id: number): Promise<Record<string, unknown>> {
  const replica = await services.classes.replica(id)
  if (!replica) throw notLinked(id)
  const creds = await services.classes.remoteConnection(replica.link.connection)
  const s = await replica.read(async (_tx, r) => {
    const state = await r.state()
    return { state, ...await waitingCounts(r),
      conflicts: (await r.conflicts()).length, problems: (await r.problems()).map(problemJson), history: await r.history() }
  })
  return {
    remote: { connection: { id: replica.link.connection }, resource: { id: replica.link.resource }, url: creds?.url ?? null },
    local_changes: { features: s.features, attachments: s.attachments },
    conflicts: s.conflicts,
    problems: s.problems,
    // Said again with the changes waiting now, until a push goes through.
    push_refused: s.state?.pushRefused && creds ? { title: WRITE_REFUSED, since: s.state.pushRefused.since,
      message: writeRefusedMessage(creds.url, creds.username, s.features + s.attachments) } : null,
    last_sync: s.state?.lastSync ?? null,
    remote_version: s.state?.remoteVersion ?? 0,
    remote_epoch: s.state?.remoteEpoch ?? null,
    pending: { push: !!s.state?.push, pull: !!s.state?.pull },
    running: runningOf(services.classes).has(id) ? runningOf(services.classes).get(id) ?? { stage: 'starting', done: 0, total: null } : null,
    history: s.history,
  }
}

/** Every linked layer `may` show, with its name and state (the app's sync view). */
export async function linkedLayers(services: SyncServices, may: (id: number) => Promise<boolean>): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = []
  for (const id of await services.classes.linkedLayers()) {
    if (!await may(id)) continue
    out.push({ id, display_name: (await services.classes.ref(id))?.displayName ?? null, ...await syncState(services, id) })
  }
  return out
}

/** A client of connection `id`; 422 when it is not one. */
export async function clientOf(services: SyncServices, id: number): Promise<RemoteClient> {
  const creds = await services.classes.remoteConnection(id)
  if (!creds) throw connectionNotFound(id)
  return remoteClient(creds, services.platform)
}

/** The children of remote resource `parent` as the app picks layers from them; a malformed listing is a 502. */
export async function remoteChildren(services: SyncServices, connection: number, parent: number): Promise<Record<string, unknown>[]> {
  const client = await clientOf(services, connection)
  const path = `/api/resource/?parent=${parent}`
  const shape = new RemoteShape(client.creds.url, `GET ${path}`)
  const listing = await client.get(path, 'listing').catch((err: unknown) => { throw asReadRefusal(err, client.creds, parent) })
  return shape.objects(listing).map((item, i) => {
    const r = shape.object(item.resource, `$[${i}].resource`)
    const fl = shape.optionalObject(item.feature_layer, `$[${i}].feature_layer`)
    const vl = shape.optionalObject(item.vector_layer, `$[${i}].vector_layer`)
    const geometryType = fl?.geometry_type ?? vl?.geometry_type
    const versioning = shape.optionalObject(fl?.versioning, `$[${i}].feature_layer.versioning`)
    return { id: shape.int(r.id, `$[${i}].resource.id`), cls: shape.string(r.cls, `$[${i}].resource.cls`),
      display_name: shape.string(r.display_name, `$[${i}].resource.display_name`), children: r.children === true,
      geometry_type: typeof geometryType === 'string' ? geometryType : null,
      versioning: versioning ? { enabled: versioning.enabled === true } : null, feature_layer: !!fl }
  })
}

/**
 * The team's server this app is served from, if any: in the browser the worker asks its own
 * origin's API over the network (bypassing itself); an Outpost Node host says so in
 * `pkg_version`.
 */
export async function teamServer(platform: Platform): Promise<Record<string, unknown>> {
  if (!platform.origin) return { url: null }
  try {
    const res = await boundedFetch((input, init) => platform.fetch(input, init), `${platform.origin}/api/component/pyramid/pkg_version`, {}, TEAM_PROBE)
    const body = JSON.parse(await res.text()) as { outpost_host?: string; outpost?: string }
    if (res.ok && body.outpost_host === 'node') return { url: platform.origin, outpost: typeof body.outpost === 'string' ? body.outpost : null }
  } catch { /* served by something else, or offline */ }
  return { url: null }
}
