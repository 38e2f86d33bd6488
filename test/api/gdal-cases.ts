/**
 * Host-neutral cases for GDAL through the diagnostics route: run by `gdal.test.ts` on the
 * Node host and by `test/e2e/gdal.spec.ts` in the service worker.
 */
import { readFileSync } from 'node:fs'
import { expectError, type ApiCase } from './harness.ts'

const INSPECT = '/api/component/outpost/gdal/inspect'
const VALIDATION = 'nextgisweb.core.exception.ValidationError'

/** A small GeoJSON (3 points, EPSG:4326, fields name/depth/year), read when the module loads. */
export const WELLS = readFileSync(new URL('../fixtures/wells.geojson', import.meta.url), 'utf8')

/** What GDAL must report for WELLS. */
export const WELLS_SUMMARY = {
  driver: 'GeoJSON',
  encoding: 'UTF-8',
  layers: [{ name: 'wells', feature_count: 3, geometry_type: 'POINT', srs: 'EPSG:4326',
    fields: [{ name: 'name', type: 'String' }, { name: 'depth', type: 'Real' }, { name: 'year', type: 'Integer' }] }],
}

export const gdalCases: ApiCase[] = [
  {
    name: 'GDAL opens a small GeoJSON: driver, layer, feature count, geometry type, fields and srs',
    async run(api, expect) {
      const res = await api.request('POST', `${INSPECT}?name=wells.geojson`, { raw: WELLS })
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/json')
      expect(res.body).toEqual(WELLS_SUMMARY)
    },
  },
  {
    name: 'an unnamed layer is named after the file, and a second inspection works the same (nothing left behind)',
    async run(api, expect) {
      const unnamed = WELLS.replace('"name":"wells",', '')
      const res = await api.request('POST', `${INSPECT}?name=${encodeURIComponent('other wells.json')}`, { raw: unnamed })
      expect(res.status).toBe(200)
      expect(res.body.layers.map((l: { name: string }) => l.name)).toEqual(['other wells'])
      const again = await api.request('POST', `${INSPECT}?name=${encodeURIComponent('other wells.json')}`, { raw: unnamed })
      expect(again.body).toEqual(res.body)
    },
  },
  {
    name: 'unreadable bytes are a 422 validation error, not a 500',
    async run(api, expect) {
      const res = await api.request('POST', `${INSPECT}?name=junk.geojson`, { raw: 'this is not geodata {' })
      expectError(expect, res, 422, VALIDATION)
      expect(res.body.message).toBe('GDAL library failed to open file.')
      const empty = await api.request('POST', `${INSPECT}?name=empty.geojson`, { raw: '' })
      expectError(expect, empty, 422, VALIDATION)
      // GDAL still works after a failure.
      expect((await api.request('POST', `${INSPECT}?name=wells.geojson`, { raw: WELLS })).status).toBe(200)
    },
  },
  {
    name: 'the file name is required and must be a plain name',
    async run(api, expect) {
      expectError(expect, await api.request('POST', INSPECT, { raw: WELLS }), 422, VALIDATION)
      expectError(expect, await api.request('POST', `${INSPECT}?name=${encodeURIComponent('../x.geojson')}`, { raw: WELLS }), 422, VALIDATION)
    },
  },
  {
    name: 'only an administrator may inspect: the guest gets 403',
    async run(api, expect) {
      const res = await api.request('POST', `${INSPECT}?name=wells.geojson`, { raw: WELLS, auth: 'guest' })
      expectError(expect, res, 403, 'nextgisweb.core.exception.ForbiddenError')
    },
  },
]
