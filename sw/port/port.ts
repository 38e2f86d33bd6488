/**
 * @module port/port
 * The data port (issue 22, docs/architecture.md "Data port"): the one door from the
 * components to storage. It is assembled from the repositories each component declares
 * (`sw/<component>/repository.ts`); an implementation (`sw/sqlite/`, later `sw/postgres/`)
 * fills it in, and only the app and the hosts choose one. Nothing here assumes one process,
 * one connection or synchronous calls.
 */
import type { Store } from '../store/store.ts'
import type { AclRead, LoginLimitRead, LoginLimitWrite, PrincipalRead, PrincipalWrite, SessionRead, SessionWrite } from '../auth/repository.ts'
import type { CatalogueStore } from '../catalogue/repository.ts'
import type { FileRecordRead, FileRecordWrite } from '../files/repository.ts'
import type { JournalWrite, RequestLogRead, RequestLogWrite, ResourceRead, ResourceWrite } from '../resource/repository.ts'
import type { UploadRead, UploadWrite } from '../upload/repository.ts'
import type { FeatureTables, FieldRead, FieldWrite } from './features.ts'
export type { FeatureTables, FieldRead, FieldWrite } from './features.ts'
import type { SqliteCapability } from './sqlite.ts'
import type { PendingRefresh } from './pending.ts'

export type { PendingRefresh }

/** A value or its promise: a hook that may finish at once or later (the transition's class hooks). */
export type Awaitable<T> = T | Promise<T>

/** Blobs by id (uploads, attachments, raster and bucket files): the store's blob half. */
export type BlobStore = Pick<Store, 'putBlob' | 'putBlobStream' | 'getBlob' | 'deleteBlob' | 'listBlobs'>

/** What a read sees of the main data. */
export interface MainRead {
  resources: ResourceRead
  acl: AclRead
  principals: PrincipalRead
  sessions: SessionRead
  loginLimits: LoginLimitRead
  uploads: UploadRead
  files: FileRecordRead
  requests: RequestLogRead
  /** The vector layers' field lists. */
  fields: FieldRead
}

/** What a unit of work may change. Valid only until its `fn` settles. */
export interface MainWrite extends MainRead {
  resources: ResourceWrite
  principals: PrincipalWrite
  sessions: SessionWrite
  loginLimits: LoginLimitWrite
  uploads: UploadWrite
  files: FileRecordWrite
  requests: RequestLogWrite
  fields: FieldWrite
  journal: JournalWrite
  /** Serializes units of work on `key` (PostgreSQL: pg_advisory_xact_lock; SQLite: BEGIN IMMEDIATE already does). */
  lock(key: 'tree' | `layer:${number}`): Promise<void>
}

export type ChangeScope = 'main' | 'catalogue' | `layer:${number}`

export interface ChangeTokens {
  /**
   * Synchronous and cheap: the token of `scope` as this process knows it. It changes after
   * any commit (of any process) that may have changed that data, and on a reopen that may read
   * other content (not one after closing a database for memory). Opaque:
   * compare with ===.
   */
  current(scope: ChangeScope): string
  /**
   * Catch up with other processes (PostgreSQL: a counter row or NOTIFY). Absent for SQLite,
   * which owns its folder alone (sw/host/node-lock.ts). When present, the app calls it once
   * per request.
   */
  refresh?(): Promise<void>
  /**
   * Instead of `refresh`, for a request whose one statement can carry the read (PostgreSQL: an
   * uncached vector tile's, one round trip instead of two). Absent where `refresh` is.
   */
  defer?(): PendingRefresh
}

export interface DataPort {
  /**
   * One transaction on the main data; resolves once durable. `fn` may run twice (a retried
   * conflict): no side effects outside `tx`, and it awaits nothing but `tx`; work for after
   * the commit is returned as AfterCommit actions, as today (resource/class.ts).
   */
  unitOfWork<T>(fn: (tx: MainWrite) => Promise<T>): Promise<T>
  /** A consistent read that sees every write acknowledged before the call. */
  read<T>(fn: (tx: MainRead) => Promise<T>): Promise<T>
  readonly tokens: ChangeTokens
  /** PostgreSQL: chunks in the database, or S3. */
  readonly blobs: BlobStore
  /** The vector layers' feature tables. */
  readonly features: FeatureTables
  /** Its own database, opened on first use. */
  catalogue(): Promise<CatalogueStore>
  /** Never assumed; only stats at this level. */
  readonly sqlite?: SqliteCapability
  /** A round trip to the database (the health check). */
  ping(): Promise<void>
  /**
   * Holds `key` across every process on this data until the returned release is called (or the
   * process dies); `undefined` at once when another holder has it. Absent where one process owns
   * the data (SQLite: the folder's lock, one worker), so an in-process guard is enough there.
   * PostgreSQL: a session advisory lock (sw/postgres/exclusive.ts).
   */
  exclusive?(key: string): Promise<(() => Promise<void>) | undefined>
  close(): Promise<void>
}
