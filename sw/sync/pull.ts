/**
 * @module sync/pull
 * Brings the remote's changes in. A remote that keeps versions is read through its changes
 * feed (reference §12) from the version last pulled: pages are applied in batches, each in
 * one local write that also records where the feed stands, so a pull cut off (network gone,
 * worker stopped) goes on from its last batch. A remote without versions (or whose history
 * was reset) is read whole and compared feature by feature with what was last seen.
 */
import { toBase64 } from '../core/bytes.ts'
import { parseWkt } from '../geo/wkt.ts'
import { toWkb } from '../geo/wkb.ts'
import type { AttachmentFields, AttachmentFile } from '../feature/types.ts'
import type { SyncContext } from './context.ts'
import { remoteIncompatible, remoteFailed } from './errors.ts'
import { applyAttachment, applyFeatures, type RemoteAttachmentChange, type RemoteFeatureChange } from './pull-apply.ts'
import { createdState, stateHash, withChanges } from './state.ts'
import type { FeatureState, LinkState } from './types.ts'
import { RemoteShape } from './remote-shape.ts'

/** Operations applied per local write (a batch of feed pages). */
const BATCH_OPS = 2000
/** Features per page when reading a remote layer whole. */
const SCAN_PAGE = 2000

type Op = Record<string, any> // reason: remote JSON, read field by field

/** A feature as the remote's feature API serializes it (`dt_format=iso`), as a state. */
function featureState(ctx: SyncContext, f: Op): FeatureState {
  const fields: Record<string, unknown> = Object.fromEntries(ctx.replica.meta.fields.map((x) => [x.keyname, null]))
  for (const [k, v] of Object.entries((f.fields ?? {}) as Record<string, unknown>)) {
    const local = ctx.byRid.get(ctx.remoteKeynames.get(k) ?? -1)
    if (local) fields[local.keyname] = v
  }
  const geom = typeof f.geom === 'string' ? toBase64(toWkb(parseWkt(f.geom))) : null
  return { geom, fields, description: f.extensions?.description ?? null }
}

/** `featureState`, or why the remote feature cannot be read (it becomes a problem of that feature when applied). */
function remoteState(ctx: SyncContext, f: Op): FeatureState | Error {
  try {
    return featureState(ctx, f)
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err))
  }
}

/** Stores a remote attachment file as a blob of this layer; returns it as an attachment file. */
async function download(ctx: SyncContext, rfid: number, raid: number, fileobj: number | null, staged: string[]): Promise<AttachmentFile> {
  const q = fileobj === null ? '' : `?fileobj=${fileobj}`
  const bytes = await ctx.client.bytes(ctx.path(`/feature/${rfid}/attachment/${raid}/download${q}`))
  const r = crypto.getRandomValues(new Uint8Array(8))
  const blobId = `attachment-${ctx.replica.meta.resourceId}-${Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('')}`
  await ctx.platform.blobs.putBlob(blobId, bytes)
  staged.push(blobId)
  return { blobId, size: bytes.length, fileMeta: {} }
}

function attrsOf(op: Op): AttachmentFields {
  const out: AttachmentFields = {}
  for (const k of ['keyname', 'name', 'mime_type', 'description'] as const) if (k in op) out[k] = op[k] ?? null
  if (out.mime_type === null) delete out.mime_type
  return out
}

/**
 * Applies one batch in one local write, with the state the link is in afterwards. Files are
 * fetched before the write; those it did not use (or all, when it failed) are deleted.
 */
async function applyBatch(ctx: SyncContext, features: RemoteFeatureChange[], attachments: RemoteAttachmentChange[],
  staged: string[], next: LinkState): Promise<void> {
  const used = new Set<string>()
  let ok = false
  try {
    await ctx.replica.write(async (tx, r) => {
      await applyFeatures(tx, r, ctx, features)
      for (const ch of attachments) if (await applyAttachment(tx, r, ctx, ch)) used.add(ch.file!.blobId)
      await r.setState(next)
    })
    ctx.state = next
    ok = true
  } finally {
    // Files an attachment now has stay; the rest go (a failed write keeps none).
    for (const b of staged) if (!ok || !used.has(b)) await ctx.platform.blobs.deleteBlob(b).catch(() => undefined)
  }
}

/** The feature changes and attachment changes of a batch of feed operations. */
async function fromFeed(ctx: SyncContext, ops: Op[], staged: string[]) {
  const byFid = new Map<number, { fop?: Op; dop?: Op }>()
  const atts: Op[] = []
  for (const op of ops) {
    const a = String(op.action)
    if (a.startsWith('attachment.')) { atts.push(op); continue }
    const rfid = Number(op.fid)
    const e = byFid.get(rfid) ?? {}
    if (a === 'description.put') e.dop = op
    else e.fop = op
    byFid.set(rfid, e)
  }
  // One query each for the page's features and attachments (a round trip per row costs on a database server).
  const known = await ctx.replica.read(async (_tx, r) => ({
    fids: new Map([...await r.localsOf([...byFid.keys()])].map(([rfid, l]) => [rfid, l.mapping])),
    problems: new Map((await r.problems()).map((p) => [p.rfid, p.fid])),
    atts: await r.localAttachmentsOf(atts.map((op) => Number(op.aid))) }))
  const features: RemoteFeatureChange[] = []
  for (const [rfid, { fop, dop }] of byFid) {
    const m = known.fids.get(rfid)
    // Where the operation alone does not say the whole state, the remote is asked for it: a
    // feature whose last state there could not be taken here has no base to apply changes to.
    const partial = !m || !m.base || known.problems.has(rfid)
    const needFull = !!fop && (fop.action === 'feature.restore' || (fop.action === 'feature.update' && partial))
      || (!fop && !!dop && partial)
    // A feature that never came here (its creation was a problem) left its attachments behind too.
    const unborn = known.problems.get(rfid) === null
    const body = needFull ? await ctx.client.get(ctx.path(`/feature/${rfid}?dt_format=iso&extensions=description${unborn ? ',attachment' : ''}`)) : undefined
    const full = body && remoteState(ctx, body)
    for (const a of (unborn && full && !(full instanceof Error) ? body.extensions?.attachment ?? [] : []) as Op[]) {
      if (!atts.some((op) => Number(op.aid) === Number(a.id))) atts.push({ ...a, action: 'attachment.create', fid: rfid, aid: a.id })
    }
    const rvid = Number(fop?.vid ?? dop?.vid ?? NaN)
    features.push({ rfid, rvid: Number.isNaN(rvid) ? null : rvid, remote: (base) => {
      if (fop?.action === 'feature.delete') return null
      if (full instanceof Error) throw full
      let s = full ?? (fop?.action === 'feature.create' ? createdState(fop, ctx.replica.meta, ctx.byRid)
        : withChanges(base!, fop ?? {}, ctx.byRid))
      if (!full && base && fop?.action === 'feature.create') s = { ...s, description: base.description ?? null }
      if (dop) s = { ...s, description: dop.value ?? null }
      return s
    } })
  }
  const attachments: RemoteAttachmentChange[] = []
  for (const op of atts) {
    const action = String(op.action).slice(11) === 'restore' ? 'create' : String(op.action).slice(11) as RemoteAttachmentChange['action']
    const rfid = Number(op.fid), raid = Number(op.aid)
    const am = known.atts.get(raid)
    const rfileobj = op.fileobj === undefined ? am?.rfileobj ?? null : Number(op.fileobj)
    const newFile = action !== 'delete' && (am ? op.fileobj !== undefined && rfileobj !== am.rfileobj : true)
    attachments.push({ action, rfid, raid, rfileobj, attrs: attrsOf(op),
      file: newFile ? await download(ctx, rfid, raid, rfileobj, staged) : undefined })
  }
  return { features, attachments }
}

/** Pulls through the changes feed; `false` when the remote's history was reset (read it whole). */
async function pullFeed(ctx: SyncContext): Promise<boolean> {
  let { pull } = ctx.state
  if (!pull) {
    const { remoteEpoch: epoch, remoteVersion: initial } = ctx.state
    const q = epoch === null ? '' : `epoch=${epoch}&initial=${initial}&`
    const res = await ctx.client.json('GET', ctx.path(`/feature/changes/check?${q}extensions=attachment,description`), undefined, [204, 422])
    if (res.status === 204) return true
    if (res.status === 422) {
      if (String(res.body?.exception ?? '').endsWith('FVersioningEpochMismatch')) return false
      throw remoteFailed(ctx.client.creds.url, 422, res.body)
    }
    const shape = new RemoteShape(ctx.client.creds.url, 'GET /feature/changes/check')
    const check = shape.object(res.body)
    const fields = new Set(shape.objects(check.fields, '$.fields').map((f, i) => shape.int(f.id, `$.fields[${i}].id`)))
    for (const rid of Object.values(ctx.state.fieldMap)) {
      if (!fields.has(rid)) throw remoteIncompatible('A field of the linked remote layer was deleted there; link the layer anew.')
    }
    ctx.state = { ...ctx.state, remoteEpoch: shape.int(check.epoch, '$.epoch'),
      pull: { target: shape.int(check.target, '$.target'), url: shape.string(check.fetch, '$.fetch') } }
    pull = ctx.state.pull!
  }
  let url: string | null = pull.url
  let ops: Op[] = []
  while (url) {
    const page = new RemoteShape(ctx.client.creds.url, 'a page of the changes feed').objects(await ctx.client.get(url))
    const done = page.length === 0
    if (!done) {
      const cont = page[page.length - 1]!
      if (cont.action !== 'continue' || typeof cont.url !== 'string') throw remoteIncompatible('A page of the remote changes feed did not end with a continue URL.')
      ops.push(...page.slice(0, -1))
      url = cont.url
    } else {
      url = null
    }
    if (done || ops.length >= BATCH_OPS) {
      const staged: string[] = []
      const { features, attachments } = await fromFeed(ctx, ops, staged)
      const next: LinkState = url ? { ...ctx.state, pull: { target: pull.target, url } }
        : { ...ctx.state, remoteVersion: pull.target, pull: null }
      await applyBatch(ctx, features, attachments, staged, next)
      ctx.progress({ stage: 'pull', done: ctx.pulled.created + ctx.pulled.updated + ctx.pulled.deleted, total: null })
      ops = []
    }
  }
  return true
}

/** Reads the remote layer whole and compares it with what was last seen (remotes without versions). */
async function pullScan(ctx: SyncContext, adopt?: { epoch: number; latest: number }): Promise<void> {
  const seen = new Set<number>()
  const seenAtts = new Set<number>()
  for (let offset = 0; ; offset += SCAN_PAGE) {
    const list = new RemoteShape(ctx.client.creds.url, 'a page of its features')
      .objects(await ctx.client.get(ctx.path(`/feature/?dt_format=iso&extensions=attachment,description&limit=${SCAN_PAGE}&offset=${offset}`)))
    const staged: string[] = []
    const { known, knownAtts } = await ctx.replica.read(async (_tx, r) => ({
      known: new Map([...await r.localsOf(list.map((f) => Number(f.id)))].map(([rfid, l]) => [rfid, l.mapping])),
      knownAtts: await r.localAttachmentsOf(list.flatMap((f) => (f.extensions?.attachment ?? []) as Op[]).map((a) => Number(a.id))) }))
    const features: RemoteFeatureChange[] = []
    const attachments: RemoteAttachmentChange[] = []
    for (const f of list) {
      const rfid = Number(f.id)
      seen.add(rfid)
      const state = remoteState(ctx, f)
      if (state instanceof Error) {
        features.push({ rfid, rvid: null, remote: () => { throw state } })
      } else {
        const rhash = stateHash(state)
        if (known.get(rfid)?.rhash !== rhash) features.push({ rfid, rvid: f.vid ?? null, rhash, remote: () => state })
      }
      for (const a of (f.extensions?.attachment ?? []) as Op[]) {
        seenAtts.add(Number(a.id))
        if (knownAtts.get(Number(a.id))) continue
        attachments.push({ action: 'create', rfid, raid: Number(a.id), rfileobj: null, attrs: attrsOf(a),
          file: await download(ctx, rfid, Number(a.id), null, staged) })
      }
    }
    await applyBatch(ctx, features, attachments, staged, ctx.state)
    if (list.length < SCAN_PAGE) break
  }
  // What the remote no longer has was deleted there (a problem of a feature that never came here goes with it).
  const gone = await ctx.replica.read(async (_tx, r) => ({
    features: [...new Set([...(await r.mappings()).map((m) => m.rfid), ...(await r.problems()).map((p) => p.rfid)])].filter((rfid) => !seen.has(rfid))
      .map((rfid): RemoteFeatureChange => ({ rfid, rvid: null, remote: () => null })),
    attachments: (await r.attachmentMappings()).filter((a) => !seenAtts.has(a.raid)).map((a): RemoteAttachmentChange =>
      ({ action: 'delete', rfid: -1, raid: a.raid, rfileobj: null, attrs: {} })) }))
  await applyBatch(ctx, gone.features, gone.attachments, [],
    adopt ? { ...ctx.state, remoteEpoch: adopt.epoch, remoteVersion: adopt.latest, pull: null } : ctx.state)
}

/** Pulls everything new from the remote layer. */
export async function pull(ctx: SyncContext): Promise<void> {
  if (ctx.state.remoteVersioned) {
    if (await pullFeed(ctx)) return
    // The remote's history was reset: compare whole, then follow its new history.
    const shape = new RemoteShape(ctx.client.creds.url, `GET ${ctx.path()}`)
    const v = shape.object(shape.object(shape.object(await ctx.client.get(ctx.path())).feature_layer, '$.feature_layer').versioning,
      '$.feature_layer.versioning')
    await pullScan(ctx, { epoch: shape.int(v.epoch, '$.feature_layer.versioning.epoch'), latest: shape.int(v.latest, '$.feature_layer.versioning.latest') })
    return
  }
  await pullScan(ctx)
}
