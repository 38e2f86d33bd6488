/**
 * @module sync/types
 * The sync component's contracts. Classes provide two capabilities to it:
 * - a remote connection (`remote_connection`): where a team's server is and how to log in;
 * - a replica (`vector_layer`): a layer linked to a remote layer, with the bookkeeping of
 *   what has been exchanged kept in the layer's own database, so that a change and its
 *   bookkeeping are one durable write.
 * Wire shapes of the sync endpoints are here too (snake_case).
 */
import type { FeatureRead, FeatureWrite, LayerMeta, Synchronous, WriteActor } from '../feature/types.ts'
import type { ResourceRef } from '../resource/types.ts'

/** How to reach a team's server. */
export interface Credentials {
  /** The server's base URL (`https://host[:port][/prefix]`, no trailing slash). */
  url: string
  username: string | null
  password: string | null
}

export interface RemoteConnectionProvider {
  /** The connection `ref` (the registry checked its class), its password decrypted. */
  credentials(ref: ResourceRef): Promise<Credentials | undefined>
}

/** What a layer is linked to (kept with the layer resource). */
export interface Link {
  connection: number
  resource: number
}

/** What this side knows of the remote layer and of the exchange so far (kept in the layer). */
export interface LinkState {
  /** Remote field id by local field id (matched by keyname when linked). */
  fieldMap: Record<string, number>
  /** Whether the remote layer keeps versions: changes feed and locks by vid, or full listings. */
  remoteVersioned: boolean
  remoteEpoch: number | null
  /** The remote version everything up to is pulled. */
  remoteVersion: number
  /** A pull cut off: its target and the next page to read. */
  pull: { target: number; url: string } | null
  /** A push whose transaction may or may not have committed on the remote (kept before the commit). */
  push: PendingPush | null
  lastSync: string | null
  /** The remote refused our last push (401/403: the account may read but not write) since then; `null`/absent: it did not. */
  pushRefused?: { since: string; status: number } | null
}

/** One operation of a pushed transaction, with what it stands for locally. */
export interface PushedOp {
  /** `-1`, with no payload: nothing to send (an attachment going with its feature), only bookkeeping. */
  seqnum: number
  payload: string | null
  kind: 'create' | 'update' | 'delete' | 'attachment.create' | 'attachment.update' | 'attachment.delete' | 'description'
  fid: number
  aid?: number
  /** The local version of the feature, description or attachment that was sent. */
  vid: number
  /** An attachment's local file that was sent. */
  fileobj?: number | null
}

export interface PendingPush {
  tid: number
  ops: PushedOp[]
}

/** A feature as both sides compare and show it: WKB geometry (base64), fields by keyname, description. */
export interface FeatureState {
  geom: string | null
  fields: Record<string, unknown>
  description?: string | null
}

export type ConflictKind = 'update/update' | 'update/delete' | 'delete/update'

/** A feature changed on both sides: both versions kept until a person chooses. */
export interface Conflict {
  id: number
  fid: number
  rfid: number
  kind: ConflictKind
  /** `null`: deleted on that side. */
  local: FeatureState | null
  remote: FeatureState | null
  /** The remote version the remote state is from (the lock a kept local version is pushed with). */
  rvid: number | null
  created: string
}

/**
 * A remote feature the pull could not take (a value this layer cannot hold, a geometry it
 * cannot read): noted instead of failing the round, so nothing else waits for it.
 */
export interface Problem {
  rfid: number
  /** The local feature it is (`null`: not here, it came as new). */
  fid: number | null
  reason: string
  /** When it was first seen. */
  since: string
}

/** The bookkeeping of one local feature that exists on the remote. */
export interface Mapping {
  fid: number
  rfid: number
  rvid: number | null
  /** The local version of the feature when it last matched the remote. */
  base: number
  /** The local version of its description then. */
  dbase: number
  /** A hash of the remote state last seen (remotes without versions). */
  rhash: string | null
}

/** A mapped feature as a pull finds it here: its mapping, its current version, conflict or not. */
export interface LocalRecord {
  mapping: Mapping
  vid: number
  deleted: boolean
  /** The version of its description (0: never had one). */
  dvid: number
  conflicted: boolean
}

/** A local change waiting to be pushed. */
export interface LocalChange {
  fid: number
  kind: 'create' | 'update' | 'delete' | 'description'
  vid: number
  /** The version of its description now (0: never had one): read with the change, not asked per feature. */
  dvid: number
  mapping?: Mapping
}

export interface AttachmentMapping {
  aid: number
  raid: number
  fid: number
  /** The local version of the attachment when both sides last matched, and its file then. */
  base: number
  lfileobj: number | null
  rfileobj: number | null
}

export interface LocalAttachmentChange {
  aid: number
  fid: number
  kind: 'create' | 'update' | 'delete'
  vid: number
  fileChanged: boolean
  mapping?: AttachmentMapping
}

/** One feature of `ReplicaWrite.mapMany`: `map`'s arguments. */
export interface MapItem {
  fid: number
  rfid: number
  rvid: number | null
  rhash: string | null
  /** The versions both sides matched at (absent: the current ones; `dvid` absent: the description's current one). */
  at?: { vid: number; dvid?: number }
}

/** The replica's bookkeeping inside a layer transaction (each call a promise, as the feature ports). */
export interface ReplicaRead {
  state(): Promise<LinkState | undefined>
  history(): Promise<SyncReport[]>
  mapping(fid: number): Promise<Mapping | undefined>
  /** The mappings of the local features `fids` that have one, by fid, in one query. */
  mappingsOf(fids: number[]): Promise<Map<number, Mapping>>
  localOf(rfid: number): Promise<Mapping | undefined>
  /** The records of the local features mapped to `rfids`, by rfid, in one query. */
  localsOf(rfids: number[]): Promise<Map<number, LocalRecord>>
  mappings(): Promise<Mapping[]>
  attachmentMapping(aid: number): Promise<AttachmentMapping | undefined>
  attachmentMappings(): Promise<AttachmentMapping[]>
  localAttachmentOf(raid: number): Promise<AttachmentMapping | undefined>
  /** The mappings of the local attachments that are `raids`, by raid, in one query. */
  localAttachmentsOf(raids: number[]): Promise<Map<number, AttachmentMapping>>
  localChanges(): Promise<LocalChange[]>
  localAttachmentChanges(): Promise<LocalAttachmentChange[]>
  conflicts(): Promise<Conflict[]>
  conflict(id: number): Promise<Conflict | undefined>
  /** The local version of a feature's description (0: never had one). */
  descriptionVid(fid: number): Promise<number>
  problems(): Promise<Problem[]>
}

export interface ReplicaWrite extends ReplicaRead {
  setState(state: LinkState): Promise<void>
  addHistory(report: SyncReport): Promise<void>
  /**
   * Records that local `fid` is remote `rfid` and that both sides matched when the feature was
   * at local version `at` (a push: the versions it sent; absent: the current ones).
   */
  map(fid: number, rfid: number, rvid: number | null, at?: { vid: number; dvid?: number }, rhash?: string | null): Promise<void>
  /**
   * `map` of many features (each fid once), in one statement where the engine can: a pulled
   * page's features at their current versions, a push's results at the versions `at` it sent.
   */
  mapMany(items: MapItem[]): Promise<void>
  /** Only the remote side moved on (our own change coming back): the new lock, the rest as it was. */
  relock(fid: number, rvid: number | null, rhash?: string | null): Promise<void>
  /** `relock` of many features (each fid once), in one statement where the engine can. */
  relockMany(items: { fid: number; rvid: number | null; rhash: string | null }[]): Promise<void>
  unmap(fid: number): Promise<void>
  /** `unmap` of many features, in one statement per table where the engine can. */
  unmapMany(fids: number[]): Promise<void>
  mapAttachment(aid: number, raid: number, fid: number, rfileobj: number | null, at?: { vid: number; fileobj: number | null }): Promise<void>
  unmapAttachment(aid: number): Promise<void>
  addConflict(c: Omit<Conflict, 'id' | 'created'>): Promise<void>
  removeConflict(id: number): Promise<void>
  /** Notes (or renews) a problem with remote feature `rfid`; its local feature waits until it is gone. */
  setProblem(p: Omit<Problem, 'since'>): Promise<void>
  clearProblem(rfid: number): Promise<void>
  /** Makes the writes so far visible to the bookkeeping (queued creates are inserted). */
  flush(): Promise<void>
}

/** A linked layer: its features and the bookkeeping, read and written together. */
export interface Replica {
  readonly meta: LayerMeta
  readonly link: Link
  read<T>(fn: (tx: FeatureRead, r: ReplicaRead) => Promise<T>): Promise<T>
  write<T>(fn: (tx: FeatureWrite, r: ReplicaWrite) => Promise<T>, actor?: WriteActor): Promise<T>
}

/** The synchronous shape the SQLite implementation keeps (`feature/types.ts` "the synchronous shape"). */
export type ReplicaWriteSync = Synchronous<ReplicaWrite>

export interface ReplicaProvider {
  /** The replica of layer `ref`; `undefined` when it is not linked to a remote layer. */
  open(ref: ResourceRef): Promise<Replica | undefined>
  /** Ids of every linked layer. */
  linked(): Promise<number[]>
}

/** How the sync component finds connections and replicas, whatever classes provide them. */
export interface SyncLookup {
  remoteConnection(id: number): Promise<Credentials | undefined>
  replica(id: number): Promise<Replica | undefined>
  linkedLayers(): Promise<number[]>
}

/** Counts of one direction of a round. */
export interface Counts {
  created: number
  updated: number
  deleted: number
  attachments: number
}

/** The answer of `POST /api/resource/{id}/sync`, and an entry of the history. */
export interface SyncReport {
  status: 'ok' | 'conflicts' | 'error'
  pushed: Counts
  pulled: Counts
  conflicts: number
  /** Remote features the pulls could not take, open after the round. */
  problems: ProblemJson[]
  started: string
  finished: string
  error?: { title: string; message?: string }
  /** The remote refused the push (the account may not write there); the changes wait here. */
  push_refused?: { title: string; message: string }
}

/** A problem as the API shows it. */
export interface ProblemJson {
  fid: number | null
  remote_fid: number
  reason: string
  since: string
}
