/**
 * @module resource/repository
 * What the tree needs from storage (issue 22, docs/architecture.md "Data port"): the resource
 * rows, their resmeta, the change journal and the answers of keyed writes. Declared here, by
 * the component that uses it, in engine-neutral terms; `sw/sqlite/main/` implements it in SQL.
 * Every method is asynchronous, since another engine answers over a connection pool.
 */
import type { PastRequest } from '../core/idempotency.ts'
import type { ClassData } from './types.ts'
import type { ResmetaValue } from './resmeta.ts'
import type { ResourceRef, ResourceRow } from './types.ts'

export type { ResourceRef }

/** A new row of the tree; `id` is given when it was reserved before the unit of work (an ingest). */
export interface NewResource {
  id?: number
  cls: string
  /** `null` only for the root, which the first start creates. */
  parentId: number | null
  keyname: string | null
  displayName: string
  description: string | null
  ownerUserId: number
  /** Naive ISO time, as the reference shows it. */
  creationDate: string
  /** The ACL rules' JSON, kept as sent. */
  permissions: string
}

/** What an update changes; absent keys stay. */
export interface ResourcePatch {
  parentId?: number
  keyname?: string | null
  displayName?: string
  description?: string | null
  ownerUserId?: number
  permissions?: string
  data?: ClassData
}

/** One resmeta filter of `GET /api/resource/search/` (parsed in search.ts). */
export type ResmetaFilter =
  | { key: string; op: 'has' | 'has_not' }
  /** `value`: any JSON literal the client sent, compared as JSON text (only primitives are ever stored). */
  | { key: string; op: 'eq'; value: unknown }
  | { key: string; op: 'like' | 'ilike'; value: string }

/** The search's filters, parsed and validated (search.ts), with no SQL in them. */
export interface ResourceSearch {
  /** Column conditions: `eq` a value, `in` a list, `like` a case-sensitive pattern, `ilike` an insensitive one. */
  columns: Array<{ column: SearchColumn; op: 'eq' | 'in' | 'like' | 'ilike'; value: string | number | Array<string | number> }>
  resmeta: ResmetaFilter[]
  /** Only resources in the subtree of each of these (itself included): `root` and its 4.x alias may both be sent. */
  roots: number[]
  /**
   * Sort keys in order; the id breaks ties. `rank` (with `type`): the class names in the order to
   * sort them, when answers spell some of them otherwise than storage (`--identifiers original`).
   */
  order: Array<{ key: 'name' | 'type' | 'owner' | 'created'; desc: boolean; rank?: readonly string[] }>
  /** A page of the matches (`total` still counts them all); absent: every match. */
  page?: { limit: number | null; offset: number }
}

export type SearchColumn = 'id' | 'cls' | 'parent_id' | 'keyname' | 'display_name' | 'owner_user_id' | 'description'

/** What a page's composite objects need besides the rows (`ResourceRead.page`). */
export interface PageQuery {
  /** The resources, in the page's order. */
  ids: readonly number[]
  /** Per class: its identity as the answer names it, and the `,"interfaces":…,"scopes":…` text after it. */
  classes: ReadonlyMap<string, { identity: string; tail: string }>
  /** With `resmeta` and `social` (the full form), or the `resource` member only. */
  full: boolean
  /** The class members of each id as the inside of an object's text (`"a":1,"b":2`); absent ids have none. */
  members?: ReadonlyMap<number, string>
}

export interface ResourceRead {
  get(id: number): Promise<ResourceRow | undefined>
  /** The one class lookup (item 3): the refs of the ids that exist, missing ids left out. */
  refs(ids: readonly number[]): Promise<ResourceRef[]>
  /** The children's ids and classes, unordered: all a listing's ACL filter needs (names come with `names`). */
  children(parentId: number): Promise<Array<Pick<ResourceRow, 'id' | 'cls'>>>
  /** The display names of `ids` (a listing sorts the children it shows). */
  names(ids: readonly number[]): Promise<Map<number, string>>
  hasChildren(id: number): Promise<boolean>
  /** `null` for the root, `undefined` when `id` does not exist. */
  parentOf(id: number): Promise<number | null | undefined>
  /** `id` and everything below it, deepest last. */
  subtree(id: number): Promise<number[]>
  /** The breadcrumbs of `id`: its ancestors from the root down to its parent. */
  path(id: number): Promise<{ id: number; display_name: string }[]>
  /** The id of another resource holding the keyname (anywhere) or the display name (among siblings). */
  nameTaken(q: { keyname?: string; parentId?: number; displayName?: string; exceptId: number }): Promise<number | undefined>
  search(q: ResourceSearch): Promise<{ rows: ResourceRow[]; total: number }>
  /**
   * The composite objects (`resource`, and in the full form `resmeta` and `social`, then the
   * class members given) of `q.ids` as one JSON array text, in their order (resource/service.ts
   * `serializeRows`); as UTF-8 bytes with `bytes`, for an answer that is only sent on.
   */
  page(q: PageQuery): Promise<string>
  pageBytes(q: PageQuery): Promise<Uint8Array<ArrayBuffer>>
  ofClass(cls: string): Promise<ResourceRef[]>
  resmeta(id: number): Promise<Record<string, ResmetaValue>>
  /** The largest number at `path` in any resource's data (versioning-member.ts), 0 when none. */
  maxDataNumber(path: 'versioning.epoch'): Promise<number>
}

export interface ResourceWrite extends ResourceRead {
  /** A broken tree invariant is an ApiError (hierarchyError/rootDeleteError): nothing above parses messages. */
  insert(r: NewResource): Promise<number>
  update(id: number, p: ResourcePatch): Promise<void>
  setData(id: number, data: ClassData): Promise<void>
  delete(ids: readonly number[]): Promise<void>
  setResmeta(id: number, items: Record<string, ResmetaValue>): Promise<void>
  /** `count` consecutive ids no insert will take; returns the first (ingest/reserve.ts). */
  reserveIds(count: number): Promise<number>
}

/** One entry of the change journal: who did what to which resource. */
export interface JournalEntry { tstamp: string; userId: number; resourceId: number; action: string; payload: unknown }
export interface JournalWrite { add(e: JournalEntry): Promise<void> }

/** The answers of keyed writes (`Idempotency-Key`), committed or rolled back with the write they answer. */
export interface RequestLogRead { past(key: string): Promise<PastRequest | undefined> }
export interface RequestLogWrite extends RequestLogRead {
  /** `now` in seconds; answers older than a day go. */
  record(key: string, fingerprint: string, body: string, now: number): Promise<void>
}
