import { expect, test, type BrowserContext, type Page } from '@playwright/test'
import type { Expect } from '../api/harness.ts'
import { gdalCases, WELLS, WELLS_SUMMARY } from '../api/gdal-cases.ts'
import { gotoControlled, swApi } from './helpers.ts'

// GDAL-WASM inside the service worker, through the diagnostics route. One context for the
// group: the first GDAL use downloads its 40 MB once into the worker's engine cache.

const ENGINE_CACHE = 'outpost-engines-v1'
const INSPECT = '/api/component/outpost/gdal/inspect?name=wells.geojson'

async function cachedEngineFiles(page: Page): Promise<string[]> {
  return page.evaluate(async (name) => {
    if (!(await caches.has(name))) return []
    return (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname).sort()
  }, ENGINE_CACHE)
}

async function stopWorker(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page)
  await cdp.send('ServiceWorker.enable')
  await cdp.send('ServiceWorker.stopAllWorkers')
  await cdp.detach()
}

test.describe('GDAL in the service worker', () => {
  let context: BrowserContext
  let page: Page
  test.beforeAll(async ({ browser }) => {
    context = await browser.newContext()
    page = await context.newPage()
    await gotoControlled(page)
  })
  test.afterAll(async () => { await context.close() })

  test('GDAL is not started on the start-up path: API answers come without fetching its files', async () => {
    const api = swApi(page)
    const res = await api.request('GET', '/api/resource/0')
    expect(res.status).toBe(200)
    expect(res.headers['x-outpost-host']).toBe('service-worker')
    expect(await cachedEngineFiles(page)).toEqual([])
  })

  for (const c of gdalCases) {
    test(c.name, async () => {
      const api = swApi(page)
      const ping = await api.request('POST', INSPECT, { raw: WELLS })
      expect(ping.headers['x-outpost-host']).toBe('service-worker')
      await c.run(api, expect as unknown as Expect)
    })
  }

  test('the first use cached GDAL\'s files; offline, after the worker was stopped, GDAL still works', async () => {
    expect(await cachedEngineFiles(page)).toEqual(['/gdal/gdal3WebAssembly.data', '/gdal/gdal3WebAssembly.wasm'])
    await context.setOffline(true)
    try {
      await stopWorker(context, page)
      const api = swApi(page)
      const res = await api.request('POST', INSPECT, { raw: WELLS })
      expect(res.headers['x-outpost-host']).toBe('service-worker')
      expect(res.status).toBe(200)
      expect(res.body).toEqual(WELLS_SUMMARY)
      // The worker really is offline: a file it has not cached cannot be fetched.
      const sw = context.serviceWorkers()[0]!
      const uncached = await sw.evaluate(() => fetch('/gdal/not-cached.bin').then((r) => `status ${r.status}`, () => 'failed'))
      expect(uncached).toBe('failed')
    } finally {
      await context.setOffline(false)
    }
  })
})
