/**
 * @module sync/push
 * Sends local changes to the remote in one of its transactions (reference §12): new
 * features, changed ones with the remote version last seen as the lock (`vid`), deleted
 * ones, descriptions, attachments (files uploaded first). The transaction's id and its
 * operations are kept here before anything is sent: a push cut at any point — before the
 * commit, after it, before its results were read — is finished on the next try by asking the
 * remote what became of that transaction: committed (its results are read), not committed
 * (the same operations are sent again, which the remote takes as the same, then committed), or
 * unknown (nothing of it happened). A commit refused for a version conflict is disposed of;
 * the round then pulls (which records the conflict) and pushes the rest.
 */
import { fromBase64 } from '../core/bytes.ts'
import { readWkb } from '../geo/wkb.ts'
import { toWkt } from '../geo/wkt.ts'
import type { FeatureRead } from '../feature/types.ts'
import type { SyncContext } from './context.ts'
import { remoteFailed } from './errors.ts'
import { RemoteShape } from './remote-shape.ts'
import { localStates, remoteFields } from './state.ts'
import type { MapItem, PendingPush, PushedOp, ReplicaRead } from './types.ts'

/** Operations per PUT, as NextGIS Connect sends them. */
const PUT_BATCH = 1000

export type PushResult = 'none' | 'done' | 'retry'

/** An attachment whose file goes up before the transaction. */
interface Upload { op: PushedOp; blobId: string; name: string | null; mime: string; body: Record<string, unknown> }

/** The operations for what changed here; uploads are sent before they become payloads. */
async function plan(tx: FeatureRead, r: ReplicaRead, ctx: SyncContext): Promise<{ ops: PushedOp[]; uploads: Upload[] }> {
  const meta = ctx.replica.meta
  const { fieldMap, remoteVersioned } = ctx.state
  const ops: PushedOp[] = []
  const uploads: Upload[] = []
  const createdSeq = new Map<number, number>()
  const deleted = new Set<number>()
  let seq = 0
  const add = (op: Omit<PushedOp, 'seqnum' | 'payload'>, body: Record<string, unknown> | null) => {
    const pushed = { ...op, seqnum: body ? seq++ : -1, payload: body ? JSON.stringify(body) : null }
    ops.push(pushed)
    return pushed
  }
  const lock = (rvid: number | null) => (remoteVersioned && rvid !== null ? { vid: rvid } : {})
  const changes = await r.localChanges()
  const states = await localStates(tx, meta, changes.filter((c) => c.kind !== 'delete').map((c) => c.fid))
  for (const c of changes) {
    if (c.kind === 'create') {
      const s = states.get(c.fid)!
      createdSeq.set(c.fid, add({ kind: 'create', fid: c.fid, vid: c.vid },
        { action: 'feature.create', geom: s.geom, fields: remoteFields(s, meta, fieldMap) }).seqnum)
      continue
    }
    const m = c.mapping!
    if (c.kind === 'delete') {
      deleted.add(c.fid)
      add({ kind: 'delete', fid: c.fid, vid: c.vid }, { action: 'feature.delete', fid: m.rfid, ...lock(m.rvid) })
      continue
    }
    const s = states.get(c.fid)!
    if (c.kind === 'update') {
      add({ kind: 'update', fid: c.fid, vid: c.vid }, { action: 'feature.update', fid: m.rfid, ...lock(m.rvid), geom: s.geom,
        fields: remoteFields(s, meta, fieldMap) })
    }
    if (c.dvid !== m.dbase) add({ kind: 'description', fid: c.fid, vid: c.dvid }, { action: 'description.put', fid: m.rfid, value: s.description ?? null })
  }
  for (const a of await r.localAttachmentChanges()) {
    const fm = await r.mapping(a.fid)
    const fid = createdSeq.has(a.fid) ? { sn: createdSeq.get(a.fid)! } : fm && !deleted.has(a.fid) ? fm.rfid : undefined
    if (a.kind === 'delete') {
      // Gone with its feature there too, or still to send.
      add({ kind: 'attachment.delete', fid: a.fid, aid: a.aid, vid: a.vid },
        fid === undefined || !a.mapping ? null : { action: 'attachment.delete', fid, aid: a.mapping.raid })
      continue
    }
    const row = await tx.attachment(a.fid, a.aid)
    if (fid === undefined || !row) continue
    const attrs = { keyname: row.keyname, name: row.name, mime_type: row.mime_type, description: row.description }
    const body = a.kind === 'create' ? { action: 'attachment.create', fid, ...attrs }
      : { action: 'attachment.update', fid, aid: a.mapping!.raid, ...attrs }
    const op = add({ kind: a.kind === 'create' ? 'attachment.create' : 'attachment.update', fid: a.fid, aid: a.aid, vid: a.vid,
      fileobj: row.fileobj }, body)
    if (a.fileChanged) uploads.push({ op, blobId: row.blob_id, name: row.name, mime: row.mime_type, body })
  }
  return { ops, uploads }
}

/**
 * Applies a committed transaction's results here: mappings, locks, and what counts as sent.
 * The features' bookkeeping is worked out in memory from their mappings (read in one query) and
 * written in one call per kind, whatever the number of features: a push of 10,000 was three
 * statements per feature on PostgreSQL. Attachments go after (`plan` puts their operations
 * after the features', so they see the features' new mappings, as they did one by one).
 */
async function applyResults(ctx: SyncContext, pending: PendingPush, results: [number, Record<string, unknown>][]): Promise<void> {
  const bySeq = new Map(results.map(([s, v]) => [s, v]))
  const next = { ...ctx.state, push: null }
  const counts = { created: 0, updated: 0, deleted: 0, attachments: 0 }
  const featureOps = pending.ops.filter((op) => !op.kind.startsWith('attachment.'))
  await ctx.replica.write(async (_tx, r) => {
    const mappings = await r.mappingsOf([...new Set(featureOps.map((op) => op.fid))])
    /** The mappings to write, by fid (the last word on a fid wins, as the writes one by one did). */
    const mapped = new Map<number, MapItem>()
    const unmapped = new Set<number>()
    const map = (item: MapItem) => {
      mapped.set(item.fid, item)
      unmapped.delete(item.fid)
      mappings.set(item.fid, { fid: item.fid, rfid: item.rfid, rvid: item.rvid, base: item.at!.vid, dbase: item.at!.dvid!,
        rhash: item.rhash ?? mappings.get(item.fid)?.rhash ?? null })
    }
    for (const op of featureOps) {
      const res = bySeq.get(op.seqnum) ?? {}
      const m = mappings.get(op.fid)
      switch (op.kind) {
        case 'create': map({ fid: op.fid, rfid: Number(res.fid), rvid: null, rhash: null, at: { vid: op.vid, dvid: 0 } }); counts.created++; break
        case 'update': if (m) map({ fid: op.fid, rfid: m.rfid, rvid: m.rvid, rhash: null, at: { vid: op.vid, dvid: m.dbase } }); counts.updated++; break
        case 'delete': mapped.delete(op.fid); mappings.delete(op.fid); unmapped.add(op.fid); counts.deleted++; break
        case 'description': if (m) map({ fid: op.fid, rfid: m.rfid, rvid: m.rvid, rhash: null, at: { vid: m.base, dvid: op.vid } }); counts.updated++; break
      }
    }
    await r.unmapMany([...unmapped])
    await r.mapMany([...mapped.values()])
    for (const op of pending.ops) {
      if (!op.kind.startsWith('attachment.')) continue
      const res = bySeq.get(op.seqnum) ?? {}
      if (op.kind === 'attachment.delete') {
        await r.unmapAttachment(op.aid!)
        if (op.seqnum >= 0) counts.attachments++
        continue
      }
      const am = await r.attachmentMapping(op.aid!)
      const raid = op.kind === 'attachment.create' ? Number(res.aid) : am?.raid
      const rfileobj = res.fileobj === undefined ? am?.rfileobj ?? null : Number(res.fileobj)
      const fm = await r.mapping(op.fid)
      if (raid !== undefined && fm) await r.mapAttachment(op.aid!, raid, op.fid, rfileobj, { vid: op.vid, fileobj: op.fileobj ?? null })
      counts.attachments++
    }
    await r.setState(next)
  })
  ctx.state = next
  for (const k of Object.keys(counts) as (keyof typeof counts)[]) ctx.pushed[k] += counts[k]
}

async function setPending(ctx: SyncContext, push: PendingPush | null): Promise<void> {
  const next = { ...ctx.state, push }
  await ctx.replica.write((_tx, r) => r.setState(next))
  ctx.state = next
}

/** A transaction's results (`GET /feature/transaction/{id}`): a list of `[seqnum, object]`. */
function transactionResults(ctx: SyncContext, body: unknown): [number, Record<string, unknown>][] {
  const shape = new RemoteShape(ctx.client.creds.url, 'GET /feature/transaction/{id}')
  return shape.list(body).map((r, i) => {
    const pair = shape.list(r, `$[${i}]`)
    return [shape.int(pair[0], `$[${i}][0]`), shape.object(pair[1], `$[${i}][1]`)]
  })
}

/** Sends (again) the operations of `pending`, commits, reads the results. */
async function complete(ctx: SyncContext, pending: PendingPush): Promise<PushResult> {
  const item = ctx.path(`/feature/transaction/${pending.tid}`)
  const sent = pending.ops.filter((o) => o.seqnum >= 0)
  for (let i = 0; i < sent.length; i += PUT_BATCH) {
    await ctx.client.json('PUT', item, sent.slice(i, i + PUT_BATCH).map((o) => [o.seqnum, JSON.parse(o.payload!)]))
    ctx.progress({ stage: 'push', done: Math.min(i + PUT_BATCH, sent.length), total: sent.length })
  }
  const commit = await ctx.client.json('POST', item)
  if (commit.body?.status !== 'committed') {
    await ctx.client.json('DELETE', item, undefined, [404])
    await setPending(ctx, null)
    const errors = (commit.body?.errors ?? []) as [number, { error?: string }][]
    // A lock that failed or a feature gone there: the next pull finds out what changed.
    if (errors.length && errors.every(([, e]) => /conflict|not_found/.test(e?.error ?? ''))) return 'retry'
    throw remoteFailed(ctx.client.creds.url, 422, commit.body)
  }
  const results = transactionResults(ctx, (await ctx.client.json('GET', item)).body)
  await applyResults(ctx, pending, results)
  return 'done'
}

/**
 * A remote without the transaction API (older servers): plain feature writes, one request per
 * kind. Unlike a transaction, a create whose answer is lost cannot be told from one that
 * never happened (docs/sync.md).
 */
async function plainPush(ctx: SyncContext, ops: PushedOp[]): Promise<PushResult> {
  const col = ctx.path('/feature/')
  const sent = ops.filter((o) => o.seqnum >= 0)
  const body = (o: PushedOp) => JSON.parse(o.payload!) as Record<string, unknown>
  const keyed = (fields: unknown) => Object.fromEntries(((fields ?? []) as [number, unknown][])
    .map(([rid, v]) => [ctx.remoteKeynameOf(rid), v]).filter(([k]) => k !== undefined))
  const features = sent.filter((o) => o.kind === 'create' || o.kind === 'update' || o.kind === 'description')
  const patch = features.map((o) => {
    const b = body(o)
    if (o.kind === 'description') return { id: b.fid, extensions: { description: b.value } }
    const geom = typeof b.geom === 'string' ? toWkt(readWkb(fromBase64(b.geom))) : null
    return { ...(o.kind === 'update' ? { id: b.fid } : {}), geom, fields: keyed(b.fields) }
  })
  const results: [number, Record<string, unknown>][] = []
  if (patch.length) {
    const shape = new RemoteShape(ctx.client.creds.url, `PATCH ${col}`)
    const ids = shape.objects((await ctx.client.json('PATCH', `${col}?geom_null=true&dt_format=iso`, patch)).body)
    features.forEach((o, i) => results.push([o.seqnum, { fid: shape.int(ids[i]?.id, `$[${i}].id`) }]))
  }
  const deletes = sent.filter((o) => o.kind === 'delete').map((o) => ({ id: body(o).fid }))
  if (deletes.length) await ctx.client.json('DELETE', col, deletes)
  for (const o of sent.filter((x) => x.kind.startsWith('attachment.') && x.kind !== 'attachment.delete')) {
    const b = body(o)
    const rfid = typeof b.fid === 'object' ? results.find(([s]) => s === (b.fid as { sn: number }).sn)?.[1].fid : b.fid
    const path = ctx.path(`/feature/${rfid}/attachment/${o.kind === 'attachment.create' ? '' : b.aid}`)
    const att = { name: b.name, keyname: b.keyname, mime_type: b.mime_type, description: b.description,
      ...(b.source ? { file_upload: { id: (b.source as { id: string }).id } } : {}) }
    const method = o.kind === 'attachment.create' ? 'POST' : 'PUT'
    const shape = new RemoteShape(ctx.client.creds.url, `${method} ${path}`)
    results.push([o.seqnum, { aid: shape.int(shape.object((await ctx.client.json(method, path, att)).body).id, '$.id') }])
  }
  for (const o of sent.filter((x) => x.kind === 'attachment.delete')) {
    const b = body(o)
    await ctx.client.json('DELETE', ctx.path(`/feature/${b.fid}/attachment/${b.aid}`), undefined, [404])
  }
  await applyResults(ctx, { tid: 0, ops }, results)
  return 'done'
}

/** Finishes a push an earlier round left open (its fate asked of the remote). */
export async function resumePush(ctx: SyncContext): Promise<void> {
  const pending = ctx.state.push
  if (!pending) return
  const res = await ctx.client.json('GET', ctx.path(`/feature/transaction/${pending.tid}`), undefined, [404, 422])
  if (res.status === 200) return applyResults(ctx, pending, transactionResults(ctx, res.body))
  if (res.status === 404) return setPending(ctx, null)
  await complete(ctx, pending)
}

/** Pushes what changed here since the last sync. */
/**
 * Before a push uploads attachment files, asks the remote whether this account may write the
 * layer (its effective permissions, reference ngw-services §5.7): a refused push used to upload
 * them first and leave them there to expire. A refusal throws as the remote's 403 to the
 * transaction would (the round keeps the changes waiting). A remote that does not answer the
 * question (404: an older server) or answers something else is asked by the push itself.
 */
async function requireWrite(ctx: SyncContext): Promise<void> {
  const res = await ctx.client.json('GET', ctx.path('/permission'), undefined, [404])
  const data = res.status === 200 && res.body && typeof res.body === 'object' ? (res.body as { data?: { write?: unknown } }).data : undefined
  if (data?.write === false) throw remoteFailed(ctx.client.creds.url, 403, null)
}

export async function push(ctx: SyncContext): Promise<PushResult> {
  const { ops, uploads } = await ctx.replica.read(async (tx, r) => plan(tx, r, ctx))
  if (!ops.length) return 'none'
  if (uploads.length) await requireWrite(ctx)
  for (const u of uploads) {
    const bytes = await ctx.platform.blobs.getBlob(u.blobId) ?? new Uint8Array(0)
    u.body.source = { type: 'file_upload', id: await ctx.client.upload(bytes, u.name, u.mime) }
    u.op.payload = JSON.stringify(u.body)
  }
  const start = await ctx.client.json('POST', ctx.path('/feature/transaction/'),
    ctx.state.remoteVersioned ? { epoch: ctx.state.remoteEpoch } : {}, ctx.state.remoteVersioned ? [404] : [404, 422])
  // 404: a server without the transaction API; 422 from a layer without versions: a layer that
  // keeps no transactions (an Outpost PostGIS layer, whose table is written directly).
  if (start.status === 404 || start.status === 422) return plainPush(ctx, ops)
  const shape = new RemoteShape(ctx.client.creds.url, 'POST /feature/transaction/')
  const pending: PendingPush = { tid: shape.int(shape.object(start.body).id, '$.id'), ops }
  // Kept before anything of it is sent: a retry finds this transaction, never makes a second.
  await setPending(ctx, pending)
  return complete(ctx, pending)
}
