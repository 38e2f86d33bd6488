/**
 * @module resource/types
 * The resource row as stored in the main database.
 */
import type { ClassData } from './class.ts'

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

/** A resource as the class lookup needs it (issue 22, item 3): its class and its class's data, parsed. */
export interface ResourceRef { id: number; cls: string; parentId: number | null; displayName: string; data: ClassData }
