/**
 * @module classes/lookup_table
 * Key → label dictionaries used by fields (reference §4.1 `lookup_table`).
 */
import { validationError } from '../../core/error.ts'
import { expectKind, expectObject } from '../../core/validate.ts'
import type { ClassData, ClassFactory } from '../types.ts'

const SORTS = ['KEY_ASC', 'KEY_DESC', 'VALUE_ASC', 'VALUE_DESC', 'CUSTOM'] as const

function parse(member: unknown, prev: ClassData): ClassData {
  if (member === undefined) return prev
  const m = expectObject(member, '$.lookup_table')
  const next: ClassData = { ...prev }
  if (m.items !== undefined) {
    const items = expectObject(m.items, '$.lookup_table.items')
    for (const [k, v] of Object.entries(items)) expectKind<string>('str', v, `$.lookup_table.items.${k}`)
    next.items = items
    // A custom order must name exactly the items; keep it in step when items change.
    const order = (next.order as string[] | undefined)?.filter((k) => k in items) ?? []
    for (const k of Object.keys(items)) if (!order.includes(k)) order.push(k)
    next.order = order
  }
  if (m.sort !== undefined) {
    const sort = expectKind<string>('str', m.sort, '$.lookup_table.sort')
    if (!(SORTS as readonly string[]).includes(sort)) {
      throw validationError(`Invalid enum value '${sort}' - at \`$.lookup_table.sort\``)
    }
    next.sort = sort
  }
  if (m.order !== undefined) {
    const order = expectKind<unknown[]>('array', m.order, '$.lookup_table.order')
    const keys = Object.keys((next.items as Record<string, string>) ?? {})
    if (order.length !== keys.length || !order.every((k) => typeof k === 'string' && keys.includes(k))) {
      throw validationError('Lookup table order must list every item key exactly once.')
    }
    next.order = order
  }
  return next
}

export const lookupTable: ClassFactory = () => ({
  identity: 'lookup_table',
  label: 'Lookup table',
  order: 100,
  category: 'miscellaneous',
  scopes: ['resource'],
  interfaces: [],
  members: ['lookup_table'],
  acceptsParent: (p) => p === 'resource_group',
  create: (_ctx, _id, members) => {
    if (members.lookup_table === undefined) throw validationError('Lookup table member is required - at `$.lookup_table`')
    return parse(members.lookup_table, { sort: 'KEY_ASC', items: {}, order: [] })
  },
  update: (_ctx, _id, members, data) => parse(members.lookup_table, data),
  serialize: (_ctx, _id, data) => ({ lookup_table: { sort: data.sort, items: data.items, order: data.order } }),
  capabilities: {},
})
