/**
 * Identify (spec §4.11, reference §10): several layers at once, `srs`, labels from the label
 * field, the 100-feature limit, per-layer errors and the request checks.
 */
import type { Api, ApiCase, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { addFeatures, createLayer } from './feature.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const URL_ = '/api/feature_layer/identify'

const layer = (api: Api, expect: Expect, geometryType: string, srs: number, fields: unknown[] = []) =>
  createLayer(api, expect, geometryType, fields, srs)
const add = (api: Api, expect: Expect, id: number, features: unknown[]) => addFeatures(api, expect, id, features)

const box = (x0: number, y0: number, x1: number, y1: number) => `POLYGON((${x0} ${y0},${x1} ${y0},${x1} ${y1},${x0} ${y1},${x0} ${y0}))`

export const identifyCases: ApiCase[] = [
  {
    name: 'identifies features of several layers by a polygon: keys by layer id, labels, ISO dates, parent, total',
    async run(api, expect) {
      const wells = await layer(api, expect, 'POINT', 3857, [{ keyname: 'name', datatype: 'STRING', label_field: true },
        { keyname: 'drilled', datatype: 'DATE' }, { keyname: 'depth', datatype: 'REAL' }])
      const areas = await layer(api, expect, 'POLYGON', 4326, [{ keyname: 'kind', datatype: 'STRING' }])
      const [w1, w2] = await add(api, expect, wells, [
        { geom: 'POINT(0 0)', fields: { name: 'Well #7', drilled: { year: 2019, month: 6, day: 1 }, depth: 12.5 } },
        { geom: 'POINT(10 10)', fields: { name: null } },
        { geom: 'POINT(1000 1000)', fields: { name: 'far' } },
      ])
      const [a1] = await add(api, expect, areas, [{ geom: box(0, 0, 1, 1), fields: { kind: 'field' } }, { geom: box(5, 5, 6, 6) }])
      const group = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: uniq('G') } } })
      const root = (await api.request('GET', '/api/resource/0')).body.resource.display_name
      const res = await api.request('POST', URL_, {
        body: { geom: box(-20, -20, 20, 20), srs: 3857, layers: [areas, wells, group.body.id, 999999] } })
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/json')
      expect(res.body).toEqual({
        [wells]: { featureCount: 2, features: [
          { id: w1, layerId: wells, label: 'Well #7', fields: { name: 'Well #7', drilled: '2019-06-01', depth: 12.5 }, parent: root },
          { id: w2, layerId: wells, label: `#${w2}`, fields: { name: null, drilled: null, depth: null }, parent: root }] },
        [areas]: { featureCount: 1, features: [{ id: a1, layerId: areas, label: `#${a1}`, fields: { kind: 'field' }, parent: root }] },
        [group.body.id]: { error: 'Not implemented' },
        featureCount: 3,
      })
      // The same search in lon/lat: the geometry is projected to each layer's system.
      const ll = await api.request('POST', URL_, { body: { geom: box(-0.0001, -0.0001, 0.00001, 0.00001), srs: 4326, layers: [wells, areas] } })
      expect(ll.body[wells].features.map((f: { id: number }) => f.id)).toEqual([w1])
      expect(ll.body[areas].featureCount).toBe(1)
      expect(ll.body.featureCount).toBe(2)
      const none = await api.request('POST', URL_, { body: { geom: 'POINT(500000 500000)', srs: 3857, layers: [wells] } })
      expect(none.body).toEqual({ [wells]: { features: [], featureCount: 0 }, featureCount: 0 })
    },
  },
  {
    name: 'identify answers at most 100 features per layer',
    async run(api, expect) {
      const id = await layer(api, expect, 'POINT', 3857, [])
      await add(api, expect, id, Array.from({ length: 150 }, (_, i) => ({ geom: `POINT(${i} ${i})` })))
      const res = await api.request('POST', URL_, { body: { geom: box(-1, -1, 200, 200), srs: 3857, layers: [id] } })
      expect(res.body[id].featureCount).toBe(100)
      expect(res.body[id].features).toHaveLength(100)
      expect(res.body.featureCount).toBe(100)
    },
  },
  {
    name: 'identify needs geom, srs and layers; bad WKT and unknown systems are 422',
    async run(api, expect) {
      const id = await layer(api, expect, 'POINT', 3857, [])
      for (const body of [{ srs: 3857, layers: [id] }, { geom: 'POINT(0 0)', layers: [id] }, { geom: 'POINT(0 0)', srs: 3857 },
        { geom: 'POINT(0 0)', srs: '3857', layers: [id] }, { geom: 'POINT(0 0)', srs: 3857, layers: id },
        { geom: 'POINT(0 0)', srs: 3857, layers: ['x'] }, { geom: 'POLYGON((0 0, 1 1', srs: 3857, layers: [id] },
        { geom: 'POINT(0 0)', srs: 999999, layers: [id] }]) {
        expectError(expect, await api.request('POST', URL_, { body }), 422, VALIDATION)
      }
      const bad = await api.request('POST', URL_, { body: { geom: 'NOT WKT', srs: 3857, layers: [id] } })
      expect(bad.body.message).toBe('Geometry is not valid.')
      expectError(expect, await api.request('POST', URL_, { raw: '{bad json' }), 400, 'nextgisweb.pyramid.tomb.exception.MalformedJSONBody')
    },
  },
]
