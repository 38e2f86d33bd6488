/**
 * @module feature/attachment-service
 * Feature attachments (reference §6): bytes in the store as one blob each, metadata in the
 * layer database's `feature_attachment`. A write first copies the referenced uploads into new
 * blobs ("staging"), then changes the rows in one layer transaction; blobs staged for a write
 * that fails are deleted, and blobs of replaced or deleted attachments only after the commit.
 */
import { expectKind, locationOf } from '../core/validate.ts'
import { validationError } from '../core/error.ts'
import { isMediaType } from '../core/media-type.ts'
import type { Services } from '../services.ts'
import type { SqlDb } from '../store/database.ts'
import { readUpload, resolveUploadRef } from '../upload/service.ts'
import { attachmentJson, type FeatureInput } from './service.ts'
import { readExif } from './attachment-image.ts'
import { attachmentNotOfFeature, fileUploadRequired, keynameNotUnique } from './attachment-errors.ts'

/** A row of `feature_attachment`. */
export interface AttachmentRow {
  id: number; fid: number; keyname: string | null; name: string | null; size: number; mime_type: string
  description: string | null; file_meta: string | null; blob_id: string
}

/** The writable attributes of an attachment; `undefined` members stay as they are. */
export interface AttachmentFields {
  name?: string | null
  keyname?: string | null
  mime_type?: string
  description?: string | null
}

/** An upload copied into a blob of its own, not yet referenced by any row. */
export interface StagedFile {
  blobId: string
  size: number
  name?: string
  mimeType?: string
  fileMeta: Record<string, unknown>
}

export const isImageMime = (mime: string) => mime === 'image/jpeg' || mime === 'image/png'

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

const hasUpload = (body: Record<string, unknown>) => body.file_upload !== undefined && body.file_upload !== null

function blobName(resourceId: number): string {
  const r = crypto.getRandomValues(new Uint8Array(8))
  return `attachment-${resourceId}-${Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('')}`
}

/**
 * Copies the complete upload that `ref` names into a new blob of layer `resourceId` and reads
 * its EXIF timestamp. Throws the upload's 422s (`FileUploadNotFound`, `FileUploadNotCompleted`).
 */
export async function stageFile(services: Services, resourceId: number, ref: unknown, path: string): Promise<StagedFile> {
  const rec = await resolveUploadRef(services, ref, path)
  const bytes = await readUpload(services, rec.id)
  const staged: StagedFile = { blobId: blobName(resourceId), size: bytes.length, fileMeta: {} }
  if (rec.name) staged.name = rec.name
  if (rec.mime_type) staged.mimeType = rec.mime_type
  if (staged.mimeType === 'image/jpeg') {
    const { timestamp } = readExif(bytes)
    if (timestamp) staged.fileMeta.timestamp = timestamp
  }
  await services.platform.store.putBlob(staged.blobId, bytes)
  return staged
}

/** Blobs written for one request: deleted again unless the request's write commits. */
export class Staging {
  readonly #files = new WeakMap<object, StagedFile>()
  readonly #blobs: string[] = []

  constructor(readonly services: Services, readonly resourceId: number) {}

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
    for (const b of this.#blobs.splice(0)) {
      await this.services.platform.store.deleteBlob(b).catch((err) => this.services.platform.log(`Deleting blob ${b} failed`, err))
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

/** Staging of the files that `extensions.attachment` items reference, keyed by item. */
const EXTENSION_FILES = new WeakMap<object, StagedFile>()

/**
 * Runs a feature write (`write`) after staging the files of every `extensions.attachment`
 * item in `inputs`; the writer finds them through `replaceAttachments`. Attribute types are
 * checked before anything is copied.
 */
export async function withExtensionFiles<T>(services: Services, resourceId: number, inputs: FeatureInput[],
  write: () => Promise<T>): Promise<T> {
  const items: [Record<string, unknown>, string][] = []
  inputs.forEach((input) => input.attachment?.forEach((a, i) => {
    const path = `$.extensions.attachment[${i}]`
    parseFields(a, path)
    if (hasUpload(a)) items.push([a, path])
  }))
  if (!items.length) return write()
  const staging = new Staging(services, resourceId)
  return staging.commit(async () => {
    for (const [a, path] of items) EXTENSION_FILES.set(a, await staging.stage(a, path))
    return write()
  })
}

// ---- inside the layer transaction ----

export function listAttachments(db: SqlDb, fid: number): Record<string, unknown>[] {
  return (db.selectObjects(`SELECT * FROM feature_attachment WHERE fid = ? ORDER BY id`, [fid]) as unknown as AttachmentRow[])
    .map(attachmentJson)
}

/** Attachment `aid` of feature `fid`; `undefined` when there is none. */
export function getAttachment(db: SqlDb, fid: number, aid: number): AttachmentRow | undefined {
  return db.selectObject(`SELECT * FROM feature_attachment WHERE id = ? AND fid = ?`, [aid, fid]) as AttachmentRow | undefined
}

/** The upload's name and type override the body's (reference §6). */
function merged(fields: AttachmentFields, file: StagedFile | undefined): AttachmentFields {
  const out = { ...fields }
  if (file?.name) out.name = file.name
  if (file?.mimeType) out.mime_type = file.mimeType
  return out
}

/** Inserts an attachment of feature `fid` for a staged file; returns its id. */
export function insertAttachment(db: SqlDb, fid: number, fields: AttachmentFields, file: StagedFile): number {
  const f = merged(fields, file)
  db.exec({ sql: `INSERT INTO feature_attachment (fid, keyname, name, size, mime_type, description, file_meta, blob_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, bind: [fid, f.keyname ?? null, f.name ?? null, file.size, f.mime_type ?? DEFAULT_MIME,
    f.description ?? null, JSON.stringify(file.fileMeta), file.blobId] })
  return Number(db.selectValue('SELECT last_insert_rowid()'))
}

/** Updates attachment `row`; a new file replaces the old blob, which goes to `orphans`. */
export function updateAttachment(db: SqlDb, row: AttachmentRow, fields: AttachmentFields, file: StagedFile | undefined,
  orphans: string[]): void {
  const f = merged(fields, file)
  const sets: string[] = []
  const bind: (string | number | null)[] = []
  for (const key of ['name', 'keyname', 'mime_type', 'description'] as const) {
    if (f[key] === undefined) continue
    sets.push(`${key} = ?`)
    bind.push(f[key]!)
  }
  if (file) {
    sets.push('size = ?', 'file_meta = ?', 'blob_id = ?')
    bind.push(file.size, JSON.stringify(file.fileMeta), file.blobId)
    orphans.push(row.blob_id)
  }
  if (sets.length) db.exec({ sql: `UPDATE feature_attachment SET ${sets.join(', ')} WHERE id = ?`, bind: [...bind, row.id] })
}

export function deleteAttachment(db: SqlDb, row: AttachmentRow, orphans: string[]): void {
  db.exec({ sql: `DELETE FROM feature_attachment WHERE id = ?`, bind: [row.id] })
  orphans.push(row.blob_id)
}

/** 422 when two attachments of feature `fid` share a keyname. */
export function checkKeynames(db: SqlDb, fid: number): void {
  const dup = db.selectValue(`SELECT keyname FROM feature_attachment WHERE fid = ? AND keyname IS NOT NULL
    GROUP BY keyname HAVING count(*) > 1 LIMIT 1`, [fid])
  if (dup !== undefined) throw keynameNotUnique(String(dup))
}

/**
 * `extensions.attachment` (reference §5.5): the whole list. Items with `id` update that
 * attachment (a `file_upload` replaces its file), items without create one from their staged
 * `file_upload`, attachments not listed are deleted; `null` deletes all.
 */
export function replaceAttachments(db: SqlDb, fid: number, items: Record<string, unknown>[] | null, orphans: string[]): void {
  const rows = new Map((db.selectObjects(`SELECT * FROM feature_attachment WHERE fid = ?`, [fid]) as unknown as AttachmentRow[])
    .map((r) => [r.id, r]))
  const keep = new Set<number>()
  ;(items ?? []).forEach((a, i) => {
    const path = `$.extensions.attachment[${i}]`
    const fields = parseFields(a, path)
    const file = EXTENSION_FILES.get(a)
    if (a.id === undefined || a.id === null) {
      if (!file) throw fileUploadRequired(path)
      insertAttachment(db, fid, fields, file)
      return
    }
    const id = expectKind<number>('int', a.id, `${path}.id`)
    const row = rows.get(id)
    if (!row || keep.has(id)) throw attachmentNotOfFeature(id, fid, `${path}.id`)
    keep.add(id)
    updateAttachment(db, row, fields, file, orphans)
  })
  for (const row of rows.values()) if (!keep.has(row.id)) deleteAttachment(db, row, orphans)
  checkKeynames(db, fid)
}
