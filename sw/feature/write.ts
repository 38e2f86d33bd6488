/**
 * @module feature/write
 * A feature write as the API makes it: the files that `extensions.attachment` items name are
 * staged first, then everything runs in one durable transaction of the layer (all of it or
 * none), and the blobs it left without a row are deleted once it has committed.
 */
import type { Platform } from '../platform/platform.ts'
import type { UploadServices } from '../upload/env.ts'
import { featureNotFound } from './errors.ts'
import { hasUpload, parseFields, replaceAttachments, Staging } from './attachment/service.ts'
import type { FeatureInput, FeatureLayer, FeatureUpdate, FeatureWrite } from './types.ts'
import { replayed, type KeyedRequest, type PastRequest } from '../core/idempotency.ts'

/** The writes a request makes; absent features are the original's 404. */
export class FeatureWriter {
  /** Lists of new features, applied once the batch's features exist. */
  #lists: [number, Record<string, unknown>[]][] = []

  constructor(readonly tx: FeatureWrite, readonly layer: FeatureLayer, readonly staging: Staging | undefined) {}

  async create(input: FeatureInput): Promise<number> {
    const [fid] = await this.createMany([input])
    return fid!
  }

  /** New features in one call to the layer (a PATCH's run of creates): their fids, in order. */
  async createMany(inputs: readonly FeatureInput[]): Promise<number[]> {
    const fids = await this.tx.createMany(inputs)
    inputs.forEach((input, i) => { if (input.attachment?.length) this.#lists.push([fids[i]!, input.attachment]) })
    return fids
  }

  async update(fid: number, input: FeatureInput): Promise<void> {
    await this.updateMany([{ fid, input }])
  }

  /**
   * Changed features in one call to the layer (a PATCH's run of updates); the first absent one
   * is the 404 (the write is rolled back whole). Attachment lists go after the run: each only
   * touches its own feature's attachments, in the run's order.
   */
  async updateMany(items: readonly FeatureUpdate[]): Promise<void> {
    const found = await this.tx.updateMany(items)
    const missing = found.indexOf(false)
    if (missing >= 0) throw featureNotFound(this.layer.meta.resourceId, items[missing]!.fid)
    for (const { fid, input } of items) {
      if (input.attachment !== undefined) await replaceAttachments(this.tx, fid, input.attachment, this.staging)
    }
  }

  async delete(fid: number): Promise<void> {
    if (!await this.tx.delete(fid)) throw featureNotFound(this.layer.meta.resourceId, fid)
  }

  deleteAll(): Promise<void> {
    return this.tx.deleteAll()
  }

  /** Applies the attachment lists of the features created in this write. */
  async finish(): Promise<void> {
    for (const [fid, items] of this.#lists.splice(0)) await replaceAttachments(this.tx, fid, items, this.staging)
  }
}

export interface WriteServices extends UploadServices {
  platform: Platform
}

export interface WriteFeaturesOptions {
  /** Files a caller staged. */
  staging?: Staging
  /** Who writes: recorded with the version a versioned layer gets. */
  userId?: number
  /** The request's `Idempotency-Key` and what identifies the request (`feature/idempotency.ts`). */
  request?: KeyedRequest
}

/** What a write returned, and the version it made (versioned layers that changed). */
export interface Written<T> {
  result: T
  version: number | undefined
  /** The recorded answer of an earlier run with the same `Idempotency-Key`: nothing was written. */
  replayed?: true
}

/**
 * Runs `fn` with a writer inside one durable layer transaction; returns its result. `inputs`
 * are the parsed bodies whose `extensions.attachment` files are staged beforehand (attribute
 * types are checked before anything is copied).
 */
export async function writeFeatures<T>(services: WriteServices, layer: FeatureLayer, inputs: FeatureInput[],
  fn: (w: FeatureWriter) => Promise<T>, opts: WriteFeaturesOptions = {}): Promise<Written<T>> {
  const keyed = opts.request
  if (keyed) {
    // A replay answers before anything is staged: the first run consumed the uploads.
    const past = await layer.read(async (tx) => tx.pastRequest?.(keyed.key))
    if (past) return { ...replayed(past, keyed) as Written<T>, replayed: true as const }
  }
  let staging = opts.staging
  const items: [Record<string, unknown>, string][] = []
  inputs.forEach((input) => input.attachment?.forEach((a, i) => {
    const path = `$.extensions.attachment[${i}]`
    parseFields(a, path)
    if (hasUpload(a)) items.push([a, path])
  }))
  if (items.length) staging ??= new Staging(services, layer.meta.resourceId)
  const run = async () => {
    for (const [a, path] of items) await staging!.stage(a, path)
    let orphans: readonly string[] = []
    let written: FeatureWrite | undefined
    const out = await layer.write(async (tx): Promise<{ result: T } | { past: PastRequest }> => {
      // Checked again inside the write: a replay may have queued behind the first run.
      const past = keyed && await tx.pastRequest?.(keyed.key)
      if (past) return { past }
      const w = new FeatureWriter(tx, layer, staging)
      const r = await fn(w)
      await w.finish()
      if (keyed) tx.recordRequest?.(keyed.key, keyed.fingerprint, () => JSON.stringify({ result: r, version: tx.historyWrite?.version }))
      orphans = tx.orphanBlobs
      written = tx
      return { result: r }
    }, { userId: opts.userId })
    if ('past' in out) return { ...replayed(out.past, keyed!) as Written<T>, replayed: true as const }
    // Blobs go only after the commit: a rolled-back delete must still find its files.
    for (const id of orphans) await services.data.blobs.deleteBlob(id).catch(() => undefined)
    // Read after the commit: creates are queued until the layer finishes the write.
    return { result: out.result, version: written?.historyWrite?.version }
  }
  return staging ? staging.commit(run) : run()
}
