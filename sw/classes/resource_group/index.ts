/**
 * @module classes/resource_group
 * A folder of the tree. The root (id 0) is one.
 */
import type { ClassFactory } from '../types.ts'

export const resourceGroup: ClassFactory = () => ({
  identity: 'resource_group',
  label: 'Resource group',
  order: 0,
  category: 'miscellaneous',
  scopes: ['resource'],
  interfaces: [],
  members: [],
  acceptsParent: (p) => p === 'resource_group',
  create: () => ({}),
  update: (_ctx, _id, _members, data) => data,
  serialize: () => ({}),
  capabilities: {},
})
