import { expect, test, type CDPSession, type Page } from '@playwright/test'
import type { Server } from 'node:http'
import type { Api, Expect } from '../api/harness.ts'
import { NODE_ADMIN_PASSWORD, startNodeApi } from '../api/node-client.ts'
import { FaultProxy } from '../api/fault-proxy.ts'
import { connect, features, link, remoteLayer, syncCases, TOTALS, type SyncEnv } from '../api/sync-cases.ts'
import { gotoControlled, swApi } from './helpers.ts'
import { startCluster, type Cluster } from '../pg/cluster.ts'
import { teamDatabase, type TeamDatabase } from '../pg/team-db.ts'

// Sync Chromium↔Node: the app's backend in the service worker (real IndexedDB) and the team's
// server a Node host reached across origins (its CORS allows the app's origin), through the
// fault proxy. At each cut the worker is stopped through the DevTools protocol.

const ORIGIN = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 4173)}`

test.describe('sync between the service worker and a Node host', () => {
  test.describe.configure({ timeout: 240_000 })
  let remote: { api: Api; server: Server; base: string }
  let proxy: FaultProxy
  let page: Page
  let stop: () => Promise<void>
  let cdp: CDPSession
  let registrationId = ''
  /** The team's own PostGIS database (the PostGIS layer's case): a cluster started on its first use. */
  let pgCluster: Promise<Cluster> | undefined
  let teamDb: Promise<TeamDatabase> | undefined
  const postgis = () => (teamDb ??= (pgCluster = startCluster()).then((c) => teamDatabase(c)))

  test.beforeAll(async ({ browser }) => {
    remote = await startNodeApi({ platform: { corsOrigins: [ORIGIN] } })
    proxy = await new FaultProxy(remote.base).start()
    const context = await browser.newContext()
    page = await context.newPage()
    await gotoControlled(page)
    const helper = await context.newPage()
    cdp = await context.newCDPSession(helper)
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const reg = registrations.find((r) => !r.isDeleted && r.scopeURL.startsWith(ORIGIN))
      if (reg) registrationId = reg.registrationId
    })
    await cdp.send('ServiceWorker.enable')
    stop = async () => { await cdp.send('ServiceWorker.stopAllWorkers') }
  })

  test.afterAll(async () => {
    console.log(`[sync] service worker as the app: operations sent ${TOTALS.operationsSent}, conflicts found ${TOTALS.conflictsFound}, `
      + `features lost ${TOTALS.featuresLost}`)
    await page.context().close()
    await proxy.close()
    await new Promise((resolve) => remote.server.close(resolve))
    await (await pgCluster)?.stop()
  })

  for (const c of syncCases) {
    test(c.name, async () => {
      const env: SyncEnv = { local: swApi(page), remote: remote.api, remoteUrl: proxy.base, remotePassword: NODE_ADMIN_PASSWORD, proxy, stop, postgis }
      await c.run(env, expect as unknown as Expect)
    })
  }

  test('a Background Sync event makes the worker sync every linked layer by itself', async () => {
    const env: SyncEnv = { local: swApi(page), remote: remote.api, remoteUrl: proxy.base, remotePassword: NODE_ADMIN_PASSWORD, proxy }
    const E = expect as unknown as Expect
    const rl = await remoteLayer(env, E)
    await remote.api.request('PATCH', `/api/resource/${rl}/feature/`, { body: [{ geom: 'POINT(1 1)', fields: { name: 'here' } }] })
    const lid = await link(env, E, await connect(env, E), rl)
    const [mine] = await features(env.local, lid)
    await env.local.request('PUT', `/api/resource/${lid}/feature/${mine!.id}`, { body: { fields: { name: 'sent by the worker' } } })
    expect(registrationId).not.toBe('')
    // What the browser does when the network is back after the app registered the tag (useSync.ts).
    await cdp.send('ServiceWorker.dispatchSyncEvent', { origin: ORIGIN, registrationId, tag: 'outpost-sync', lastChance: false })
    await expect.poll(async () => (await features(remote.api, rl))[0]!.fields.name, { timeout: 60_000 }).toBe('sent by the worker')
    expect((await env.local.request('GET', `/api/resource/${lid}/sync`)).body.local_changes.features).toBe(0)
  })

  test('the team\'s server answers CORS only for allowed origins', async () => {
    const pre = await fetch(`${remote.base}/api/resource/0`, { method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization,content-type' } })
    expect(pre.status).toBe(200)
    expect(pre.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(pre.headers.get('access-control-allow-methods')).toBe('PUT')
    expect(pre.headers.get('access-control-allow-headers')).toContain('Authorization')
    const other = await fetch(`${remote.base}/api/resource/0`, { headers: { origin: 'http://elsewhere.example' } })
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
    const got = await fetch(`${remote.base}/api/resource/0`, { headers: { origin: ORIGIN } })
    expect(got.headers.get('access-control-allow-origin')).toBe(ORIGIN)
    expect(got.headers.get('access-control-allow-credentials')).toBe('true')
  })
})
