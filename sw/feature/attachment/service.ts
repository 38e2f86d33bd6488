/**
 * @module feature/attachment/service
 * Feature attachments (reference §6): bytes in the store as one blob each, rows kept by the
 * layer (the feature-layer capability's attachment operations). A write first copies the
 * referenced uploads into new blobs ("staging"), then changes the rows in one layer
 * transaction; blobs staged for a write that fails are deleted, and blobs of replaced or
 * deleted attachments only after the commit.
 */
import { expectKind, locationOf } from '../../core/validate.ts'
import { validationError } from '../../core/error.ts'
import { isMediaType } from '../../core/media-type.ts'
import { readUpload, resolveUploadRef } from '../../upload/service.ts'
import type { UploadServices } from '../../upload/env.ts'
import type { AttachmentFields, AttachmentFile, FeatureWrite } from '../types.ts'
import { readExif } from './image.ts'
import { attachmentNotOfFeature, fileUploadRequired, keynameNotUnique } from './errors.ts'

/** An upload copied into a blob of its own, not yet referenced by any row. */
export interface StagedFile extends AttachmentFile {
  name?: string
  mimeType?: string
}

/** The type of an attachment whose upload and body name none. */
const DEFAULT_MIME = 'application/octet-stream'

/** Checks the attribute members of an attachment body (POST, PUT or an extension item). */
export function parseFields(body: Record<string, unknown>, path: string): AttachmentFields {
  const f: AttachmentFields = {}
  for (const key of ['name', 'keyname', 'description'] as const) {
    if (body[key] !== undefined) f[key] = expectKind<string | null>('str', body[key], `${path}.${key}`, true)
  }
  if (body.mime_type !== undefined) {
    f.mime_type = expectKind<string>('str', body.mime_type, `${path}.mime_type`)
    if (!isMediaType(f.mime_type)) {
      throw validationError(`Not a media type: ${JSON.stringify(f.mime_type.slice(0, 80))} - at \`${path}.mime_type\``,
        { location: locationOf(`${path}.mime_type`) })
    }
  }
  return f
}

export const hasUpload = (body: Record<string, unknown>) => body.file_upload !== undefined && body.file_upload !== null

function blobName(resourceId: number): string {
  const r = crypto.getRandomValues(new Uint8Array(8))
  return `attachment-${resourceId}-${Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('')}`
}

/**
 * Copies the complete upload that `ref` names into a new blob of layer `resourceId` and reads
 * its EXIF timestamp. Throws the upload's 422s (`FileUploadNotFound`, `FileUploadNotCompleted`).
 */
async function stageFile(services: UploadServices, resourceId: number, ref: unknown, path: string): Promise<StagedFile> {
  const rec = await resolveUploadRef(services, ref, path)
  const bytes = await readUpload(services, rec.id)
  const staged: StagedFile = { blobId: blobName(resourceId), size: bytes.length, fileMeta: {} }
  if (rec.name) staged.name = rec.name
  if (rec.mime_type) staged.mimeType = rec.mime_type
  if (staged.mimeType === 'image/jpeg') {
    const { timestamp } = readExif(bytes)
    if (timestamp) staged.fileMeta.timestamp = timestamp
  }
  await services.data.blobs.putBlob(staged.blobId, bytes)
  return staged
}

/** Blobs written for one request: deleted again unless the request's write commits. */
export class Staging {
  readonly #files = new Map<object, StagedFile>()
  readonly #blobs: string[] = []

  constructor(readonly services: UploadServices, readonly resourceId: number) {}

  /** Stages the `file_upload` of `body` (a POST/PUT body or an extension item). */
  async stage(body: Record<string, unknown>, path: string): Promise<StagedFile> {
    const staged = await stageFile(this.services, this.resourceId, body.file_upload, `${path}.file_upload`)
    this.#blobs.push(staged.blobId)
    this.#files.set(body, staged)
    return staged
  }

  /** The file staged for `body`, if any. */
  fileOf(body: Record<string, unknown>): StagedFile | undefined {
    return this.#files.get(body)
  }

  async discard(): Promise<void> {
    const { platform, data } = this.services
    for (const b of this.#blobs.splice(0)) {
      await data.blobs.deleteBlob(b).catch((err) => platform.log(`Deleting blob ${b} failed`, err))
    }
  }

  /** Runs `write`; on failure deletes what was staged, so a failed request stores nothing. */
  async commit<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write()
    } catch (err) {
      await this.discard()
      throw err
    }
  }
}

/** The upload's name and type override the body's (reference §6). */
function merged(fields: AttachmentFields, file: StagedFile | undefined): AttachmentFields {
  const out = { ...fields }
  if (file?.name) out.name = file.name
  if (file?.mimeType) out.mime_type = file.mimeType
  return out
}

/** Adds an attachment of feature `fid` for a staged file; returns its id. */
export function addAttachment(w: FeatureWrite, fid: number, fields: AttachmentFields, file: StagedFile): Promise<number> {
  const f = merged(fields, file)
  return w.addAttachment(fid, { ...f, mime_type: f.mime_type ?? DEFAULT_MIME }, file)
}

/** Changes attachment `row`; a new file replaces the old one. */
export function changeAttachment(w: FeatureWrite, row: Parameters<FeatureWrite['changeAttachment']>[0],
  fields: AttachmentFields, file: StagedFile | undefined): Promise<void> {
  return w.changeAttachment(row, merged(fields, file), file)
}

/** 422 when two attachments of feature `fid` share a keyname. */
export async function checkKeynames(w: FeatureWrite, fid: number): Promise<void> {
  const seen = new Set<string>()
  for (const a of (await w.attachments([fid])).get(fid) ?? []) {
    if (a.keyname === null) continue
    if (seen.has(a.keyname)) throw keynameNotUnique(a.keyname)
    seen.add(a.keyname)
  }
}

/**
 * `extensions.attachment` (reference §5.5): the whole list. Items with `id` update that
 * attachment (a `file_upload` replaces its file), items without create one from their staged
 * `file_upload`, attachments not listed are deleted; `null` deletes all.
 */
export async function replaceAttachments(w: FeatureWrite, fid: number, items: Record<string, unknown>[] | null,
  staging: Staging | undefined): Promise<void> {
  const rows = new Map(((await w.attachments([fid])).get(fid) ?? []).map((r) => [r.id, r]))
  const keep = new Set<number>()
  for (const [i, a] of (items ?? []).entries()) {
    const path = `$.extensions.attachment[${i}]`
    const fields = parseFields(a, path)
    const file = staging?.fileOf(a)
    if (a.id === undefined || a.id === null) {
      if (!file) throw fileUploadRequired(path)
      await addAttachment(w, fid, fields, file)
      continue
    }
    const id = expectKind<number>('int', a.id, `${path}.id`)
    const row = rows.get(id)
    if (!row || keep.has(id)) throw attachmentNotOfFeature(id, fid, `${path}.id`)
    keep.add(id)
    await changeAttachment(w, row, fields, file)
  }
  for (const row of rows.values()) if (!keep.has(row.id)) await w.removeAttachment(row)
  await checkKeynames(w, fid)
}
