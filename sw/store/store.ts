/**
 * @module store/store
 * The storage port: the only thing the backend persists through. A database is a file that
 * SQLite reads and writes page by page through our VFS (`store/vfs`); the store decides where
 * those pages live and how a commit makes them durable. Blobs (uploads, attachments) are
 * kept whole by id. Every `put*` and every database commit is durable when its promise
 * resolves, and atomic: after a crash either all of it is there or none.
 */

/**
 * A file as SQLite's VFS sees it: synchronous, because SQLite calls it from inside a
 * statement. Offsets and sizes are in bytes.
 */
export interface SyncFile {
  /** Copies the bytes at `offset` into `into`; returns how many there were (fewer at the end). */
  read(into: Uint8Array, offset: number): number
  write(data: Uint8Array, offset: number): void
  size(): number
  truncate(size: number): void
  /** Makes what was written so far durable (fsync), where the file itself is the durable copy. */
  sync(): void
  close(): void
}

/** The write-ahead log beside a database file that is durable as SQLite writes it. */
export interface LogFile {
  open(): SyncFile
  /** True when the log exists: SQLite then recovers what it holds. */
  exists(): boolean
  remove(): void
}

/** A database's main file, as its store opens it. */
export interface DatabaseFile extends SyncFile {
  /**
   * Present when the file is durable as SQLite writes it (the Node host's files): SQLite then
   * appends each commit to this write-ahead log and syncs it, so COMMIT alone is durable.
   * Absent when `commit` saves the pages: SQLite's rollback journal then lives in JS memory.
   */
  readonly wal?: LogFile
  /**
   * Makes what SQLite wrote since the last commit durable, at once, or throws (an
   * `ApiError`) leaving the store as it was; the caller then drops this file.
   */
  commit(): Promise<void>
  /** Bytes this file keeps in memory: what closing it gives back. */
  resident(): number
  /**
   * Housekeeping that can wait for an idle moment (folding saved pages together): one short
   * step, run between transactions; resolves true while there is more to do.
   */
  tidy?(): Promise<boolean>
}

export interface Store {
  /** Opens database `name` (an empty file when there is none yet); one opener at a time. */
  openDatabase(name: string): Promise<DatabaseFile>
  deleteDatabase(name: string): Promise<void>
  /** Names of every stored database. */
  listDatabases(): Promise<string[]>
  putBlob(id: string, data: Uint8Array): Promise<void>
  /**
   * Writes blob `id` from `chunks` as they arrive, never holding it whole (uploads of any
   * size). Returns the byte count. Durable and atomic like `putBlob` when it resolves; if
   * `chunks` throws, the write is abandoned and the blob is as it was before.
   */
  putBlobStream(id: string, chunks: AsyncIterable<Uint8Array>): Promise<number>
  /** The blob's bytes, or `undefined` when there is none. */
  getBlob(id: string): Promise<Uint8Array | undefined>
  deleteBlob(id: string): Promise<void>
  /**
   * Ids of the blobs whose id starts with `prefix`, also of blobs whose streamed write never
   * finished (a process stopped mid-way leaves its pieces): `deleteBlob` of such an id removes
   * what is left. For sweeps, not for every request.
   */
  listBlobs(prefix: string): Promise<string[]>
  close(): Promise<void>
}
