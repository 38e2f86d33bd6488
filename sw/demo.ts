/**
 * @module demo
 * The small data set a fresh installation starts with, so a newcomer sees a working tree:
 * a group with a point layer for field observations and the lookup table its fields use.
 */
import type { Database } from './store/database.ts'
import { createResource } from './resource/service.ts'
import { getUser } from './auth/service.ts'

export async function createDemo(main: Database, now: Date): Promise<void> {
  await main.write((db) => {
    const ctx = { db, user: getUser(db, 4)!, now }
    const group = createResource(ctx, { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'Demo project',
      description: 'Sample data created on first start. Change it or delete it freely.' } }).id
    const kinds = createResource(ctx, { resource: { cls: 'lookup_table', parent: { id: group }, display_name: 'Observation kinds' },
      lookup_table: { items: { tree: 'Tree', well: 'Well', damage: 'Road damage', other: 'Other' } } }).id
    createResource(ctx, { resource: { cls: 'vector_layer', parent: { id: group }, display_name: 'Field observations' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [
        { keyname: 'title', datatype: 'STRING', display_name: 'Title', label_field: true },
        { keyname: 'kind', datatype: 'STRING', display_name: 'Kind', lookup_table: { id: kinds } },
        { keyname: 'observed', datatype: 'DATETIME', display_name: 'Observed at' },
        { keyname: 'count', datatype: 'INTEGER', display_name: 'Count' },
        { keyname: 'notes', datatype: 'STRING', display_name: 'Notes' },
      ] } })
    createResource(ctx, { resource: { cls: 'vector_layer', parent: { id: group }, display_name: 'Survey routes' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'LINESTRING', fields: [
        { keyname: 'name', datatype: 'STRING', display_name: 'Name', label_field: true },
        { keyname: 'walked_on', datatype: 'DATE', display_name: 'Walked on' },
      ] } })
  })
}
