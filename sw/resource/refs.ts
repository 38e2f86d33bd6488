// port: legacy-sql (issue 22)
/**
 * @module resource/refs
 * The one read of resource refs (`ResourceRef`: class, parent, name, class data) from the
 * main database. The class registry calls it for the ids it has not cached and hands the refs
 * to the components and the class capabilities, so none of them reads the resource row itself.
 * The reads here serve the callers not on the data port yet (the registry, vector_layer); the
 * same SQL is `tx.resources.refs`/`ofClass`/`maxDataNumber` in sw/sqlite/main/resources.ts,
 * and this module goes with issue 22's final step.
 */
import type { SqlDb } from '../store/database.ts'
import type { ClassData, ResourceRef, ResourceRow } from './types.ts'

type RefColumns = Pick<ResourceRow, 'id' | 'cls' | 'parent_id' | 'display_name' | 'data'>

/** The ref of a row as read (its `data` parsed). */
export function refOf(row: RefColumns): ResourceRef {
  return { id: row.id, cls: row.cls, parentId: row.parent_id, displayName: row.display_name, data: JSON.parse(row.data) as ClassData }
}

/** The refs of the resources `ids` that exist, in no particular order: one query however many ids. */
export function readRefs(db: SqlDb, ids: readonly number[]): ResourceRef[] {
  if (!ids.length) return []
  const rows = (ids.length === 1
    ? db.selectObjects(`SELECT id, cls, parent_id, display_name, data FROM resource WHERE id = ?`, [ids[0]!])
    : db.selectObjects(`SELECT id, cls, parent_id, display_name, data FROM resource WHERE id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(ids)])) as RefColumns[]
  return rows.map(refOf)
}

/** The refs of every resource of class `cls`, by id. */
export function readRefsOfClass(db: SqlDb, cls: string): ResourceRef[] {
  return (db.selectObjects(`SELECT id, cls, parent_id, display_name, data FROM resource WHERE cls = ? ORDER BY id`, [cls]) as RefColumns[])
    .map(refOf)
}

/** The largest number at `path` (dotted) in any resource's class data; 0 when there is none. */
export function maxDataNumber(db: SqlDb, path: 'versioning.epoch'): number {
  return Number(db.selectValue(`SELECT coalesce(max(json_extract(data, ?)), 0) FROM resource`, [`$.${path}`]))
}
