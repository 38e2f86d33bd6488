/**
 * @module resource/refs
 * A resource's ref (`ResourceRef`: class, parent, name, class data) from its row as read. The
 * class registry hands refs to the components and the class capabilities, so none of them reads
 * the resource row itself; the reads are `tx.resources.refs`/`ofClass` (sw/sqlite/main/resources.ts).
 */
import type { ClassData, ResourceRef, ResourceRow } from './types.ts'

export type RefColumns = Pick<ResourceRow, 'id' | 'cls' | 'parent_id' | 'display_name' | 'data'>

/** The ref of a row as read (its `data` parsed). */
export function refOf(row: RefColumns): ResourceRef {
  return { id: row.id, cls: row.cls, parentId: row.parent_id, displayName: row.display_name, data: JSON.parse(row.data) as ClassData }
}
