/**
 * @module feature/transaction/service
 * Committing a transaction (reference §12): every operation is checked against the layer
 * first (features and attachments exist, their versions are the ones the client saw — the
 * optimistic lock), and only when none fails are they all applied, in sequence order, in one
 * durable layer write that also records the transaction as committed with its results. At
 * most 10 errors are reported; they stay with their operations until replaced.
 */
import type { HistoryRead } from '../history-types.ts'
import type { FeatureHistoryWrite, FeatureLayer, FeatureWrite } from '../types.ts'
import { addAttachment, changeAttachment, Staging, type StagedFile } from '../attachment/service.ts'
import type { WriteServices } from '../write.ts'
import { epochMismatch } from '../versioning/errors.ts'
import { changesFeature } from '../input.ts'
import { parseOperation, type Operation } from './ops.ts'

const ERROR_LIMIT = 10

/** The original's operation errors (`feature_layer/transaction/operation.py`). */
const ERRORS = {
  'feature.not_found': [404, 'Feature not found'],
  'feature.conflict': [409, 'Feature version conflict'],
  'attachment.not_found': [404, 'Attachment not found'],
  'attachment.conflict': [409, 'Attachment version conflict'],
  'description.conflict': [409, 'Description version conflict'],
  'invalid_seqnum': [422, 'Invalid sequence number'],
  'versioning_required': [422, 'Feature versioning is required for this operation'],
} as const

type ErrorName = keyof typeof ERRORS

class OperationError extends Error {
  constructor(readonly error: ErrorName) {
    super(error)
  }

  json(): string {
    const [status_code, message] = ERRORS[this.error]
    return JSON.stringify({ error: this.error, status_code, message })
  }
}

export type CommitResult = { status: 'committed'; committed: string } | { status: 'errors'; errors: [number, unknown][] }

/** The feature an operation addresses; `{sn}` refers to a `feature.create` of this transaction. */
async function featureOf(op: Operation, creates: Set<number>, tx: FeatureWrite, h: HistoryRead): Promise<void> {
  if (op.fid === undefined) return
  if (typeof op.fid === 'object') {
    if (!creates.has(op.fid.sn)) throw new OperationError('invalid_seqnum')
    return
  }
  if (!await tx.exists(op.fid)) {
    const record = await h.featureVersion(op.fid)
    if (op.action !== 'feature.restore' || !record) throw new OperationError('feature.not_found')
  }
}

/** Checks one operation against the layer as it is now. */
async function prepare(op: Operation, seqnum: number, creates: Set<number>, tx: FeatureWrite, h: FeatureHistoryWrite,
  versioned: boolean): Promise<void> {
  await featureOf(op, creates, tx, h)
  if (op.action === 'feature.create') { creates.add(seqnum); return }
  const fid = op.fid as number
  if (op.action.startsWith('feature.')) {
    if (op.action === 'feature.restore' && !versioned) throw new OperationError('versioning_required')
    if (op.vid !== undefined && !versioned) throw new OperationError('versioning_required')
    const record = await h.featureVersion(fid)
    if (op.action === 'feature.restore' && !record?.deleted) throw new OperationError('feature.conflict')
    if (op.vid !== undefined && record?.vid !== op.vid) throw new OperationError('feature.conflict')
    return
  }
  if (op.action.startsWith('attachment.')) {
    if (op.aid !== undefined && !await tx.attachment(fid, op.aid)) throw new OperationError('attachment.not_found')
    if (op.vid !== undefined) {
      if (!versioned) throw new OperationError('versioning_required')
      if ((await h.attachmentVersion(fid, op.aid!))?.vid !== op.vid) throw new OperationError('attachment.conflict')
    }
    return
  }
  if (op.vid !== undefined) {
    if (!versioned) throw new OperationError('versioning_required')
    if ((await h.descriptionVersion(fid))?.vid !== op.vid) throw new OperationError('description.conflict')
  }
}

/** Applies one checked operation; returns its result JSON. */
async function execute(op: Operation, created: Map<number, number>, tx: FeatureWrite, h: FeatureHistoryWrite,
  staged: Map<Operation, StagedFile>): Promise<unknown> {
  const fid = typeof op.fid === 'object' ? created.get(op.fid.sn)! : op.fid!
  switch (op.action) {
    case 'feature.create': return { action: op.action, fid: await tx.create(op.input!) }
    case 'feature.update': await tx.update(fid, op.input!); return { action: op.action }
    case 'feature.delete': await tx.delete(fid); return { action: op.action }
    case 'feature.restore': await h.restore(fid, op.input!); return { action: op.action }
    case 'description.put':
      await tx.update(fid, { fields: [], values: [], description: op.description ?? null })
      return { action: op.action }
    case 'attachment.delete': await tx.removeAttachment((await tx.attachment(fid, op.aid!))!); return { action: op.action }
  }
  const file = staged.get(op)
  if (op.action === 'attachment.create') {
    const aid = await addAttachment(tx, fid, {}, file!)
    // The operation's attributes win over the upload's (the original copies them last).
    if (Object.keys(op.attrs!).length) await tx.changeAttachment((await tx.attachment(fid, aid))!, op.attrs!)
    return { action: op.action, aid, fileobj: (await tx.attachment(fid, aid))!.fileobj }
  }
  const row = (await tx.attachment(fid, op.aid!))!
  await changeAttachment(tx, row, {}, file)
  if (Object.keys(op.attrs!).length) await tx.changeAttachment((await tx.attachment(fid, op.aid!))!, op.attrs!)
  return file ? { action: op.action, fileobj: (await tx.attachment(fid, op.aid!))!.fileobj } : { action: op.action }
}

/**
 * Commits transaction `tid` of `layer` (already found to be the caller's). A transaction
 * committed before answers as it did then.
 */
export async function commitTransaction(services: WriteServices, layer: FeatureLayer, tid: number, userId: number,
  now: string): Promise<CommitResult> {
  const { record, ops } = await layer.read(async (tx) => ({
    record: (await tx.history!.transaction(tid))!, ops: await tx.history!.transactionOps(tid) }))
  if (record.committed) return { status: 'committed', committed: record.committed }
  const parsed = ops.map((o) => ({ seqnum: o.seqnum, error: o.error, op: parseOperation(JSON.parse(o.payload), layer.meta, '$') }))
  // Uploads become blobs before the write; they are deleted again unless it commits.
  const staging = new Staging(services, layer.meta.resourceId)
  const staged = new Map<Operation, StagedFile>()
  return staging.commit(async () => {
    for (const { op } of parsed) if (op.upload) staged.set(op, await staging.stage({ file_upload: { id: op.upload } }, '$.source'))
    let orphans: readonly string[] = []
    let applied = false
    const result = await layer.write(async (tx): Promise<CommitResult> => {
      const h = tx.historyWrite!
      const current = (await h.transaction(tid))!
      if (current.committed) return { status: 'committed', committed: current.committed }
      const state = await h.versioning()
      if ((state?.epoch ?? null) !== current.epoch && current.epoch !== null) throw epochMismatch()
      const kept = parsed.filter((p) => p.error).map((p) => [p.seqnum, JSON.parse(p.error!)] as [number, unknown])
      if (kept.length) return { status: 'errors', errors: kept.slice(0, ERROR_LIMIT) }
      const errors: [number, string][] = []
      const creates = new Set<number>()
      for (const { seqnum, op } of parsed) {
        try {
          await prepare(op, seqnum, creates, tx, h, !!state)
        } catch (err) {
          if (!(err instanceof OperationError)) throw err
          errors.push([seqnum, err.json()])
          if (errors.length >= ERROR_LIMIT) break
        }
      }
      if (errors.length) {
        await h.setTransactionErrors(tid, errors)
        return { status: 'errors', errors: errors.map(([s, e]) => [s, JSON.parse(e)]) }
      }
      await h.beforeUpdates(parsed.flatMap(({ op }) => op.action === 'feature.update' && typeof op.fid === 'number'
        && changesFeature(op.input!) ? [op.fid] : []))
      const created = new Map<number, number>()
      const results: [number, string][] = []
      for (const { seqnum, op } of parsed) {
        const r = await execute(op, created, tx, h, staged) as { fid?: number }
        if (op.action === 'feature.create') created.set(seqnum, r.fid!)
        results.push([seqnum, JSON.stringify(r)])
      }
      await h.commitTransaction(tid, now, results)
      orphans = tx.orphanBlobs
      applied = true
      return { status: 'committed', committed: now }
    }, { userId })
    if (!applied) await staging.discard()
    for (const id of orphans) await services.data.blobs.deleteBlob(id).catch(() => undefined)
    return result
  })
}
