/**
 * @module demo
 * The small data set a fresh installation starts with, so a newcomer sees a working tree:
 * a group with a point layer for field observations and the lookup table its fields use.
 * Hosts seed it (`createApp`'s `setup`): the browser always, the Node host with `--demo`.
 */
import type { Services } from './services.ts'
import { createResource, writeTree } from './resource/service.ts'
import { getUser } from './auth/service.ts'
import { parseInput } from './feature/input.ts'
import { writeFeatures } from './feature/write.ts'

export interface DemoLayers {
  observations: number
  routes: number
}

/** Observations around a town, in EPSG:4326 (reprojected into the layer's 3857 on write). */
const OBSERVATIONS = [
  { geom: 'POINT(8.5417 47.3769)', fields: { title: 'Old lime tree', kind: 'tree', observed: '2026-05-04T09:15:00', count: 1, notes: 'Trunk hollow on the north side.' } },
  { geom: 'POINT(8.5481 47.3702)', fields: { title: 'Village well', kind: 'well', observed: '2026-05-04T10:02:00', count: 1, notes: 'Water level 2.1 m below the rim.' } },
  { geom: 'POINT(8.5355 47.3731)', fields: { title: 'Pothole cluster', kind: 'damage', observed: '2026-05-05T14:40:00', count: 4, notes: null } },
  { geom: 'POINT(8.5523 47.3795)', fields: { title: 'Row of chestnuts', kind: 'tree', observed: '2026-05-06T08:30:00', count: 7, notes: 'Two trees need pruning.' } },
]

const ROUTES = [
  { geom: 'LINESTRING(8.5355 47.3731,8.5417 47.3769,8.5481 47.3702)', fields: { name: 'Morning loop', walked_on: '2026-05-04' } },
  { geom: 'LINESTRING(8.5417 47.3769,8.5470 47.3790,8.5523 47.3795)', fields: { name: 'Park edge', walked_on: '2026-05-06' } },
]

/** Creates the demo data set when this start made a fresh database; else leaves it alone. */
export async function seedDemo(services: Services): Promise<void> {
  if (!services.adminCreated) return
  await createDemoFeatures(services, await createDemo(services))
}

/** Fills the demo layers with a few features, so the map and the table show something. */
async function createDemoFeatures(services: Services, ids: DemoLayers): Promise<void> {
  for (const [id, features] of [[ids.observations, OBSERVATIONS], [ids.routes, ROUTES]] as const) {
    const layer = (await services.classes.featureLayer(id))!
    const inputs = features.map((f, i) => parseInput(f, layer.meta, { srs: 4326, geomFormat: 'wkt', geomNull: false }, `$[${i}]`))
    await writeFeatures(services, layer, inputs, (w) => w.createMany(inputs))
  }
}

async function createDemo(services: Services): Promise<DemoLayers> {
  const { data, classes, platform } = services
  const admin = (await getUser(data, 4))!
  return writeTree(data, { user: admin, now: platform.now(), classes }, async (ctx) => {
    const group = (await createResource(ctx, { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'Demo project',
      description: 'Sample data created on first start. Change it or delete it freely.' } })).id
    const kinds = (await createResource(ctx, { resource: { cls: 'lookup_table', parent: { id: group }, display_name: 'Observation kinds' },
      lookup_table: { items: { tree: 'Tree', well: 'Well', damage: 'Road damage', other: 'Other' } } })).id
    const observations = await createResource(ctx, { resource: { cls: 'vector_layer', parent: { id: group }, display_name: 'Field observations' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [
        { keyname: 'title', datatype: 'STRING', display_name: 'Title', label_field: true },
        { keyname: 'kind', datatype: 'STRING', display_name: 'Kind', lookup_table: { id: kinds } },
        { keyname: 'observed', datatype: 'DATETIME', display_name: 'Observed at' },
        { keyname: 'count', datatype: 'INTEGER', display_name: 'Count' },
        { keyname: 'notes', datatype: 'STRING', display_name: 'Notes' },
      ] } })
    const routes = (await createResource(ctx, { resource: { cls: 'vector_layer', parent: { id: group }, display_name: 'Survey routes' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'LINESTRING', fields: [
        { keyname: 'name', datatype: 'STRING', display_name: 'Name', label_field: true },
        { keyname: 'walked_on', datatype: 'DATE', display_name: 'Walked on' },
      ] } })).id
    return { observations: observations.id, routes }
  })
}
