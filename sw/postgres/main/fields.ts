/**
 * @module postgres/main/fields
 * The layers' field lists on PostgreSQL (`FieldRead/FieldWrite`, table `layer_field`, ids
 * system-wide and kept across renames), answering as sqlite/main/fields.ts.
 */
import type { Field, FieldType } from '../../feature/types.ts'
import type { FieldPatch, FieldRead, FieldWrite } from '../../port/features.ts'
import type { PgConn } from '../conn.ts'
import { keepingId, reserveIds } from './sequence.ts'

interface FieldRow {
  resource_id: number; id: number; keyname: string; display_name: string; datatype: FieldType; label_field: boolean
  grid_visibility: boolean; text_search: boolean; lookup_table_id: number | null
}

/** The column each member of a patch sets, and how its value is stored (flags as booleans, as SQLite's `v ? 1 : 0`). */
const flag = (v: unknown) => !!v
const same = (v: unknown) => v
const PATCH_COLUMNS: { [K in keyof Required<FieldPatch>]: [string, (v: unknown) => unknown] } = {
  keyname: ['keyname', same], display_name: ['display_name', same], label_field: ['label_field', flag],
  grid_visibility: ['grid_visibility', flag], text_search: ['text_search', flag], lookup_table: ['lookup_table_id', same],
}

const INSERT = `INSERT INTO layer_field (resource_id, idx, keyname, display_name, datatype, label_field, grid_visibility, text_search, lookup_table_id`

export const fieldsRead = (db: PgConn): FieldRead => ({
  list: async (ids) => {
    const out = new Map<number, Field[]>()
    for (const r of await db.rows<FieldRow>(`SELECT resource_id, id, keyname, display_name, datatype, label_field, grid_visibility,
        text_search, lookup_table_id FROM layer_field WHERE resource_id = ANY($1::bigint[]) ORDER BY resource_id, idx, id`, [ids])) {
      let fields = out.get(r.resource_id)
      if (!fields) out.set(r.resource_id, fields = [])
      fields.push({ id: r.id, keyname: r.keyname, display_name: r.display_name, datatype: r.datatype,
        typemod: null, label_field: r.label_field, grid_visibility: r.grid_visibility, text_search: r.text_search,
        required: false, lookup_table: r.lookup_table_id === null ? null : { id: r.lookup_table_id } })
    }
    return out
  },
  nextIdx: async (resourceId) => Number(await db.value(`SELECT coalesce(max(idx), -1) + 1 FROM layer_field WHERE resource_id = $1`, [resourceId])),
  datatype: async (resourceId, id) => db.value<FieldType>(`SELECT datatype FROM layer_field WHERE id = $1 AND resource_id = $2`, [id, resourceId]),
  duplicate: async (resourceId) => {
    // `column` is one of our two literals, never input.
    for (const column of ['keyname', 'display_name'] as const) {
      const value = await db.value<string>(`SELECT ${column} FROM layer_field WHERE resource_id = $1
        GROUP BY ${column} HAVING count(*) > 1 ORDER BY ${column} COLLATE "C" LIMIT 1`, [resourceId])
      if (value !== undefined) return { column, value }
    }
    return undefined
  },
})

export const fieldsWrite = (db: PgConn): FieldWrite => ({
  ...fieldsRead(db),
  insert: async (resourceId, idx, f) => {
    const values = [resourceId, idx, f.keyname, f.display_name, f.datatype, !!f.label_field, !!f.grid_visibility, !!f.text_search, f.lookup_table]
    if (f.id === undefined || f.id === null) await db.exec(`${INSERT}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, values)
    else await db.exec(keepingId('layer_field', `${INSERT}, id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`), [...values, f.id])
  },
  update: async (id, patch) => {
    const sets: string[] = []
    const bind: unknown[] = []
    for (const [member, [column, store]] of Object.entries(PATCH_COLUMNS) as Array<[keyof FieldPatch, [string, (v: unknown) => unknown]]>) {
      if (patch[member] === undefined) continue
      bind.push(store(patch[member]))
      sets.push(`${column} = $${bind.length}`)
    }
    if (sets.length) await db.exec(`UPDATE layer_field SET ${sets.join(', ')} WHERE id = $${bind.length + 1}`, [...bind, id])
  },
  delete: async (id) => { await db.exec(`DELETE FROM layer_field WHERE id = $1`, [id]) },
  reserveIds: async (count) => reserveIds(db, 'layer_field', count),
})
