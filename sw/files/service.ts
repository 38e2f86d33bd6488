/**
 * @module files/service
 * Large files of resources (a raster layer's GeoTIFF, a file bucket's files) kept in the store
 * as chunks of `FILE_CHUNK` bytes (blobs `file-<key>.<n>`), so that a range is read without
 * the rest and a download streams.
 *
 * A file's life is recorded in the main database's `file_pending` table, so that no chunk is
 * ever lost track of: a file is `staged` (row first, then its chunks) until the main write
 * that makes a resource refer to it `adopt`s it (deletes the row); a resource that stops
 * referring to a file `release`s it in its write (row `released`), and its chunks are deleted
 * after that write commits (the action `release` returns). Rows left by a stopped worker are
 * swept at the next start: staged files nobody adopted and released ones are deleted.
 */
import type { Platform } from '../platform/platform.ts'
import type { BlobStore, DataPort } from '../port/port.ts'
import type { StoredFile } from './types.ts'

/** What stored files need of the app: the records through units of work, the chunks as blobs. */
export interface FileServices {
  platform: Pick<Platform, 'now' | 'log'>
  data: Pick<DataPort, 'unitOfWork' | 'read' | 'blobs'>
}

/** Where a stored file's chunks are read from (`data.blobs`). */
export type ChunkSource = Pick<BlobStore, 'getBlob'>

/** Bytes per stored chunk: a GeoTIFF tile range touches one or two. */
export const FILE_CHUNK = 256 * 1024

export type { StoredFile } from './types.ts'

const chunkId = (key: string, n: number) => `file-${key}.${n}`
const chunkCount = (size: number) => Math.max(1, Math.ceil(size / FILE_CHUNK))

/** Keys staged by this process and not yet adopted or discarded: the sweep leaves them alone. */
const STAGING = new Set<string>()

function newKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('')
}

/** Stores `bytes` as a new file: its intent row (durable) first, then its chunks. */
export async function stageFile(services: FileServices, bytes: Uint8Array): Promise<StoredFile> {
  const { data, platform } = services
  const file = { key: newKey(), size: bytes.length }
  STAGING.add(file.key)
  try {
    await data.unitOfWork((tx) => tx.files.stage(file, platform.now()))
    for (let n = 0, at = 0; n < chunkCount(file.size); n++, at += FILE_CHUNK) {
      await data.blobs.putBlob(chunkId(file.key, n), bytes.subarray(at, at + FILE_CHUNK))
    }
  } catch (err) {
    await discardFiles(services, [file])
    throw err
  }
  return file
}

/** After that write committed (or failed): this process stops protecting them. */
export function settleFiles(files: StoredFile[]): void {
  for (const f of files) STAGING.delete(f.key)
}

/**
 * After a write that may have released `files` (a bucket's change): deletes the chunks of
 * those it did release and committed; a rolled-back write left no rows, so nothing goes.
 */
export async function flushReleased(services: FileServices, files: StoredFile[]): Promise<void> {
  if (!files.length) return
  const keys = files.map((f) => f.key)
  const rows = await services.data.read((tx) => tx.files.released(keys))
  await dropRows(services, rows)
}

/** Deletes staged files that will not be adopted (the create failed), rows and chunks. */
export async function discardFiles(services: FileServices, files: StoredFile[]): Promise<void> {
  for (const f of files) {
    await deleteChunks(services.data.blobs, f).catch((err) => services.platform.log(`Deleting file ${f.key} failed`, err))
    await services.data.unitOfWork((tx) => tx.files.forget([f.key]))
      .catch((err) => services.platform.log(`Forgetting file ${f.key} failed`, err))
    STAGING.delete(f.key)
  }
}

async function deleteChunks(store: Pick<BlobStore, 'deleteBlob'>, f: StoredFile): Promise<void> {
  for (let n = 0; n < chunkCount(f.size); n++) await store.deleteBlob(chunkId(f.key, n))
}

/** Deletes the chunks of `rows`, then their records. */
export async function dropRows(services: FileServices, rows: StoredFile[]): Promise<void> {
  for (const f of rows) await deleteChunks(services.data.blobs, f)
  if (rows.length) await services.data.unitOfWork((tx) => tx.files.forget(rows.map((f) => f.key)))
}

/**
 * Run at start: deletes released files and staged ones nobody in this process is writing
 * (left by a stopped worker).
 */
export async function sweepFiles(services: FileServices): Promise<void> {
  const rows = await services.data.read((tx) => tx.files.all())
  await dropRows(services, rows.filter((r) => !STAGING.has(r.key)))
}

/** Bytes `[start, end)` of a stored file (clamped to its size). */
export async function readRange(store: ChunkSource, f: StoredFile, start = 0, end = f.size): Promise<Uint8Array<ArrayBuffer>> {
  end = Math.min(end, f.size)
  const out = new Uint8Array(Math.max(0, end - start))
  for (let n = Math.floor(start / FILE_CHUNK); n * FILE_CHUNK < end; n++) {
    const chunk = await store.getBlob(chunkId(f.key, n))
    if (!chunk) throw new Error(`Chunk ${n} of file ${f.key} is missing from the store.`)
    const from = Math.max(start, n * FILE_CHUNK)
    out.set(chunk.subarray(from - n * FILE_CHUNK, Math.min(end, (n + 1) * FILE_CHUNK) - n * FILE_CHUNK), from - start)
  }
  return out
}

/** A stored file as a stream, chunk by chunk: a download never holds the whole file. */
export function streamFile(store: ChunkSource, f: StoredFile): ReadableStream<Uint8Array> {
  let n = 0
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (n * FILE_CHUNK >= f.size) { controller.close(); return }
      controller.enqueue(await readRange(store, f, n * FILE_CHUNK, (n + 1) * FILE_CHUNK))
      n++
    },
  })
}
