/**
 * @module resource/types
 * The resource row as stored in the main database, and the ref the class registry hands out.
 */

/** Class-owned state kept in the resource row's `data` column (JSON). */
export type ClassData = Record<string, unknown>

export interface ResourceRow {
  id: number
  cls: string
  parent_id: number | null
  keyname: string | null
  display_name: string
  description: string | null
  owner_user_id: number
  creation_date: string
  /** JSON array of ACL rules, kept as sent. */
  permissions: string
  /** JSON object owned by the resource's class. */
  data: string
}

/**
 * What components and class capabilities know of a resource, read once through the class
 * registry (`ref`, `refs`): its class, place in the tree, name and class data. Shared by every
 * caller while the main database has not changed, so it is never modified.
 */
export interface ResourceRef { id: number; cls: string; parentId: number | null; displayName: string; data: ClassData }

/** The registry's lookup of resource refs (cached until the main database changes). */
export interface ResourceRefs {
  /** Resource `id`, or `undefined` when there is none. */
  ref(id: number): Promise<ResourceRef | undefined>
  /** The resources `ids`, position for position (`undefined` for a missing one). */
  refs(ids: readonly number[]): Promise<Array<ResourceRef | undefined>>
}
