/**
 * @module sqlite/main/fields
 * The layers' field lists in the main database (`FieldRead/FieldWrite`, table `layer_field`,
 * ids system-wide and kept across renames). The class hooks (feature/fields-member.ts)
 * reach them through `ctx.tx.fields`.
 */
import type { SqlDb } from '../../store/database.ts'
import type { Field, FieldType } from '../../feature/types.ts'
import type { FieldPatch, FieldRead, FieldWrite, NewField } from '../../port/features.ts'
import { reserveIds } from './sequence.ts'

interface FieldRow {
  resource_id: number; id: number; keyname: string; display_name: string; datatype: FieldType; label_field: number
  grid_visibility: number; text_search: number; lookup_table_id: number | null
}

function fieldsOf(db: SqlDb, ids: readonly number[]): Map<number, Field[]> {
  const rows = db.selectObjects(`SELECT resource_id, id, keyname, display_name, datatype, label_field, grid_visibility,
      text_search, lookup_table_id FROM layer_field WHERE resource_id IN (SELECT value FROM json_each(?))
      ORDER BY resource_id, idx, id`, [JSON.stringify(ids)]) as unknown as FieldRow[]
  const out = new Map<number, Field[]>()
  for (const r of rows) {
    let fields = out.get(r.resource_id)
    if (!fields) out.set(r.resource_id, fields = [])
    fields.push({ id: r.id, keyname: r.keyname, display_name: r.display_name, datatype: r.datatype,
      typemod: null, label_field: !!r.label_field, grid_visibility: !!r.grid_visibility, text_search: !!r.text_search,
      required: false, lookup_table: r.lookup_table_id === null ? null : { id: r.lookup_table_id } })
  }
  return out
}

const nextFieldIdx = (db: SqlDb, resourceId: number): number =>
  Number(db.selectValue(`SELECT coalesce(max(idx), -1) + 1 FROM layer_field WHERE resource_id = ?`, [resourceId]))

const fieldDatatype = (db: SqlDb, resourceId: number, id: number): FieldType | undefined =>
  db.selectValue(`SELECT datatype FROM layer_field WHERE id = ? AND resource_id = ?`, [id, resourceId]) as FieldType | undefined

function duplicateField(db: SqlDb, resourceId: number): { column: 'keyname' | 'display_name'; value: string } | undefined {
  for (const column of ['keyname', 'display_name'] as const) {
    const value = db.selectValue(`SELECT ${column} FROM layer_field WHERE resource_id = ? GROUP BY ${column} HAVING count(*) > 1 LIMIT 1`, [resourceId])
    if (value !== undefined) return { column, value: String(value) }
  }
  return undefined
}

function insertField(db: SqlDb, resourceId: number, idx: number, f: NewField): void {
  db.exec({ sql: `INSERT INTO layer_field (id, resource_id, idx, keyname, display_name, datatype, label_field, grid_visibility,
      text_search, lookup_table_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  bind: [f.id ?? null, resourceId, idx, f.keyname, f.display_name, f.datatype, f.label_field ? 1 : 0, f.grid_visibility ? 1 : 0,
    f.text_search ? 1 : 0, f.lookup_table] })
}

/** The column each member of a patch sets, and how its value is stored. */
const PATCH_COLUMNS: { [K in keyof Required<FieldPatch>]: [string, (v: NonNullable<FieldPatch[K]> | null) => string | number | null] } = {
  keyname: ['keyname', (v) => v],
  display_name: ['display_name', (v) => v],
  label_field: ['label_field', (v) => v ? 1 : 0],
  grid_visibility: ['grid_visibility', (v) => v ? 1 : 0],
  text_search: ['text_search', (v) => v ? 1 : 0],
  lookup_table: ['lookup_table_id', (v) => v],
}

function updateField(db: SqlDb, id: number, patch: FieldPatch): void {
  const sets: string[] = []
  const bind: (string | number | null)[] = []
  for (const [member, [column, store]] of Object.entries(PATCH_COLUMNS) as Array<[keyof FieldPatch, [string, (v: unknown) => string | number | null]]>) {
    if (patch[member] === undefined) continue
    sets.push(`${column} = ?`)
    bind.push(store(patch[member]))
  }
  if (sets.length) db.exec({ sql: `UPDATE layer_field SET ${sets.join(', ')} WHERE id = ?`, bind: [...bind, id] })
}

const deleteField = (db: SqlDb, id: number): void => { db.exec({ sql: `DELETE FROM layer_field WHERE id = ?`, bind: [id] }) }

export const fieldsRead = (db: SqlDb): FieldRead => ({
  list: async (ids) => fieldsOf(db, ids),
  nextIdx: async (resourceId) => nextFieldIdx(db, resourceId),
  datatype: async (resourceId, id) => fieldDatatype(db, resourceId, id),
  duplicate: async (resourceId) => duplicateField(db, resourceId),
})

export const fieldsWrite = (db: SqlDb): FieldWrite => ({
  ...fieldsRead(db),
  insert: async (resourceId, idx, f) => insertField(db, resourceId, idx, f),
  update: async (id, patch) => updateField(db, id, patch),
  delete: async (id) => deleteField(db, id),
  reserveIds: async (count) => reserveIds(db, 'layer_field', count),
})
