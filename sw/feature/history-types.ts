/**
 * @module feature/history-types
 * The versioning side of the feature-layer capability (reference §12): versions, the state
 * of features at a version, the changes between two versions, and the stored transactions
 * that clients fill and commit. A class that keeps history provides these reads and writes
 * inside its layer transactions; the feature component turns them into the original's API.
 */

/** A versioned layer's counters; absent (`undefined`) when versioning is off. */
export interface VersioningState {
  /** Changes whenever history starts anew (versioning re-enabled). */
  epoch: number
  /** The newest version id; version 1 is the start of the epoch. */
  latest: number
}

/** One version: one write transaction that changed something. */
export interface VersionRecord {
  id: number
  /** Naive ISO datetime (UTC). */
  tstamp: string
  userId: number | null
}

/** What a version range did to features, counted after squashing per feature. */
export interface VersionSummary {
  create: number
  update: number
  delete: number
  restore: number
}

/** The versioning record of one feature or attachment, deleted ones included. */
export interface ItemVersion {
  vid: number
  deleted: boolean
}

/** Changes of the features with ids in `[fidMin, fidMax]` between two versions. */
export interface ChangesQuery {
  initial: number
  target: number
  fidMin: number
  fidMax: number
  /** Extension operations to include besides the features': `attachment`, `description`. */
  extensions: readonly string[]
}

/** One operation of the changes feed, as JSON (`feature.create`, `attachment.delete`…). */
export type ChangeOp = Record<string, unknown>

export interface VersionListQuery {
  order: 'asc' | 'desc'
  /** Versions after (asc) or before (desc) this id. */
  cursor?: number
  limit: number
  tstampGe?: string
  tstampLt?: string
}

/** A stored transaction (reference §12): its operations wait for the commit. */
export interface TransactionRecord {
  id: number
  userId: number
  epoch: number | null
  started: string
  committed: string | null
}

/** An operation of a transaction: its JSON text and the error its last commit attempt gave. */
export interface TransactionOp {
  seqnum: number
  payload: string
  error: string | null
}

/** Versioning reads inside a layer transaction (each a promise: an implementation may be a remote database). */
export interface HistoryRead {
  versioning(): Promise<VersioningState | undefined>
  /** The record of feature `fid`, deleted ones included; `undefined` when it never existed. */
  featureVersion(fid: number): Promise<ItemVersion | undefined>
  /** The record of attachment `aid` of feature `fid`. */
  attachmentVersion(fid: number, aid: number): Promise<ItemVersion | undefined>
  /** The record of the description of feature `fid`. */
  descriptionVersion(fid: number): Promise<ItemVersion | undefined>
  /** Ids of features changed in `(initial, target]` after `after`, ascending, at most `limit`. */
  changedFids(initial: number, target: number, after: number | null, limit: number): Promise<number[]>
  changes(q: ChangesQuery): Promise<ChangeOp[]>
  summary(initial: number, target: number): Promise<VersionSummary>
  versionRecord(vid: number): Promise<VersionRecord | undefined>
  versions(q: VersionListQuery): Promise<VersionRecord[]>
  /** The blob of file `fileobj` of attachment `aid` (an old file of it too); `undefined` if it has none such. */
  attachmentBlob(aid: number, fileobj: number): Promise<string | undefined>
  transaction(tid: number): Promise<TransactionRecord | undefined>
  transactionOps(tid: number): Promise<TransactionOp[]>
  transactionResults(tid: number): Promise<[number, string][]>
}

/** Versioning writes inside a layer transaction. */
export interface HistoryWrite {
  /** The version this write records, allocated at its first change; `undefined` before that or without versioning. */
  readonly version: number | undefined
  startTransaction(userId: number, epoch: number | null, started: string): Promise<TransactionRecord>
  /**
   * Stores (or with `null` removes) operations, in order; nothing when a different operation
   * holds one of their seqnums already, whose seqnum is returned.
   */
  putTransactionOps(tid: number, items: { seqnum: number; payload: string | null }[]): Promise<number | undefined>
  setTransactionErrors(tid: number, errors: [number, string][]): Promise<void>
  commitTransaction(tid: number, committed: string, results: [number, string][]): Promise<void>
  disposeTransaction(tid: number): Promise<void>
}
