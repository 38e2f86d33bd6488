/**
 * `resource.blueprint` (reference §4): the original's fields and categories, and our
 * `outpost_parent_classes`, which must agree with what a create actually accepts.
 */
import type { ApiCase } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { TIFFS } from '../ingest-files.ts'
import { newGroup, uploadFile } from './ingest.ts'

const HIERARCHY = 'nextgisweb.resource.exception.HierarchyError'

interface BlueprintClass { identity: string; category: string; outpost_parent_classes: string[] }

export const blueprintCases: ApiCase[] = [
  {
    name: 'the blueprint has the original\'s fields and categories, and per class the classes it may live under',
    async run(api, expect) {
      const res = await api.request('GET', '/api/component/resource/blueprint', { auth: 'guest' })
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/json')
      const { resources, categories } = res.body as { resources: Record<string, BlueprintClass>; categories: Record<string, unknown> }
      expect(categories).toEqual({
        layers_and_styles: { identity: 'layers_and_styles', label: 'Layers and styles', order: 20 },
        maps_and_services: { identity: 'maps_and_services', label: 'Maps and services', order: 40 },
        field_data_collection: { identity: 'field_data_collection', label: 'Field data collection', order: 60 },
        external_connections: { identity: 'external_connections', label: 'External connections', order: 80 },
        miscellaneous: { identity: 'miscellaneous', label: 'Miscellaneous', order: 100 },
      })
      for (const [cls, k] of Object.entries(resources)) {
        expect(Object.keys(k)).toEqual(['identity', 'label', 'base_classes', 'interfaces', 'scopes', 'category', 'order', 'outpost_parent_classes'])
        expect(k.identity).toBe(cls)
        expect(Object.keys(categories)).toContain(k.category)
        for (const p of k.outpost_parent_classes) expect(Object.keys(resources)).toContain(p)
      }
      // As the original files them (its `cls_category`, `cls_order`, `check_parent`).
      expect(resources).toMatchObject({
        resource_group: { category: 'miscellaneous', order: 0, outpost_parent_classes: ['resource_group'] },
        vector_layer: { category: 'layers_and_styles', order: 60, outpost_parent_classes: ['resource_group'] },
        raster_layer: { category: 'layers_and_styles', order: 65, outpost_parent_classes: ['resource_group'] },
        raster_style: { category: 'layers_and_styles', outpost_parent_classes: ['raster_layer'] },
        lookup_table: { category: 'miscellaneous', outpost_parent_classes: ['resource_group'] },
        file_bucket: { category: 'miscellaneous', outpost_parent_classes: ['resource_group'] },
      })
    },
  },
  {
    name: 'a create is a HierarchyError exactly under the parent classes the blueprint does not list',
    async run(api, expect) {
      const group = await newGroup(api, expect)
      const make = async (cls: string, members: Record<string, unknown>) => {
        const res = await api.request('POST', '/api/resource/', { body: { resource: { cls, parent: { id: group }, display_name: uniq(cls) }, ...members } })
        expect(res.status).toBe(201)
        return res.body.id as number
      }
      const parents: Record<string, number> = {
        resource_group: group,
        vector_layer: await make('vector_layer', { vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [] } }),
        lookup_table: await make('lookup_table', { lookup_table: { items: {} } }),
        file_bucket: await make('file_bucket', { file_bucket: { files: [] } }),
        raster_layer: await make('raster_layer', { raster_layer: { srs: { id: 3857 }, source: await uploadFile(api, expect, 'rgb.tif', await TIFFS.rgb()) } }),
      }
      const { resources } = (await api.request('GET', '/api/component/resource/blueprint')).body as { resources: Record<string, BlueprintClass> }
      for (const k of Object.values(resources)) {
        for (const [parentCls, parent] of Object.entries(parents)) {
          // Names only: a listed parent may still want the class's members, but never says "wrong place".
          const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: k.identity, parent: { id: parent }, display_name: uniq('Child') } } })
          const where = `${k.identity} under ${parentCls}`
          if (k.outpost_parent_classes.includes(parentCls)) {
            expect(res.body.exception, where).not.toBe(HIERARCHY)
          } else {
            expect(res.status, where).toBe(422)
            expectError(expect, res, 422, HIERARCHY)
          }
        }
      }
    },
  },
]
