import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import { startNodeApi, NODE_ADMIN_AUTH } from './node-client.ts'

// Paths a browser cannot send (it reads `//api/…` as another host), so only the Node host is tested.
let server: Server
let base: string
beforeAll(async () => { ({ server, base } = await startNodeApi()) })
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('Node host paths', () => {
  it('reads a leading double slash as one, as nginx merge_slashes did for old QGIS plugins', async () => {
    const res = await fetch(`${base}//api/v1/geoservices/?limit=1`)
    expect(res.status).toBe(200)
    expect((await res.json()).results).toHaveLength(1)
    // As the administrator: guests read nothing since issue 21.
    const authorization = NODE_ADMIN_AUTH
    const ngw = await fetch(`${base}//api/resource/0`, { headers: { authorization } })
    expect((await ngw.json()).resource.id).toBe(0)
  })

  it('serves a JSON 404 for unknown API paths even without a built app', async () => {
    const res = await fetch(`${base}/api/nothing`)
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/json')
  })
})
