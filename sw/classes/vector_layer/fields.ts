// port: legacy-sql (issue 22)
/**
 * @module classes/vector_layer/fields
 * The fields of a feature layer: stored in `layer_field` with system-wide ids that survive
 * renames (the changes and transaction APIs refer to fields by id).
 */
import { validationError } from '../../core/error.ts'
import { expectKind, expectObject } from '../../core/validate.ts'
import type { SqlDb } from '../../store/database.ts'
import { FIELD_TYPES, type Field, type FieldType } from '../../feature/types.ts'
import { readRefs } from '../../resource/refs.ts'

interface FieldRow {
  id: number; keyname: string; display_name: string; datatype: FieldType; label_field: number
  grid_visibility: number; text_search: number; lookup_table_id: number | null
}

/**
 * Moves whenever a transaction writes field lists (any layer's), before it commits; a
 * rolled-back write only costs a reader one more read. Field lists are written only here (and
 * go with their resource), so a list read while this stood still is current, however the rest
 * of the main database changed: the layers cache theirs on it (`LayerStore.meta`).
 */
let fieldWrites = 0
export const fieldWriteCount = () => fieldWrites

export function listFields(db: SqlDb, resourceId: number): Field[] {
  return listFieldsOf(db, [resourceId]).get(resourceId) ?? []
}

/** The fields of every layer of `ids` in one query (a listing's page of layers). */
export function listFieldsOf(db: SqlDb, ids: readonly number[]): Map<number, Field[]> {
  const rows = db.selectObjects(`SELECT resource_id, id, keyname, display_name, datatype, label_field, grid_visibility,
      text_search, lookup_table_id FROM layer_field WHERE resource_id IN (SELECT value FROM json_each(?))
      ORDER BY resource_id, idx, id`, [JSON.stringify(ids)]) as unknown as Array<FieldRow & { resource_id: number }>
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

function datatypeOf(v: unknown, path: string): FieldType {
  const s = expectKind<string>('str', v, path)
  if (!(FIELD_TYPES as readonly string[]).includes(s)) {
    throw validationError(`Invalid field data type '${s}'; expected one of ${FIELD_TYPES.join(', ')} - at \`${path}\``)
  }
  return s as FieldType
}

function boolOf(v: unknown, path: string, fallback: boolean): boolean {
  return v === undefined ? fallback : expectKind<boolean>('bool', v, path)
}

/**
 * Applies a `fields` list: items with `id` change that field (`delete: true` removes it),
 * items without `id` add a field; fields not mentioned are kept (reference §5.1).
 * `creating` is true for the initial list of an empty layer, where ids are not allowed.
 */
export function applyFields(db: SqlDb, resourceId: number, value: unknown, base: string, creating: boolean): void {
  fieldWrites++
  const items = expectKind<unknown[]>('array', value, base)
  let nextIdx = Number(db.selectValue(`SELECT coalesce(max(idx), -1) + 1 FROM layer_field WHERE resource_id = ?`, [resourceId]))
  items.forEach((raw, i) => {
    const path = `${base}[${i}]`
    const item = expectObject(raw, path)
    const lookup = item.lookup_table === undefined || item.lookup_table === null ? null
      : expectKind<number>('int', expectObject(item.lookup_table, `${path}.lookup_table`).id, `${path}.lookup_table.id`)
    if (lookup !== null && readRefs(db, [lookup])[0]?.cls !== 'lookup_table') {
      throw validationError(`Lookup table id = ${lookup} was not found - at \`${path}.lookup_table\``)
    }
    if (item.id !== undefined && !creating) {
      const id = expectKind<number>('int', item.id, `${path}.id`)
      if (!db.selectValue(`SELECT 1 FROM layer_field WHERE id = ? AND resource_id = ?`, [id, resourceId])) {
        throw validationError(`Field id = ${id} does not belong to this layer - at \`${path}.id\``)
      }
      if (item.delete === true) {
        db.exec({ sql: `DELETE FROM layer_field WHERE id = ?`, bind: [id] })
        return
      }
      const sets: string[] = []
      const bind: (string | number | null)[] = []
      const set = (col: string, v: string | number | null) => { sets.push(`${col} = ?`); bind.push(v) }
      if (item.keyname !== undefined) set('keyname', keynameOf(item.keyname, `${path}.keyname`))
      if (item.display_name !== undefined) set('display_name', expectKind<string>('str', item.display_name, `${path}.display_name`))
      if (item.datatype !== undefined) {
        const current = db.selectValue(`SELECT datatype FROM layer_field WHERE id = ?`, [id])
        if (datatypeOf(item.datatype, `${path}.datatype`) !== current) {
          throw validationError(`The data type of an existing field cannot be changed - at \`${path}.datatype\``)
        }
      }
      if (item.label_field !== undefined) set('label_field', boolOf(item.label_field, `${path}.label_field`, false) ? 1 : 0)
      if (item.grid_visibility !== undefined) set('grid_visibility', boolOf(item.grid_visibility, `${path}.grid_visibility`, true) ? 1 : 0)
      if (item.text_search !== undefined) set('text_search', boolOf(item.text_search, `${path}.text_search`, true) ? 1 : 0)
      if (item.lookup_table !== undefined) set('lookup_table_id', lookup)
      if (sets.length) db.exec({ sql: `UPDATE layer_field SET ${sets.join(', ')} WHERE id = ?`, bind: [...bind, id] })
      return
    }
    const keyname = keynameOf(item.keyname, `${path}.keyname`)
    const datatype = datatypeOf(item.datatype, `${path}.datatype`)
    const displayName = item.display_name === undefined || item.display_name === null
      ? keyname : expectKind<string>('str', item.display_name, `${path}.display_name`)
    db.exec({ sql: `INSERT INTO layer_field (resource_id, idx, keyname, display_name, datatype, label_field,
        grid_visibility, text_search, lookup_table_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      bind: [resourceId, nextIdx++, keyname, displayName, datatype,
        boolOf(item.label_field, `${path}.label_field`, false) ? 1 : 0,
        boolOf(item.grid_visibility, `${path}.grid_visibility`, true) ? 1 : 0,
        boolOf(item.text_search, `${path}.text_search`, true) ? 1 : 0, lookup] })
  })
  checkUnique(db, resourceId)
}

/** Inserts the fields of a layer made from a file, with the ids its storage was built for. */
export function insertFields(db: SqlDb, resourceId: number, fields: readonly Field[]): void {
  fieldWrites++
  fields.forEach((f, idx) => {
    db.exec({ sql: `INSERT INTO layer_field (id, resource_id, idx, keyname, display_name, datatype, label_field, grid_visibility,
        text_search, lookup_table_id) VALUES (?, ?, ?, ?, ?, ?, 0, 1, 1, NULL)`, bind: [f.id, resourceId, idx, f.keyname, f.display_name, f.datatype] })
  })
  checkUnique(db, resourceId)
}

function keynameOf(v: unknown, path: string): string {
  const s = expectKind<string>('str', v, path).trim()
  if (!s) throw validationError(`Field keyname must not be empty - at \`${path}\``)
  return s
}

/** Keynames and display names must each be unique within the layer (reference §5.1). */
function checkUnique(db: SqlDb, resourceId: number): void {
  for (const col of ['keyname', 'display_name']) {
    const dup = db.selectValue(`SELECT ${col} FROM layer_field WHERE resource_id = ? GROUP BY ${col} HAVING count(*) > 1 LIMIT 1`, [resourceId])
    if (dup !== undefined) {
      throw validationError(`Field ${col === 'keyname' ? 'keyname' : 'display name'} '${dup}' is not unique within the layer.`,
        { [col]: dup })
    }
  }
}
