import { describe, expect, it } from 'vitest'
import type { LayerField } from '../../src/api/resource.ts'
import { draftOf, fieldWrites, newDraft } from '../../src/components/resource/field-drafts.ts'
import { shownItems, treeKey, type TreeItem } from '../../src/components/resource/tree-keys.ts'
import { classesUnder, sortClasses } from '../../src/composables/useBlueprint.ts'

// The resource side of the UI without a browser: tree keys, the fields write, the New menu's order.

describe('tree-keys', () => {
  // 0 ─┬─ 1 (open) ─┬─ 3
  //    │            └─ 4 (closed group)
  //    └─ 2 (layer)
  type N = { id: number; group: boolean }
  const kids: Record<number, N[]> = { 0: [{ id: 1, group: true }, { id: 2, group: false }], 1: [{ id: 3, group: false }, { id: 4, group: true }] }
  const open = new Set([0, 1])
  const items = shownItems<N>({ id: 0, group: true }, (id) => kids[id], (id) => open.has(id), (n) => n.group)

  it('lists shown items depth first, with parents and first children', () => {
    expect(items).toEqual<TreeItem[]>([
      { id: 0, parent: null, expandable: true, expanded: true, firstChild: 1 },
      { id: 1, parent: 0, expandable: true, expanded: true, firstChild: 3 },
      { id: 3, parent: 1, expandable: false, expanded: false, firstChild: null },
      { id: 4, parent: 1, expandable: true, expanded: false, firstChild: null },
      { id: 2, parent: 0, expandable: false, expanded: false, firstChild: null },
    ])
  })

  it.each([
    ['ArrowDown', 3, { kind: 'focus', id: 4 }],
    ['ArrowDown', 2, null],
    ['ArrowUp', 2, { kind: 'focus', id: 4 }],
    ['ArrowUp', 0, null],
    ['Home', 4, { kind: 'focus', id: 0 }],
    ['End', 1, { kind: 'focus', id: 2 }],
    ['ArrowRight', 4, { kind: 'expand', id: 4 }],
    ['ArrowRight', 1, { kind: 'focus', id: 3 }],
    ['ArrowRight', 3, null],
    ['ArrowLeft', 1, { kind: 'collapse', id: 1 }],
    ['ArrowLeft', 3, { kind: 'focus', id: 1 }],
    ['ArrowLeft', 4, { kind: 'focus', id: 1 }],
    ['ArrowLeft', 0, { kind: 'collapse', id: 0 }],
    ['Enter', 2, { kind: 'activate', id: 2 }],
    [' ', 4, { kind: 'activate', id: 4 }],
    ['a', 4, null],
  ] as const)('%s on item %i moves as the WAI-ARIA tree pattern says', (key, from, move) => {
    expect(treeKey(key, items, from)).toEqual(move)
  })

  it('moves to the first item when the current one is no longer shown', () => {
    expect(treeKey('ArrowDown', items, 99)).toEqual({ kind: 'focus', id: 0 })
  })
})

describe('field-drafts', () => {
  const stored: LayerField[] = [
    { id: 11, keyname: 'name', display_name: 'Name', datatype: 'STRING', lookup_table: null },
    { id: 12, keyname: 'kind', display_name: 'Kind', datatype: 'STRING', lookup_table: { id: 5 } },
    { id: 13, keyname: 'old', display_name: 'Old', datatype: 'INTEGER', lookup_table: null },
  ]

  it('lists nothing when nothing changed', () => {
    expect(fieldWrites(stored.map(draftOf), stored)).toEqual([])
  })

  it('removes first, then changes only what changed, then adds new fields in full', () => {
    const drafts = stored.map(draftOf)
    drafts[0] = { ...drafts[0]!, keyname: ' title ', display_name: '' }
    drafts[1] = { ...drafts[1]!, lookup: null }
    drafts[2] = { ...drafts[2]!, removed: true }
    drafts.push({ ...newDraft(), keyname: 'old', display_name: 'Old again', datatype: 'DATE', lookup: 7 })
    expect(fieldWrites(drafts, stored)).toEqual([
      { id: 13, delete: true },
      { id: 11, keyname: 'title', display_name: 'title' },
      { id: 12, lookup_table: null },
      { keyname: 'old', display_name: 'Old again', datatype: 'DATE', lookup_table: { id: 7 } },
    ])
  })

  it('writes a new layer\'s fields in full, the display name defaulting to the key name', () => {
    expect(fieldWrites([{ ...newDraft(), keyname: 'depth', datatype: 'REAL' }]))
      .toEqual([{ keyname: 'depth', display_name: 'depth', datatype: 'REAL', lookup_table: null }])
  })
})

describe('sortClasses', () => {
  it('orders the New menu by the blueprint order, then by label; classes without an order last', () => {
    const c = (identity: string, label: string, order?: number) => ({ identity, label, order, interfaces: [], scopes: [] })
    expect(sortClasses([c('lookup_table', 'Lookup table', 100), c('webmap', 'Web map', 60), c('vector_layer', 'Vector layer', 60),
      c('resource_group', 'Resource group', 0), c('x_new', 'Another class')]).map((x) => x.identity))
      .toEqual(['resource_group', 'vector_layer', 'webmap', 'lookup_table', 'x_new'])
  })
})

describe('classesUnder', () => {
  const c = (identity: string, parents?: string[]) => ({ identity, label: identity, interfaces: [], scopes: [], outpost_parent_classes: parents })
  const classes = [c('resource_group', ['resource_group']), c('vector_layer', ['resource_group']), c('raster_style', ['raster_layer']), c('remote_only')]

  it('offers the classes whose parent list names the parent\'s class', () => {
    expect(classesUnder(classes, 'raster_layer').map((x) => x.identity)).toEqual(['raster_style'])
    expect(classesUnder(classes, 'vector_layer')).toEqual([])
  })

  it('offers a class whose server does not say where it lives in groups only', () => {
    expect(classesUnder(classes, 'resource_group').map((x) => x.identity)).toEqual(['resource_group', 'vector_layer', 'remote_only'])
    expect(classesUnder([c('remote_only')], 'raster_layer')).toEqual([])
  })
})
