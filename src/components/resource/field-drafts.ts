/**
 * @module components/resource/field-drafts
 * The fields of a vector layer as the fields editor holds them, and the `fields` list of the
 * write that makes a layer's fields what the editor shows (sw/classes/vector_layer/fields.ts:
 * items with `id` change or, with `delete: true`, remove that field; items without add one;
 * fields not listed stay as they are). A field's values belong to its id, so a renamed field
 * keeps them.
 */
import type { FieldDatatype, FieldWrite, LayerField } from '../../api/resource.ts'

export interface FieldDraft {
  /** The stored field's id; absent for a field added in the editor. */
  id?: number
  keyname: string
  display_name: string
  datatype: FieldDatatype
  /** The linked lookup table's id. */
  lookup: number | null
  /** A stored field marked for removal (with its values) on save. */
  removed?: boolean
}

export const draftOf = (f: LayerField): FieldDraft =>
  ({ id: f.id, keyname: f.keyname, display_name: f.display_name, datatype: f.datatype, lookup: f.lookup_table?.id ?? null })

export const newDraft = (): FieldDraft => ({ keyname: '', display_name: '', datatype: 'STRING', lookup: null })

/**
 * The `fields` list that turns the stored fields `before` into `drafts`: removals first (so a
 * new field may take a removed one's name), then the changed members of kept fields, then the
 * new fields in full. Unchanged fields are not listed.
 */
export function fieldWrites(drafts: readonly FieldDraft[], before: readonly LayerField[] = []): FieldWrite[] {
  const stored = new Map(before.map((f) => [f.id, f]))
  const removals: FieldWrite[] = []
  const changes: FieldWrite[] = []
  const additions: FieldWrite[] = []
  for (const d of drafts) {
    const keyname = d.keyname.trim()
    const displayName = d.display_name.trim() || keyname
    const lookup = d.lookup === null ? null : { id: d.lookup }
    if (d.id === undefined) {
      additions.push({ keyname, display_name: displayName, datatype: d.datatype, lookup_table: lookup })
    } else if (d.removed) {
      removals.push({ id: d.id, delete: true })
    } else {
      const was = stored.get(d.id)
      const w: FieldWrite = { id: d.id }
      if (was?.keyname !== keyname) w.keyname = keyname
      if (was?.display_name !== displayName) w.display_name = displayName
      if ((was?.lookup_table?.id ?? null) !== d.lookup || !was) w.lookup_table = lookup
      if (Object.keys(w).length > 1) changes.push(w)
    }
  }
  return [...removals, ...changes, ...additions]
}
