import type { ApiCase } from '../harness.ts'
import { expectError } from '../harness.ts'
import { createLayer } from './feature.ts'

export const storageCases: ApiCase[] = [
  {
    name: 'storage diagnostics: the WASM heap and the open layers, for administrators only',
    async run(api, expect) {
      const layer = await createLayer(api, expect, 'POINT', [])
      expect((await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 2)' } })).status).toBe(200)
      const res = await api.request('GET', '/api/component/outpost/storage')
      expect(res.status).toBe(200)
      expect(res.body.wasm_memory).toBeGreaterThan(1 << 20)
      expect(res.body.layers_open).toBeGreaterThanOrEqual(1)
      expect(res.body.layers_resident).toBeGreaterThanOrEqual(0)
      expectError(expect, await api.request('GET', '/api/component/outpost/storage', { auth: 'guest' }), 403,
        'nextgisweb.core.exception.ForbiddenError')
    },
  },
]
