import { expect, test } from '@playwright/test'
import { toWire } from '../api/harness.ts'
import { gotoControlled, SW_ADMIN_PASSWORD } from './helpers.ts'

// How long the service worker stops answering while it ingests a large file and exports a
// large layer (issue 19, item 2): the page fetches `ping` every 50 ms meanwhile and records
// how long each took. A service worker has no `Worker`, so GDAL runs in it; the numbers are
// written down in docs/architecture.md ("Long work in the service worker").

interface Gaps { status: number; ms: number; pings: number; median: number; max: number }

test('the worker keeps answering ping during a 50,000-feature ingest and its export', async ({ page }) => {
  test.setTimeout(300_000)
  await gotoControlled(page)
  const auth = toWire('GET', '/', {}, SW_ADMIN_PASSWORD).headers
  const result = await page.evaluate(async ({ auth, n }) => {
    const headers = { ...auth, 'content-type': 'application/json' }
    /** Runs `work` while pinging every 50 ms; how long each ping took to be answered. */
    async function during(work: () => Promise<number>): Promise<Gaps> {
      let done = false
      const t0 = performance.now()
      const running = work().finally(() => { done = true })
      const took: number[] = []
      while (!done) {
        const t = performance.now()
        await fetch('/api/component/pyramid/ping')
        took.push(performance.now() - t)
        await new Promise((r) => setTimeout(r, 50))
      }
      const status = await running
      const sorted = [...took].sort((a, b) => a - b)
      return { status, ms: Math.round(performance.now() - t0), pings: took.length, median: Math.round(sorted[sorted.length >> 1] ?? 0),
        max: Math.round(sorted[sorted.length - 1] ?? 0) }
    }
    const features = Array.from({ length: n }, (_, i) => `{"type":"Feature","properties":{"name":"Well ${i}","depth":${i}},"geometry":{"type":"Point","coordinates":[${30 + (i % 100) / 1000},${60 + Math.floor(i / 100) / 1000}]}}`)
    const fd = new FormData()
    fd.append('file', new Blob([`{"type":"FeatureCollection","features":[${features.join(',')}]}`]), 'big.geojson')
    const upload = await (await fetch('/api/component/file_upload/', { method: 'POST', headers: auth, body: fd })).json()
    let id = 0
    const ingest = await during(async () => {
      const res = await fetch('/api/resource/', { method: 'POST', headers, body: JSON.stringify({
        resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `big ${Date.now()}` },
        vector_layer: { srs: { id: 3857 }, source: upload.upload_meta[0] } }) })
      id = (await res.json()).id
      return res.status
    })
    const exported = await during(async () => {
      const res = await fetch(`/api/resource/${id}/export?format=GeoJSON&srs=4326&zipped=false`, { headers: auth })
      await res.arrayBuffer()
      return res.status
    })
    return { ingest, exported }
  }, { auth, n: 50_000 })
  console.log(`offthread-sw: ingest ${JSON.stringify(result.ingest)}; export ${JSON.stringify(result.exported)}`)
  expect(result.ingest.status).toBe(201)
  expect(result.exported.status).toBe(200)
  // The worker answers between the export's pages: pings are answered while it runs.
  expect(result.exported.pings).toBeGreaterThanOrEqual(2)
})
