/**
 * @module classes/spatialdb_layer/fields
 * A PostGIS layer's fields come from its table's columns (`fields: "update"`, reference
 * ngw-services §4.3). They are kept as a vector layer's are (the data port's fields, with
 * system-wide ids), and the layer's data maps each field id to its column, so a field may be
 * renamed and still read its column.
 */
import { validationError } from '../../core/error.ts'
import type { MainWrite } from '../../port/port.ts'
import type { TableDescription } from '../../port/spatialdb.ts'

/**
 * Replaces the fields of layer `id` with the table's columns: a field whose column is still
 * there with the same type stays (its id, display name, visibility and lookup table; the label
 * field is reset, as in the original), the others go, new columns become fields named after
 * them. JSON columns are text fields (no search in them). Returns the new field → column map.
 */
export async function fieldsFromTable(tx: MainWrite, id: number, d: TableDescription, columns: Readonly<Record<string, string>>): Promise<Record<string, string>> {
  const existing = (await tx.fields.list([id])).get(id) ?? []
  const datatypeOf = (f: TableDescription['fields'][number]) => (f.datatype === 'JSON' ? 'STRING' : f.datatype)
  const wanted = new Map(d.fields.map((f) => [f.column, datatypeOf(f)]))
  const next: Record<string, string> = {}
  const keptColumns = new Set<string>()
  for (const f of existing) {
    const column = columns[f.id]
    if (column !== undefined && wanted.get(column) === f.datatype && !keptColumns.has(column)) {
      keptColumns.add(column)
      next[f.id] = column
      if (f.label_field) await tx.fields.update(f.id, { label_field: false })
    } else {
      await tx.fields.delete(f.id)
    }
  }
  const fresh = d.fields.filter((f) => !keptColumns.has(f.column))
  if (fresh.length) {
    let fid = await tx.fields.reserveIds(fresh.length)
    let idx = await tx.fields.nextIdx(id)
    for (const f of fresh) {
      await tx.fields.insert(id, idx++, { id: fid, keyname: f.column, display_name: f.column, datatype: datatypeOf(f),
        label_field: false, grid_visibility: true, text_search: f.datatype !== 'JSON', lookup_table: null })
      next[fid++] = f.column
    }
  }
  const dup = await tx.fields.duplicate(id)
  if (dup) {
    throw validationError(`Field ${dup.column === 'keyname' ? 'keyname' : 'display name'} '${dup.value}' is not unique within the layer: rename the field before reading the table's columns again.`)
  }
  return next
}

/** Every field of a PostGIS layer reads a column: one added by hand has none (422). */
export async function checkColumns(tx: MainWrite, id: number, columns: Readonly<Record<string, string>>): Promise<void> {
  const orphan = ((await tx.fields.list([id])).get(id) ?? []).find((f) => columns[f.id] === undefined)
  if (orphan) {
    throw validationError(`Field '${orphan.keyname}' has no column in the table: the fields of a PostGIS layer are its table's columns (send "fields": "update" to read them again).`)
  }
}
