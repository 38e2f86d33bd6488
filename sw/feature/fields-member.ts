/**
 * @module feature/fields-member
 * The fields of a feature layer: stored in `layer_field` with system-wide ids that survive
 * renames (the changes and transaction APIs refer to fields by id).
 */
import { validationError } from '../core/error.ts'
import { expectKind, expectObject } from '../core/validate.ts'
import { FIELD_TYPES, type Field, type FieldType } from './types.ts'
import type { MainWrite } from '../port/port.ts'
import type { FieldPatch } from '../port/features.ts'

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
export async function applyFields(tx: MainWrite, resourceId: number, value: unknown, base: string, creating: boolean): Promise<void> {
  const items = expectKind<unknown[]>('array', value, base)
  let nextIdx = await tx.fields.nextIdx(resourceId)
  // In order: a later item may rename a field to a name an earlier one freed.
  for (const [i, raw] of items.entries()) {
    const path = `${base}[${i}]`
    const item = expectObject(raw, path)
    const lookup = item.lookup_table === undefined || item.lookup_table === null ? null
      : expectKind<number>('int', expectObject(item.lookup_table, `${path}.lookup_table`).id, `${path}.lookup_table.id`)
    if (lookup !== null && (await tx.resources.refs([lookup]))[0]?.cls !== 'lookup_table') {
      throw validationError(`Lookup table id = ${lookup} was not found - at \`${path}.lookup_table\``)
    }
    if (item.id !== undefined && !creating) {
      const id = expectKind<number>('int', item.id, `${path}.id`)
      const current = await tx.fields.datatype(resourceId, id)
      if (current === undefined) {
        throw validationError(`Field id = ${id} does not belong to this layer - at \`${path}.id\``)
      }
      if (item.delete === true) {
        await tx.fields.delete(id)
        continue
      }
      const patch: FieldPatch = {}
      if (item.keyname !== undefined) patch.keyname = keynameOf(item.keyname, `${path}.keyname`)
      if (item.display_name !== undefined) patch.display_name = expectKind<string>('str', item.display_name, `${path}.display_name`)
      if (item.datatype !== undefined && datatypeOf(item.datatype, `${path}.datatype`) !== current) {
        throw validationError(`The data type of an existing field cannot be changed - at \`${path}.datatype\``)
      }
      if (item.label_field !== undefined) patch.label_field = boolOf(item.label_field, `${path}.label_field`, false)
      if (item.grid_visibility !== undefined) patch.grid_visibility = boolOf(item.grid_visibility, `${path}.grid_visibility`, true)
      if (item.text_search !== undefined) patch.text_search = boolOf(item.text_search, `${path}.text_search`, true)
      if (item.lookup_table !== undefined) patch.lookup_table = lookup
      await tx.fields.update(id, patch)
      continue
    }
    const keyname = keynameOf(item.keyname, `${path}.keyname`)
    const datatype = datatypeOf(item.datatype, `${path}.datatype`)
    const displayName = item.display_name === undefined || item.display_name === null
      ? keyname : expectKind<string>('str', item.display_name, `${path}.display_name`)
    await tx.fields.insert(resourceId, nextIdx++, { keyname, display_name: displayName, datatype,
      label_field: boolOf(item.label_field, `${path}.label_field`, false),
      grid_visibility: boolOf(item.grid_visibility, `${path}.grid_visibility`, true),
      text_search: boolOf(item.text_search, `${path}.text_search`, true), lookup_table: lookup })
  }
  await checkUnique(tx, resourceId)
}

/** Inserts the fields of a layer made from a file, with the ids its storage was built for. */
export async function insertFields(tx: MainWrite, resourceId: number, fields: readonly Field[]): Promise<void> {
  for (const [idx, f] of fields.entries()) {
    await tx.fields.insert(resourceId, idx, { id: f.id, keyname: f.keyname, display_name: f.display_name,
      datatype: f.datatype, label_field: false, grid_visibility: true, text_search: true, lookup_table: null })
  }
  await checkUnique(tx, resourceId)
}

function keynameOf(v: unknown, path: string): string {
  const s = expectKind<string>('str', v, path).trim()
  if (!s) throw validationError(`Field keyname must not be empty - at \`${path}\``)
  return s
}

/** Keynames and display names must each be unique within the layer (reference §5.1). */
async function checkUnique(tx: MainWrite, resourceId: number): Promise<void> {
  const dup = await tx.fields.duplicate(resourceId)
  if (dup) {
    throw validationError(`Field ${dup.column === 'keyname' ? 'keyname' : 'display name'} '${dup.value}' is not unique within the layer.`,
      { [dup.column]: dup.value })
  }
}
