/**
 * The WMS client's limits on the Node host (issue 26 item 2), where the test can shorten them:
 * a remote that never answers times out, one that never ends is cut at the cap, both as 502s
 * that store nothing; and a host listening beyond loopback refuses to reach loopback and
 * private addresses unless the administrator allowed them (`--allow-remote`, the outbound
 * guard of sw/host/node-outbound.ts). The shared cases (cases/wmsclient.ts) cover the rest on
 * every host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import type { Api } from './harness.ts'
import { expectError, uniq } from './harness.ts'
import { startNodeApi } from './node-client.ts'
import { HostileRemote } from './hostile-remote.ts'
import { wmsRemote } from './wms-remote.ts'
import { guardedFetch, parseCidrs } from '../../sw/host/node-outbound.ts'
import type { NodePlatformOptions } from '../../sw/host/node.ts'

const EXTERNAL = 'nextgisweb.core.exception.ExternalServiceError'
const servers: Server[] = []
let hostile: HostileRemote

async function host(platform: Partial<NodePlatformOptions>): Promise<Api> {
  const { api, server } = await startNodeApi({ platform })
  servers.push(server)
  return api
}

const connect = (api: Api, url: string) => api.request('POST', '/api/resource/', { body: {
  resource: { cls: 'wmsclient_connection', parent: { id: 0 }, display_name: uniq('WMS') }, wmsclient_connection: { url, capcache: 'query' } } })

beforeAll(async () => { hostile = await new HostileRemote().start() })
afterAll(async () => {
  for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()))
  await hostile.close()
})

describe('WMS client limits (Node host)', () => {
  it('a remote that never answers times out and one that never ends is cut at the cap: 502s, nothing created', async () => {
    const api = await host({ outboundLimits: { wms: { maxBytes: 1024 * 1024, idleMs: 300, totalMs: 1500 } } })
    const remote = await wmsRemote()
    const before = (await api.request('GET', '/api/resource/?parent=0')).body.length
    const silent = await connect(api, remote.url('silent'))
    expectError(expect, silent, 502, EXTERNAL)
    expect(silent.body.title).toBe('Remote server timed out')
    const endless = await connect(api, `${hostile.url('chunked')}/wms`)
    expectError(expect, endless, 502, EXTERNAL)
    expect(endless.body.title).toBe('Remote answer too large')
    expect(hostile.sent.get('chunked')!).toBeLessThan(16 * 1024 * 1024)
    expect((await api.request('GET', '/api/resource/?parent=0')).body.length).toBe(before)
    // A layer's images time out the same way.
    const conn = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'wmsclient_connection', parent: { id: 0 },
      display_name: uniq('WMS') }, wmsclient_connection: { url: remote.url('silent') } } })
    const layer = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'wmsclient_layer', parent: { id: 0 },
      display_name: uniq('WMS layer') }, wmsclient_layer: { connection: { id: conn.body.id }, wmslayers: 'roads', imgformat: 'image/png', srs: { id: 3857 } } } })
    const tile = await api.request('GET', `/api/component/render/tile?resource=${layer.body.id}&z=0&x=0&y=0`)
    expectError(expect, tile, 502, EXTERNAL)
    expect(tile.body.title).toBe('Remote server timed out')
  })

  it('a host exposed beyond loopback refuses a WMS on a loopback address unless its range is allowed', async () => {
    const remote = await wmsRemote()
    const refused = await connect(await host({ fetch: guardedFetch([]) }), remote.url('ok'))
    expectError(expect, refused, 502, EXTERNAL)
    expect(refused.body.title).toBe('Remote server unreachable')
    expect(refused.body.message).toContain('127.0.0.1 is a loopback address')
    expect(refused.body.message).toContain('--allow-remote')
    const allowed = await connect(await host({ fetch: guardedFetch(parseCidrs(['127.0.0.0/8'])) }), remote.url('ok'))
    expect(allowed.status, allowed.text).toBe(201)
  })

  it('keeps at most the configured number of images: the oldest go first, and the map still answers', async () => {
    const api = await host({ wmsKept: 2 })
    const remote = await wmsRemote()
    const conn = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'wmsclient_connection', parent: { id: 0 },
      display_name: uniq('WMS') }, wmsclient_connection: { url: remote.url('flaky') } } })
    const layer = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'wmsclient_layer', parent: { id: 0 },
      display_name: uniq('WMS layer') }, wmsclient_layer: { connection: { id: conn.body.id }, wmslayers: 'roads', imgformat: 'image/png', srs: { id: 3857 } } } })
    expect(layer.status, layer.text).toBe(201)
    const tile = (x: number) => api.request('GET', `/api/component/render/tile?resource=${layer.body.id}&z=3&x=${x}&y=2&cache=false`)
    for (let x = 0; x < 3; x++) expect((await tile(x)).status).toBe(200)
    remote.down = true
    try {
      // Three seen, two kept: the first went.
      const offline = []
      for (let x = 0; x < 3; x++) offline.push((await tile(x)).status)
      expect(offline).toEqual([502, 200, 200])
    } finally {
      remote.down = false
    }
    // Online again the map answers, and keeping goes on: the newest push the oldest out.
    for (const x of [3, 0]) expect((await tile(x)).status).toBe(200)
    remote.down = true
    try {
      const offline = []
      for (let x = 0; x < 4; x++) offline.push((await tile(x)).status)
      expect(offline).toEqual([200, 502, 502, 200])
    } finally {
      remote.down = false
    }
  })
})
