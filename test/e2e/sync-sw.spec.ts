import { expect, test, type Page } from '@playwright/test'
import type { Server } from 'node:http'
import type { Api, Expect } from '../api/harness.ts'
import { NODE_ADMIN_PASSWORD, startNodeApi } from '../api/node-client.ts'
import { FaultProxy } from '../api/fault-proxy.ts'
import { syncCases, TOTALS, type SyncEnv } from '../api/sync-cases.ts'
import { gotoControlled, swApi } from './helpers.ts'

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

  test.beforeAll(async ({ browser }) => {
    remote = await startNodeApi({ platform: { corsOrigins: [ORIGIN] } })
    proxy = await new FaultProxy(remote.base).start()
    const context = await browser.newContext()
    page = await context.newPage()
    await gotoControlled(page)
    const helper = await context.newPage()
    const cdp = await context.newCDPSession(helper)
    await cdp.send('ServiceWorker.enable')
    stop = async () => { await cdp.send('ServiceWorker.stopAllWorkers') }
  })

  test.afterAll(async () => {
    console.log(`[sync] service worker as the app: operations sent ${TOTALS.operationsSent}, conflicts found ${TOTALS.conflictsFound}, `
      + `features lost ${TOTALS.featuresLost}`)
    await page.context().close()
    await proxy.close()
    await new Promise((resolve) => remote.server.close(resolve))
  })

  for (const c of syncCases) {
    test(c.name, async () => {
      const env: SyncEnv = { local: swApi(page), remote: remote.api, remoteUrl: proxy.base, remotePassword: NODE_ADMIN_PASSWORD, proxy, stop }
      await c.run(env, expect as unknown as Expect)
    })
  }

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
