import type { ApiCase } from '../harness.ts'
import { expectError } from '../harness.ts'

export const pyramidCases: ApiCase[] = [
  {
    name: 'route table lists implemented routes by their original names with {n} templates',
    async run(api, expect) {
      const res = await api.request('GET', '/api/component/pyramid/route?client=NextGIS-NGW-Connector/1.19.6', { auth: 'guest' })
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/json')
      expect(res.body['resource.item']).toEqual(['/api/resource/{0}', 'id'])
      expect(res.body['resource.collection']).toEqual(['/api/resource/'])
      expect(res.body['resource.search']).toEqual(['/api/resource/search/'])
      expect(res.body['pyramid.route']).toEqual(['/api/component/pyramid/route'])
      expect(res.body['auth.current_user']).toEqual(['/api/component/auth/current_user'])
      expect(res.body['spatial_ref_sys.collection']).toEqual(['/api/component/spatial_ref_sys/'])
    },
  },
  {
    name: 'pkg_version reports a nextgisweb version that clients parse as major.minor',
    async run(api, expect) {
      const res = await api.request('GET', '/api/component/pyramid/pkg_version', { auth: 'guest' })
      expect(res.status).toBe(200)
      expect(res.body.nextgisweb).toMatch(/^\d+\.\d+\.\d+$/)
      expect(res.body.outpost_host).toBe(api.host)
    },
  },
  {
    name: 'healthcheck answers success after a round trip to the database, for anyone',
    async run(api, expect) {
      const res = await api.request('GET', '/api/component/pyramid/healthcheck', { auth: 'guest' })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ success: true, component: { outpost: { success: true } } })
    },
  },
  {
    name: 'ping answers current and started times',
    async run(api, expect) {
      const res = await api.request('GET', '/api/component/pyramid/ping', { auth: 'guest' })
      expect(res.status).toBe(200)
      expect(res.body.current).toBeGreaterThanOrEqual(res.body.started)
    },
  },
  {
    name: 'settings requires component and answers file_upload limits',
    async run(api, expect) {
      expectError(expect, await api.request('GET', '/api/component/pyramid/settings'), 422, 'nextgisweb.core.exception.ValidationError')
      const res = await api.request('GET', '/api/component/pyramid/settings?component=file_upload')
      expect(res.status).toBe(200)
      expect(res.body.maxSize).toBeGreaterThan(0)
      expect(res.body.chunkSize).toBeGreaterThan(0)
      const p = await api.request('GET', '/api/component/pyramid/settings?component=pyramid')
      expect(p.body.company_logo).toMatchObject({ enabled: false })
    },
  },
  {
    name: 'SRS list always has 4326 and 3857; an unknown SRS is a 404',
    async run(api, expect) {
      const res = await api.request('GET', '/api/component/spatial_ref_sys/', { auth: 'guest' })
      expect(res.status).toBe(200)
      const ids = res.body.map((s: { id: number }) => s.id)
      expect(ids).toContain(4326)
      expect(ids).toContain(3857)
      expect(res.body.find((s: { id: number }) => s.id === 3857)).toMatchObject({
        display_name: 'WGS 84 / Pseudo-Mercator (EPSG:3857)', auth_name: 'EPSG', auth_srid: 3857 })
      const one = await api.request('GET', '/api/component/spatial_ref_sys/4326')
      expect(one.body.auth_srid).toBe(4326)
      expectError(expect, await api.request('GET', '/api/component/spatial_ref_sys/999999'), 404,
        'nextgisweb.spatial_ref_sys.exception.SRSNotFound')
    },
  },
  {
    name: 'unknown API paths are a JSON 404, even with wrong credentials',
    async run(api, expect) {
      const res = await api.request('GET', '/api/no/such/thing', { auth: { login: 'administrator', password: 'wrong' } })
      expectError(expect, res, 404, 'nextgisweb.pyramid.exception.PyramidHTTPError')
      expect(res.body.title).toBe('Page not found')
      // Trailing slashes are significant: there is no append-slash redirect.
      expectError(expect, await api.request('GET', '/api/resource/search'), 404, 'nextgisweb.pyramid.exception.PyramidHTTPError')
      expectError(expect, await api.request('GET', '/api/resource/abc'), 404, 'nextgisweb.pyramid.exception.PyramidHTTPError')
    },
  },
]
