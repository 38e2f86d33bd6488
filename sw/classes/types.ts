/**
 * @module classes/types
 * The plug-in contract of a resource class. A class owns its member(s) of the composite
 * resource object: validation on create and change, storage, and serialization.
 */
import type { SqlDb } from '../store/database.ts'
import type { Principal } from '../auth/types.ts'
import type { Services } from '../services.ts'
import type { Progress } from '../ingest/progress.ts'

export interface ClassContext {
  db: SqlDb
  user: Principal
  now: Date
  /** What the class's `prepare` made for this create or change, if it has one. */
  prepared?: Prepared
}

/**
 * Work a class does before the main write of a create or change, outside its transaction:
 * reading uploads and building storage (an ingest). The write then only records it.
 */
export interface Prepared {
  /** The id reserved for the new resource, when its storage is named after it. */
  resourceId?: number
  /** Undoes the preparation: the write did not happen. */
  discard(): Promise<void>
  /** The write committed (or was discarded): what was prepared needs no protection any more. */
  settle(): void
}

export interface PrepareEnv {
  services: Services
  /** Reports the progress of long work (see ingest/progress). */
  progress: Progress
  signal?: AbortSignal
  /** The resource being changed; absent on create. */
  resourceId?: number
}

/** Class-owned state kept in the resource row's `data` column (JSON). */
export type ClassData = Record<string, unknown>

export interface ResourceClass {
  identity: string
  label: string
  /** Listing order among siblings (reference §4.3): groups 0, web maps 20, layers 60… */
  order: number
  scopes: string[]
  interfaces: string[]
  /** Names of the top-level members this class reads on create and change. */
  members: string[]
  /** Whether a resource of this class may live under a parent of class `parentCls`. */
  acceptsParent(parentCls: string): boolean
  /**
   * Validates the members sent on create (absent ones are `undefined`), writes any rows of its
   * own and returns the initial `data`. Throws `ApiError` (422) on bad input.
   */
  create(ctx: ClassContext, id: number, members: Record<string, unknown>): ClassData
  /** Applies the members sent on change; returns the new `data`. */
  update(ctx: ClassContext, id: number, members: Record<string, unknown>, data: ClassData): ClassData
  /** The class's members of the composite object, by member name. */
  serialize(ctx: ClassContext, id: number, data: ClassData): Record<string, unknown>
  /**
   * Optional: work before the main write of a create or change (members as sent). Returns
   * `undefined` when there is none for these members. Throws `ApiError` (422) on bad input,
   * leaving nothing behind.
   */
  prepare?(env: PrepareEnv, members: Record<string, unknown>): Promise<Prepared | undefined>
  /** Removes what the class stored outside the resource row (rows cascade by themselves). */
  remove?(ctx: ClassContext, id: number, data: ClassData): void
}
