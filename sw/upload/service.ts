/**
 * @module upload/service
 * File uploads: bytes in the store, records in the main database, both gone after
 * `UPLOAD_TTL_MS` (the original keeps them one to two days, reference §7).
 *
 * For other components (attachments, layer ingest, file buckets):
 * - `getUpload(services, id)` → the record of a complete upload, `undefined` when the id is
 *   unknown, malformed, expired or the upload is incomplete;
 * - `resolveUploadRef(services, ref, path)` → the record for a `{id, ...}` reference taken from
 *   a request body, or the original's 422 `FileUploadNotFound` / `FileUploadNotCompleted`;
 * - `readUpload(services, id)` → the bytes, or the same 422s.
 * An upload may be referenced any number of times until it expires, as in the original, so
 * consumers copy the bytes they keep and nothing "consumes" an upload.
 *
 * Storage: a multipart or raw upload is one blob `upload-<id>`. Each TUS PATCH is saved as its
 * own blob `upload-<id>.<offset>-<random>` before the record's offset moves (one write that
 * appends the blob to the record's `parts`); `readUpload` joins the parts. So an acknowledged
 * chunk is durable, completing is a record update only, a retried or racing PATCH never
 * overwrites another's bytes, and a crash at any point leaves a record that matches its blobs
 * (at worst an orphaned part blob).
 */
import { concatBytes } from '../core/bytes.ts'
import { internalServerError } from '../core/error.ts'
import { expectKind } from '../core/validate.ts'
import type { Platform } from '../platform/platform.ts'
import type { SqlDb } from '../store/database.ts'
import { fileUploadNotCompleted, fileUploadNotFound, offsetConflict } from './errors.ts'
import { SNIFF_WINDOW, sniffMime } from './sniff.ts'
import type { UploadInfo, UploadRecord, UploadRow, UploadServices as Services } from './types.ts'
import { newUploadId, normalizeUploadId } from './upload-id.ts'

/** How long an upload lives: the original sweeps date folders older than yesterday. */
export const UPLOAD_TTL_MS = 2 * 24 * 3600 * 1000

/** At most this many expired uploads are swept per write, so a sweep never stalls a request. */
const SWEEP_BATCH = 100

const dataBlob = (id: string) => `upload-${id}`

function partBlob(id: string, offset: number): string {
  const r = crypto.getRandomValues(new Uint8Array(4))
  return `upload-${id}.${offset}-${Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('')}`
}

function toInfo(r: UploadRow): UploadInfo {
  const info: UploadInfo = { id: r.id, size: r.size, received: r.received, incomplete: r.received < r.size,
    parts: JSON.parse(r.parts) as string[] }
  if (r.name) info.name = r.name
  if (r.mime_type) info.mimeType = r.mime_type
  return info
}

/** The wire record, keys in the original's order. */
export function toRecord(info: UploadInfo): UploadRecord {
  const rec: UploadRecord = { id: info.id, size: info.size }
  if (info.name) rec.name = info.name
  if (info.mimeType) rec.mime_type = info.mimeType
  return rec
}

const cutoff = (platform: Platform) => new Date(platform.now().getTime() - UPLOAD_TTL_MS).toISOString()

function selectRow(db: SqlDb, id: string, since: string): UploadRow | undefined {
  return db.selectObject('SELECT * FROM upload WHERE id = ? AND created >= ?', [id, since]) as UploadRow | undefined
}

/** Deletes a batch of expired records; returns their blobs, to delete once the write is saved. */
function sweepExpired(db: SqlDb, since: string): string[] {
  const rows = db.selectObjects('SELECT id, parts FROM upload WHERE created < ? ORDER BY created LIMIT ?',
    [since, SWEEP_BATCH]) as Array<Pick<UploadRow, 'id' | 'parts'>>
  const blobs: string[] = []
  for (const r of rows) {
    db.exec({ sql: 'DELETE FROM upload WHERE id = ?', bind: [r.id] })
    blobs.push(dataBlob(r.id), ...(JSON.parse(r.parts) as string[]))
  }
  return blobs
}

/** Removes blobs nobody references any more; a failure only leaves garbage behind. */
async function dropBlobs(platform: Platform, blobs: string[]): Promise<void> {
  for (const b of blobs) {
    try {
      await platform.store.deleteBlob(b)
    } catch (err) {
      platform.log(`Deleting upload blob ${b} failed`, err)
    }
  }
}

/** The details of upload `id`, complete or not; `undefined` when unknown, malformed or expired. */
export async function findUpload(services: Services, id: string): Promise<UploadInfo | undefined> {
  const norm = normalizeUploadId(id)
  if (!norm) return undefined
  const since = cutoff(services.platform)
  const row = await services.main.read((db) => selectRow(db, norm, since))
  return row && toInfo(row)
}

/** The record of a complete upload; `undefined` when unknown, malformed, expired or incomplete. */
export async function getUpload(services: Services, id: string): Promise<UploadRecord | undefined> {
  const info = await findUpload(services, id)
  return info && !info.incomplete ? toRecord(info) : undefined
}

async function requireComplete(services: Services, id: string): Promise<UploadInfo> {
  const info = await findUpload(services, id)
  if (!info) throw fileUploadNotFound(id)
  if (info.incomplete) throw fileUploadNotCompleted(info.id)
  return info
}

/**
 * The record for a reference `{id, ...}` from a request body (other keys are ignored).
 * Throws a 422 ValidationError when `ref` is not such an object, and the original's 422
 * `FileUploadNotFound` / `FileUploadNotCompleted`.
 */
export async function resolveUploadRef(services: Services, ref: unknown, path = '$'): Promise<UploadRecord> {
  const obj = expectKind<Record<string, unknown>>('object', ref, path)
  const id = expectKind<string>('str', obj.id, `${path}.id`)
  return toRecord(await requireComplete(services, id))
}

/** The bytes of a complete upload. Throws the 422s of `resolveUploadRef`. */
export async function readUpload(services: Services, id: string): Promise<Uint8Array> {
  const info = await requireComplete(services, id)
  if (info.parts.length) return joinParts(services.platform, info.parts)
  const bytes = await services.platform.store.getBlob(dataBlob(info.id))
  if (bytes) return bytes
  if (info.size === 0) return new Uint8Array(0)
  throw internalServerError(new Error(`The bytes of upload ${info.id} are missing from the store.`))
}

export interface NewUpload {
  bytes: Uint8Array
  /** File name without a path; omitted from the record when empty. */
  name?: string
  /** Media type as sent; sniffed from the bytes when absent. */
  mimeType?: string
}

/**
 * Stores complete uploads (multipart parts, a raw body): blobs first, then the records in one
 * write, which also sweeps expired uploads. Returns the records in order.
 */
export async function storeUploads(services: Services, files: NewUpload[]): Promise<UploadRecord[]> {
  const { platform, main } = services
  const now = platform.now()
  const infos: UploadInfo[] = files.map((f) => {
    const info: UploadInfo = { id: newUploadId(now), size: f.bytes.length, received: f.bytes.length,
      incomplete: false, parts: [] }
    if (f.name) info.name = f.name
    const mime = f.mimeType || (f.bytes.length > 0 ? sniffMime(f.bytes) : undefined)
    if (mime) info.mimeType = mime
    return info
  })
  const written: string[] = []
  try {
    for (let i = 0; i < files.length; i++) {
      await platform.store.putBlob(dataBlob(infos[i]!.id), files[i]!.bytes)
      written.push(dataBlob(infos[i]!.id))
    }
    const expired = await main.write((db) => {
      const swept = sweepExpired(db, cutoff(platform))
      for (const i of infos) insertRow(db, i, now)
      return swept
    })
    await dropBlobs(platform, expired)
  } catch (err) {
    await dropBlobs(platform, written)
    throw err
  }
  return infos.map(toRecord)
}

function insertRow(db: SqlDb, i: UploadInfo, now: Date): void {
  db.exec({ sql: 'INSERT INTO upload (id, size, name, mime_type, received, created) VALUES (?, ?, ?, ?, ?, ?)',
    bind: [i.id, i.size, i.name ?? null, i.mimeType ?? null, i.received, now.toISOString()] })
}

/**
 * Starts a TUS upload of `size` bytes and returns its id. A zero-length upload is complete
 * at once, typed `application/octet-stream` unless a type was given (as the original).
 */
export async function tusCreate(services: Services, size: number, name?: string, mimeType?: string): Promise<string> {
  const { platform, main } = services
  const now = platform.now()
  const info: UploadInfo = { id: newUploadId(now), size, received: 0, incomplete: size > 0, parts: [] }
  if (name) info.name = name
  if (mimeType) info.mimeType = mimeType
  else if (size === 0) info.mimeType = 'application/octet-stream'
  if (size === 0) await platform.store.putBlob(dataBlob(info.id), new Uint8Array(0))
  const expired = await main.write((db) => {
    const swept = sweepExpired(db, cutoff(platform))
    insertRow(db, info, now)
    return swept
  })
  await dropBlobs(platform, expired)
  return info.id
}

/**
 * Appends `bytes` at `offset` to incomplete upload `info` and returns the new offset. The
 * caller checked the offset and the declared length; the check is repeated inside the write,
 * so of two racing PATCHes at one offset only the first counts (the other gets a 409).
 */
export async function tusAppend(services: Services, info: UploadInfo, offset: number, bytes: Uint8Array): Promise<number> {
  const { platform, main } = services
  if (bytes.length === 0) return offset
  const end = offset + bytes.length
  const part = partBlob(info.id, offset)
  await platform.store.putBlob(part, bytes)
  let mimeType = info.mimeType
  if (end === info.size && !mimeType) {
    // The original sniffs the type of a completed upload that was sent without one; the
    // first parts up to the sniffer's window are enough.
    mimeType = sniffMime(await joinParts(platform, [...info.parts, part], SNIFF_WINDOW + 1))
  }
  const since = cutoff(platform)
  try {
    await main.write((db) => {
      const row = selectRow(db, info.id, since)
      if (!row) throw fileUploadNotFound(info.id, 404)
      if (row.received !== offset) throw offsetConflict(offset, row.received)
      const parts = JSON.stringify([...JSON.parse(row.parts) as string[], part])
      db.exec({ sql: 'UPDATE upload SET received = ?, parts = ?, mime_type = coalesce(?, mime_type) WHERE id = ?',
        bind: [end, parts, mimeType ?? null, info.id] })
    })
  } catch (err) {
    // Lost the race, or the upload went away: this PATCH's bytes belong to nobody.
    await dropBlobs(platform, [part])
    throw err
  }
  return end
}

/** The bytes of `parts` joined in order; with `atLeast`, only the first parts that reach it. */
async function joinParts(platform: Platform, parts: string[], atLeast = Infinity): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let total = 0
  for (const p of parts) {
    if (total >= atLeast) break
    const chunk = await platform.store.getBlob(p)
    if (!chunk) throw internalServerError(new Error(`Upload part ${p} is missing from the store.`))
    chunks.push(chunk)
    total += chunk.length
  }
  return concatBytes(chunks)
}

/** Deletes upload `id` and its bytes; `false` when there was none. */
export async function deleteUpload(services: Services, id: string): Promise<boolean> {
  const norm = normalizeUploadId(id)
  if (!norm) return false
  const since = cutoff(services.platform)
  const blobs = await services.main.write((db) => {
    const row = selectRow(db, norm, since)
    if (!row) return undefined
    db.exec({ sql: 'DELETE FROM upload WHERE id = ?', bind: [norm] })
    return [dataBlob(norm), ...(JSON.parse(row.parts) as string[])]
  })
  if (!blobs) return false
  await dropBlobs(services.platform, blobs)
  return true
}
