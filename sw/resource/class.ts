/**
 * @module resource/class
 * What the resource tree needs of a resource class: its identity and listing facts, and the
 * hooks that validate, store and serialize its members of the composite resource object.
 * The plug-in contract (`classes/types.ts`) extends this with capabilities; the tree finds
 * classes through a `ClassLookup` in its context, never by importing them.
 */
import type { Awaitable, MainRead, MainWrite } from '../port/port.ts'
import type { Principal } from '../auth/types.ts'
import type { AclEvaluator } from '../auth/acl.ts'
import type { Progress } from '../ingest/progress.ts'
import type { ResourceCategory } from './category.ts'
import type { ClassData, ResourceRef } from './types.ts'

/** What a class hook gets: the main data inside the caller's read or unit of work. */
export interface ClassContext {
  /** The caller's read (`serialize`) or unit of work (`WriteContext`): a hook reads and writes only through it. */
  tx: MainRead
  user: Principal
  now: Date
  /**
   * The permission evaluator, for a hook whose rule is a permission of its own scope or on
   * another resource (`connection.write`, `connection.connect` on a layer's connection);
   * absent where nothing is checked (the demo's seeding).
   */
  acl?: AclEvaluator
  /** What the class's `prepare` made for this create or change, if it has one. */
  prepared?: Prepared
  /** On create and change: the resource's parent as the tree read it (the new one on a move). */
  parent?: ResourceRef
}

/** What the hooks that change data get: the caller's unit of work. */
export interface WriteContext extends ClassContext {
  tx: MainWrite
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
  /**
   * Optional: runs once the create's main write committed (a linked layer's first download);
   * when it fails, the new resource is deleted again.
   */
  afterCommit?(id: number): Promise<void>
}

export interface PrepareEnv {
  /** Reports the progress of long work (see ingest/progress). */
  progress: Progress
  signal?: AbortSignal
  /** The resource being changed; absent on create. */
  resourceId?: number
  /**
   * Whether the request's user has `scope.permission` on resource `id` (false when it does not
   * exist): work that reads another resource's data checks it before it starts. Absent where
   * nothing is checked.
   */
  may?(id: number, scope: string, permission: string): Promise<boolean>
}

export type { ClassData }

/** Work a delete hook leaves for after the main transaction has committed (dropping a database). */
export type AfterCommit = () => Promise<void>

export interface ResourceKind {
  identity: string
  label: string
  /** Listing order among siblings (reference §4.3): groups 0, web maps 20, layers 60… */
  order: number
  /** The blueprint's category, one of the original's (`layers_and_styles`, `miscellaneous`…). */
  category: ResourceCategory
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
  create(ctx: WriteContext, id: number, members: Record<string, unknown>): Awaitable<ClassData>
  /** Applies the members sent on change; returns the new `data`. */
  update(ctx: WriteContext, id: number, members: Record<string, unknown>, data: ClassData): Awaitable<ClassData>
  /** The class's members of the composite object, by member name. */
  serialize(ctx: ClassContext, id: number, data: ClassData): Awaitable<Record<string, unknown>>
  /**
   * Optional: `serialize` for a page of resources of this class at once (a listing), in their
   * order, for a class whose members read rows of their own: one query for the page, not one each.
   */
  serializeMany?(ctx: ClassContext, items: ReadonlyArray<{ id: number; data: ClassData }>): Awaitable<Record<string, unknown>[]>
  /**
   * Optional: work before the main write of a create or change (members as sent), such as
   * an ingest. Returns `undefined` when there is none for these members. Throws `ApiError`
   * (422) on bad input, leaving nothing behind.
   */
  prepare?(env: PrepareEnv, members: Record<string, unknown>): Promise<Prepared | undefined>
  /** Optional: makes ready what `serialize` reads outside the main database, for resources `ids`. */
  load?(ids: number[]): Promise<void>
  /**
   * Runs inside the main transaction that deletes resource `id` (its rows cascade by
   * themselves). Returns what must happen only once that transaction has committed, such as
   * deleting the class's own database; a rolled-back delete runs none of it.
   */
  remove?(ctx: WriteContext, id: number, data: ClassData): Awaitable<AfterCommit | void>
}

export interface ClassLookup {
  /** The class named `cls` (or its original alias), or `undefined`. */
  find(cls: string): ResourceKind | undefined
  /** Like `find` for names read from the database, which are always registered. */
  get(cls: string): ResourceKind
  list(): readonly ResourceKind[]
}
