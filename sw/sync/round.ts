/**
 * @module sync/round
 * One sync round of a linked layer: finish a push an earlier round left open, pull, push
 * (again after a refused commit, once the pull has recorded the conflicts), and pull once
 * more so the remote's answer to our own changes moves the locks on. Rounds of one layer never
 * overlap; each ends with a report kept in the layer's history.
 */
import { ApiError, internalServerError } from '../core/error.ts'
import type { Platform } from '../platform/platform.ts'
import type { BlobStore, DataPort } from '../port/port.ts'
import type { LayerMeta } from '../feature/types.ts'
import { remoteClient } from './client.ts'
import { SyncContext, zeroCounts, type Progress } from './context.ts'
import { asReadRefusal, notLinked, remoteIncompatible, remoteRefused, SYNC_RUNNING, syncRunning, WRITE_REFUSED, writeRefusedMessage } from './errors.ts'
import { pull } from './pull.ts'
import { readRemoteLayer, type RemoteLayerSchema } from './remote-shape.ts'
import { push, resumePush, type PushResult } from './push.ts'
import { problemJson, waitingCounts } from './state.ts'
import type { Credentials, LinkState, Replica, SyncLookup, SyncReport } from './types.ts'

export type SyncHost = Pick<Platform, 'fetch' | 'now' | 'log' | 'uploadMaxSize' | 'outboundLimits'> & { blobs: BlobStore }
  & Pick<DataPort, 'exclusive'>

/** What a sync round uses of the host: the platform's network and clock, the data port's blobs and cross-process guard. */
export const syncHost = (platform: Platform, data: Pick<DataPort, 'blobs' | 'exclusive'>): SyncHost => ({
  fetch: (input, init) => platform.fetch(input, init), now: () => platform.now(), log: (m, e) => platform.log(m, e),
  uploadMaxSize: platform.uploadMaxSize, outboundLimits: platform.outboundLimits, blobs: data.blobs,
  exclusive: data.exclusive?.bind(data),
})

/** Layers being synced in one app, and how far they are. */
const RUNNING = new WeakMap<SyncLookup, Map<number, Progress | null>>()

export function runningOf(lookup: SyncLookup): Map<number, Progress | null> {
  let m = RUNNING.get(lookup)
  if (!m) RUNNING.set(lookup, m = new Map())
  return m
}

/**
 * Rounds of one layer in other processes on the same data (the team's server on PostgreSQL,
 * several Node hosts): the data port's cross-process key, taken for the whole round. Held
 * elsewhere, the round is refused as one running in this process is (409 SyncRunning), so a
 * client cannot tell which process ran the first. Where one process owns the data (SQLite) the
 * port has none and `running` is the guard. Returns the release.
 */
async function roundGuard(host: SyncHost, id: number): Promise<(() => Promise<void>) | undefined> {
  if (!host.exclusive) return undefined
  const release = await host.exclusive(`sync:${id}`)
  if (!release) throw syncRunning(id)
  return release
}

/**
 * Claims layer `id` for a round: in this process (`running`, marked before anything is awaited,
 * so a second call meanwhile is refused) and across processes (`roundGuard`); then its replica.
 * Refused or not linked, nothing stays claimed.
 */
async function claim(lookup: SyncLookup, host: SyncHost, id: number): Promise<[Replica, (() => Promise<void>) | undefined]> {
  const running = runningOf(lookup)
  if (running.has(id)) throw syncRunning(id)
  running.set(id, null)
  let release: (() => Promise<void>) | undefined
  try {
    release = await roundGuard(host, id)
    const replica = await lookup.replica(id)
    if (!replica) throw notLinked(id)
    return [replica, release]
  } catch (err) {
    running.delete(id)
    await release?.()
    throw err
  }
}

/** What a first round knows of the link: fields matched by keyname, the remote's versioning. */
export function initialState(meta: LayerMeta, remote: RemoteLayerSchema): LinkState {
  const fieldMap: Record<string, number> = {}
  for (const f of meta.fields) {
    const rf = remote.fields.find((x) => x.keyname === f.keyname)
    if (rf) fieldMap[String(f.id)] = rf.id
  }
  return { fieldMap, remoteVersioned: !!remote.featureLayer!.versioning?.enabled, remoteEpoch: null, remoteVersion: 0,
    pull: null, push: null, lastSync: null }
}

async function connect(creds: Credentials | undefined, host: SyncHost, replica: Replica, onProgress: (p: Progress | null) => void): Promise<SyncContext> {
  if (!creds) throw remoteIncompatible(`The connection (resource ${replica.link.connection}) of this layer is gone.`)
  const client = remoteClient(creds, host)
  const remote = await readRemoteLayer(client, replica.link.resource)
  const fl = remote.featureLayer
  const meta = replica.meta
  if (!fl) throw remoteIncompatible(`Remote resource ${replica.link.resource} is not a feature layer.`)
  const srs = fl.srs?.id ?? remote.vectorLayer?.srs?.id
  if ((fl.geometry_type ?? remote.vectorLayer?.geometry_type) !== meta.geometryType || srs !== meta.srs) {
    throw remoteIncompatible('The remote layer\'s geometry type or reference system changed; link the layer anew.')
  }
  let state = await replica.read((_tx, r) => r.state()) ?? initialState(meta, remote)
  const versioned = !!fl.versioning?.enabled
  if (versioned !== state.remoteVersioned) state = { ...state, remoteVersioned: versioned, remoteEpoch: null, pull: null }
  const ctx = new SyncContext(replica, client, host, state, onProgress)
  for (const f of remote.fields) ctx.remoteKeynames.set(f.keyname, f.id)
  return ctx
}

const errorOf = (err: unknown) => (err instanceof ApiError ? err : internalServerError(err))

/**
 * Runs a push step; a remote refusing it (401/403) is an answer, not a failure: its status.
 * The changes stay waiting (nothing of them was applied here), and the round goes on.
 */
async function refusal(step: () => Promise<unknown>): Promise<number | null> {
  try {
    await step()
    return null
  } catch (err) {
    if (remoteRefused(err)) return err.opts.data!.remote_status as number
    throw err
  }
}

/**
 * Records whether the remote refused this round's push (kept in the link's state, so `GET
 * …/sync` says it until a push goes through) and says so in the report, with the changes waiting.
 */
async function noteRefusal(ctx: SyncContext, refused: number | null, report: SyncReport): Promise<void> {
  const before = ctx.state.pushRefused ?? null
  if (refused !== null) {
    const { features, attachments } = await ctx.replica.read(async (_tx, r) => waitingCounts(r))
    const { url, username } = ctx.client.creds
    report.push_refused = { title: WRITE_REFUSED, message: writeRefusedMessage(url, username, features + attachments) }
  }
  const next = refused === null ? null : { since: before?.since ?? ctx.nowIso(), status: refused }
  if (JSON.stringify(next) === JSON.stringify(before)) return
  const state = { ...ctx.state, pushRefused: next }
  await ctx.replica.write((_tx, r) => r.setState(state))
  ctx.state = state
}

/**
 * Runs one round for layer `id`; the report says how it went (`error` included: a remote
 * that cannot be reached is a report, not a failure of this server). `rethrow`: fail instead
 * (a first download, whose failure undoes the layer's creation).
 */
export async function syncRound(lookup: SyncLookup, host: SyncHost, id: number,
  opts: { rethrow?: boolean; onProgress?: (p: Progress) => void } = {}): Promise<SyncReport> {
  const running = runningOf(lookup)
  const [replica, release] = await claim(lookup, host, id)
  const nowIso = () => host.now().toISOString().slice(0, 19)
  const report: SyncReport = { status: 'ok', pushed: zeroCounts(), pulled: zeroCounts(), conflicts: 0, problems: [],
    started: nowIso(), finished: '' }
  let ctx: SyncContext | undefined
  let creds: Credentials | undefined
  try {
    creds = await lookup.remoteConnection(replica.link.connection)
    const c = ctx = await connect(creds, host, replica, (p) => {
      running.set(id, p)
      if (p) opts.onProgress?.(p)
    })
    // A remote that lets this account read but not write: the pull still happens, the push
    // waits (a push left open waits too: pushing anew beside it could send its changes twice).
    let refused = await refusal(() => resumePush(c))
    await pull(c)
    for (let pass = 0; refused === null && pass < 4; pass++) {
      let result: PushResult = 'none'
      refused = await refusal(async () => { result = await push(c) })
      if (refused !== null || result === 'none') break
      await pull(c)
    }
    await noteRefusal(c, refused, report)
    Object.assign(report, await replica.read(async (_tx, r) => ({ conflicts: (await r.conflicts()).length, problems: (await r.problems()).map(problemJson) })))
    // Problems do not fail the round: everything else moved, and they are listed with it.
    report.status = report.conflicts ? 'conflicts' : 'ok'
  } catch (err) {
    // A refused read (the account may not read the layer, or its login is wrong) says so plainly.
    const e = errorOf(creds ? asReadRefusal(err, creds, replica.link.resource) : err)
    if (e.status >= 500 && !(err instanceof ApiError)) host.log(`Sync of layer ${id} failed`, err)
    report.status = 'error'
    report.error = { title: e.title, message: e.message }
    if (opts.rethrow) throw e
  } finally {
    running.delete(id)
    report.finished = nowIso()
    if (ctx) Object.assign(report, { pushed: ctx.pushed, pulled: ctx.pulled })
    const last = report.status === 'error' ? undefined : report.finished
    await replica.write(async (_tx, r) => {
      const state = await r.state() ?? ctx?.state
      if (state && last) await r.setState({ ...state, lastSync: last })
      await r.addHistory(report)
    }).catch((err) => host.log(`Recording the sync of layer ${id} failed`, err))
    // Other processes' rounds start after this one's state and history are written.
    await release?.()
  }
  return report
}

/** One round of every linked layer that is not syncing already (background sync). */
export async function syncAll(lookup: SyncLookup, host: SyncHost): Promise<SyncReport[]> {
  const out: SyncReport[] = []
  for (const id of await lookup.linkedLayers()) {
    if (runningOf(lookup).has(id)) continue
    const report = await syncRound(lookup, host, id).catch((err: unknown) => {
      // Running in another process (the cross-process guard): skipped, as one running here is.
      if (err instanceof ApiError && err.exception === SYNC_RUNNING) return undefined
      throw err
    }).catch((err) => ({ status: 'error', pushed: zeroCounts(), pulled: zeroCounts(),
      conflicts: 0, problems: [], started: '', finished: '', error: { title: errorOf(err).title, message: errorOf(err).message } } as SyncReport))
    if (report) out.push(report)
  }
  return out
}
