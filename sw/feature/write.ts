/**
 * @module feature/write
 * A feature write as the API makes it: the files that `extensions.attachment` items name are
 * staged first, then everything runs in one durable transaction of the layer (all of it or
 * none), and the blobs it left without a row are deleted once it has committed.
 */
import type { Platform } from '../platform/platform.ts'
import type { UploadServices } from '../upload/types.ts'
import { featureNotFound } from './errors.ts'
import { hasUpload, parseFields, replaceAttachments, Staging } from './attachment/service.ts'
import type { FeatureInput, FeatureLayer, FeatureWrite } from './types.ts'

/** The writes a request makes; absent features are the original's 404. */
export class FeatureWriter {
  /** Lists of new features, applied once the batch's features exist. */
  #lists: [number, Record<string, unknown>[]][] = []

  constructor(readonly tx: FeatureWrite, readonly layer: FeatureLayer, readonly staging: Staging | undefined) {}

  create(input: FeatureInput): number {
    const fid = this.tx.create(input)
    if (input.attachment?.length) this.#lists.push([fid, input.attachment])
    return fid
  }

  update(fid: number, input: FeatureInput): void {
    if (!this.tx.update(fid, input)) throw featureNotFound(this.layer.meta.resourceId, fid)
    if (input.attachment !== undefined) replaceAttachments(this.tx, fid, input.attachment, this.staging)
  }

  delete(fid: number): void {
    if (!this.tx.delete(fid)) throw featureNotFound(this.layer.meta.resourceId, fid)
  }

  deleteAll(): void {
    this.tx.deleteAll()
  }

  /** Applies the attachment lists of the features created in this write. */
  finish(): void {
    for (const [fid, items] of this.#lists.splice(0)) replaceAttachments(this.tx, fid, items, this.staging)
  }
}

export interface WriteServices extends UploadServices {
  platform: Platform
}

/**
 * Runs `fn` with a writer inside one durable layer transaction; returns its result. `inputs`
 * are the parsed bodies whose `extensions.attachment` files are staged beforehand (attribute
 * types are checked before anything is copied); `staging` carries files a caller staged.
 */
export async function writeFeatures<T>(services: WriteServices, layer: FeatureLayer, inputs: FeatureInput[],
  fn: (w: FeatureWriter) => T, staging?: Staging): Promise<T> {
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
    const result = await layer.write((tx) => {
      const w = new FeatureWriter(tx, layer, staging)
      const r = fn(w)
      w.finish()
      orphans = tx.orphanBlobs
      return r
    })
    // Blobs go only after the commit: a rolled-back delete must still find its files.
    for (const id of orphans) await services.platform.store.deleteBlob(id).catch(() => undefined)
    return result
  }
  return staging ? staging.commit(run) : run()
}
