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
 * Storage: a multipart or raw upload is one blob `upload-<id>`, streamed from the request into
 * the store (`stageUpload`, upload/stream.ts) and recorded after (`recordUploads`). Each TUS PATCH is saved as its
 * own blob `upload-<id>.<offset>-<random>` before the record's offset moves (one write that
 * appends the blob to the record's `parts`); `readUpload` joins the parts. So an acknowledged
 * chunk is durable, completing is a record update only, a retried or racing PATCH never
 * overwrites another's bytes, and a crash at any point leaves a record that matches its blobs
 * (at worst an orphaned blob, swept once its upload has expired: upload/orphans.ts).
 */
import { concatBytes } from '../core/bytes.ts'
import { internalServerError } from '../core/error.ts'
import { expectKind } from '../core/validate.ts'
import { isMediaType } from '../core/media-type.ts'
import { fileUploadNotCompleted, fileUploadNotFound, offsetConflict } from './errors.ts'
import { streamToBlob, type StreamedBlob } from './stream.ts'
import { checkQuota, cutoff, dataBlob, dropBlobs, partBlob, sweepExpired, toInfo, toRecord } from './rows.ts'
import { SNIFF_WINDOW, sniffMime } from './sniff.ts'
import type { UploadInfo, UploadRecord } from './types.ts'
import type { UploadServices as Services } from './env.ts'
import { newUploadId, normalizeUploadId } from './upload-id.ts'
import { sweepOrphansNow } from './orphans.ts'

export { toRecord, UPLOAD_TTL_MS, uploadCutoff } from './rows.ts'

/** Blobs no record will free (upload/orphans.ts), looked for now and then; never fails an upload. */
const sweepOrphans = (services: Services) =>
  sweepOrphansNow(services).catch((err) => services.platform.log('Sweeping orphaned upload blobs failed', err))

/** The details of upload `id`, complete or not; `undefined` when unknown, malformed or expired. */
export async function findUpload(services: Services, id: string): Promise<UploadInfo | undefined> {
  const norm = normalizeUploadId(id)
  if (!norm) return undefined
  const since = cutoff(services.platform)
  const row = await services.data.read((tx) => tx.uploads.get(norm, since))
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
  if (info.parts.length) return joinParts(services, info.parts)
  const bytes = await services.data.blobs.getBlob(dataBlob(info.id))
  if (bytes) return bytes
  if (info.size === 0) return new Uint8Array(0)
  throw internalServerError(new Error(`The bytes of upload ${info.id} are missing from the store.`))
}

/**
 * The media type a client sent, if it is one: it will be a Content-Type header when the file
 * is served, so anything else (control characters from TUS metadata) is dropped and sniffed.
 */
const givenType = (t: string | undefined) => (t && isMediaType(t) ? t : undefined)

export interface NewUpload {
  /** The bytes, or a stream of them, written to the store as they come. */
  bytes: Uint8Array | AsyncIterable<Uint8Array>
  /** File name without a path; omitted from the record when empty. */
  name?: string
  /** Media type as sent; sniffed from the bytes when absent. */
  mimeType?: string
}

/** An upload whose bytes are in its blob already, waiting for its record. */
export interface StagedUpload {
  id: string
  size: number
  /** The first bytes, for the type sniffer. */
  head: Uint8Array
  name?: string
  mimeType?: string
}

/** Writes the bytes of a new upload into its blob; nothing refers to it until `recordUploads`. */
export async function stageUpload(services: Services, f: NewUpload): Promise<StagedUpload> {
  const { platform, data } = services
  const id = newUploadId(platform.now())
  let blob: StreamedBlob
  if (f.bytes instanceof Uint8Array) {
    await data.blobs.putBlob(dataBlob(id), f.bytes)
    blob = { size: f.bytes.length, head: f.bytes.subarray(0, SNIFF_WINDOW + 1) }
  } else {
    blob = await streamToBlob(data.blobs, dataBlob(id), f.bytes)
  }
  return { id, ...blob, name: f.name, mimeType: f.mimeType }
}

/** Deletes the blobs of staged uploads that will not be recorded. */
export const discardStaged = (services: Services, staged: StagedUpload[]) =>
  dropBlobs(services, staged.map((s) => dataBlob(s.id)))


/**
 * Records staged uploads in one write, which also sweeps expired uploads, and returns their
 * records in order. `quota` (for an anonymous uploader) caps the pending bytes. If anything
 * fails, the staged blobs are deleted: a refused request stores nothing.
 */
export async function recordUploads(services: Services, staged: StagedUpload[], quota?: number): Promise<UploadRecord[]> {
  const { platform, data } = services
  const now = platform.now()
  const infos: UploadInfo[] = staged.map((f) => {
    const info: UploadInfo = { id: f.id, size: f.size, received: f.size, incomplete: false, parts: [] }
    if (f.name) info.name = f.name
    const mime = givenType(f.mimeType) || (f.size > 0 ? sniffMime(f.head) : undefined)
    if (mime) info.mimeType = mime
    return info
  })
  try {
    const since = cutoff(platform)
    const expired = await data.unitOfWork(async (tx) => {
      await checkQuota(tx.uploads, since, infos.reduce((n, i) => n + i.size, 0), quota)
      const swept = await sweepExpired(tx.uploads, since)
      for (const i of infos) await tx.uploads.insert(i, now)
      return swept
    })
    await dropBlobs(services, expired)
  } catch (err) {
    await discardStaged(services, staged)
    throw err
  }
  await sweepOrphans(services)
  return infos.map(toRecord)
}

/** Stores complete uploads (bytes or streams): blobs first, then the records in one write. */
export async function storeUploads(services: Services, files: NewUpload[], quota?: number): Promise<UploadRecord[]> {
  const staged: StagedUpload[] = []
  try {
    for (const f of files) staged.push(await stageUpload(services, f))
  } catch (err) {
    await discardStaged(services, staged)
    throw err
  }
  return recordUploads(services, staged, quota)
}


/**
 * Starts a TUS upload of `size` bytes and returns its id. A zero-length upload is complete
 * at once, typed `application/octet-stream` unless a type was given (as the original).
 */
export async function tusCreate(services: Services, size: number, name?: string, mimeType?: string, quota?: number): Promise<string> {
  const { platform, data } = services
  const now = platform.now()
  const info: UploadInfo = { id: newUploadId(now), size, received: 0, incomplete: size > 0, parts: [] }
  if (name) info.name = name
  if (givenType(mimeType)) info.mimeType = mimeType
  else if (size === 0) info.mimeType = 'application/octet-stream'
  if (size === 0) await data.blobs.putBlob(dataBlob(info.id), new Uint8Array(0))
  const since = cutoff(platform)
  const expired = await data.unitOfWork(async (tx) => {
    // A TUS upload reserves its declared length.
    await checkQuota(tx.uploads, since, size, quota)
    const swept = await sweepExpired(tx.uploads, since)
    await tx.uploads.insert(info, now)
    return swept
  })
  await dropBlobs(services, expired)
  await sweepOrphans(services)
  return info.id
}

/**
 * Appends `bytes` at `offset` to incomplete upload `info` and returns the new offset. The
 * caller checked the offset and the declared length; the check is repeated inside the write,
 * so of two racing PATCHes at one offset only the first counts (the other gets a 409).
 */
export async function tusAppend(services: Services, info: UploadInfo, offset: number,
  bytes: Uint8Array | AsyncIterable<Uint8Array>): Promise<number> {
  const { platform, data } = services
  const part = partBlob(info.id, offset)
  let size: number
  if (bytes instanceof Uint8Array) {
    if (bytes.length === 0) return offset
    await data.blobs.putBlob(part, bytes)
    size = bytes.length
  } else {
    size = (await streamToBlob(data.blobs, part, bytes)).size
    if (size === 0) {
      await dropBlobs(services, [part])
      return offset
    }
  }
  const end = offset + size
  let mimeType = info.mimeType
  if (end === info.size && !mimeType) {
    // The original sniffs the type of a completed upload that was sent without one; the
    // first parts up to the sniffer's window are enough.
    mimeType = sniffMime(await joinParts(services, [...info.parts, part], SNIFF_WINDOW + 1))
  }
  const since = cutoff(platform)
  try {
    await data.unitOfWork(async (tx) => {
      const row = await tx.uploads.get(info.id, since)
      if (!row) throw fileUploadNotFound(info.id, 404)
      if (row.received !== offset) throw offsetConflict(offset, row.received)
      await tx.uploads.progress(info.id, end, [...JSON.parse(row.parts) as string[], part], mimeType)
    })
  } catch (err) {
    // Lost the race, or the upload went away: this PATCH's bytes belong to nobody.
    await dropBlobs(services, [part])
    throw err
  }
  return end
}

/** The bytes of `parts` joined in order; with `atLeast`, only the first parts that reach it. */
async function joinParts(services: Services, parts: string[], atLeast = Infinity): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let total = 0
  for (const p of parts) {
    if (total >= atLeast) break
    const chunk = await services.data.blobs.getBlob(p)
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
  const blobs = await services.data.unitOfWork(async (tx) => {
    const row = await tx.uploads.get(norm, since)
    if (!row) return undefined
    await tx.uploads.delete(norm)
    return [dataBlob(norm), ...(JSON.parse(row.parts) as string[])]
  })
  if (!blobs) return false
  await dropBlobs(services, blobs)
  return true
}
