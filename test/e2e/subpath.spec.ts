import { expect, test, type Page } from '@playwright/test'
import { WELLS, WELLS_SUMMARY } from '../api/gdal-cases.ts'
import { swApi } from './helpers.ts'
import { appEntryScript, serveStatic, type StaticHost } from './static-host.ts'
import { firstLogin, NEW_ADMIN_PASSWORD, treeNode } from './ui-steps.ts'

// The built app (dist/) copied to a path of a plain static host, GitHub-Pages style: no Node
// host behind it, so the app's files, its worker and everything under /demo/api/ must follow
// the path. The same dist/ is what the other specs open at the site root.

const DIST = 'dist'

let host: StaticHost | undefined
test.afterEach(async () => { await host?.close(); host = undefined })

/** Every answer of 400 or more the page and its workers got, but the probes the test sends itself. */
function failures(page: Page): string[] {
  const out: string[] = []
  page.context().on('response', (res) => { if (res.status() >= 400) out.push(`${res.status()} ${res.url()}`) })
  return out
}

test('dist/ under /demo/ of a static host: the app starts, the demo data comes from the worker, the API answers under /demo/api/, the layers draw', async ({ page }) => {
  test.setTimeout(120_000) // a first install, and GDAL's 40 MB on first use
  host = await serveStatic(DIST, '/demo/')
  const failed = failures(page)
  // What the page and its tile-decoding worker asked for (the page's performance entries list only its own).
  const requested: string[] = []
  page.context().on('request', (r) => { requested.push(r.url()) })
  await page.goto(`${host.url}/demo/`)
  // A guest reads nothing (issue 21): the started app says so, and the first login opens the demo.
  await expect(page.getByTestId('tree-denied')).toBeVisible({ timeout: 60_000 })
  failed.length = 0
  await firstLogin(page)
  await expect(treeNode(page, 'Demo project')).toBeVisible()
  expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())?.scope)).toBe(`${host.url}/demo/`)

  // The API is the worker's, under the app's directory; the site root has none.
  const probe = await page.evaluate(async () => {
    const res = await fetch('/demo/api/resource/0')
    const demo = await (await fetch('/demo/api/resource/search/?display_name=Field%20observations')).json()
    const count = await (await fetch(`/demo/api/resource/${demo[0].resource.id}/feature_count`)).json()
    const manifest = await (await fetch('/demo/manifest.webmanifest')).json()
    return { status: res.status, host: res.headers.get('x-outpost-host'), root: (await res.json()).resource.display_name,
      count: count.total_count, startUrl: new URL(manifest.start_url, location.href).pathname,
      outside: (await fetch('/api/resource/0')).status }
  })
  expect(probe).toEqual({ status: 200, host: 'service-worker', root: 'Main resource group', count: 4, startUrl: '/demo/', outside: 404 })

  // The demo layers are listed and drawn from vector tiles answered under /demo/api/.
  await page.getByTestId('layer-list-toggle').click()
  await expect(page.getByTestId('layer-list')).toContainText('Field observations')
  await expect(page.getByTestId('layer-list')).toContainText('Survey routes')
  await expect.poll(() => requested.filter((u) => new URL(u).pathname.startsWith('/demo/api/component/feature_layer/mvt')).length).toBeGreaterThan(0)
  await expect.poll(() => page.evaluate(() => performance.getEntriesByType('resource')
    .filter((e) => new URL(e.name).pathname.startsWith('/demo/api/component/outpost/basemap/')).length)).toBeGreaterThan(0)
  // Nothing the app asked for was missing, apart from the probe of the site root's API.
  expect(failed.filter((f) => !f.endsWith('/api/resource/0') || f.includes('/demo/'))).toEqual([])

  // GDAL's files come from /demo/gdal/ (kept in the worker's engine cache), and a TUS upload's
  // Location points under /demo/api/, where the next request of the upload goes.
  const api = swApi(page, NEW_ADMIN_PASSWORD)
  const inspect = await api.request('POST', '/demo/api/component/outpost/gdal/inspect?name=wells.geojson', { raw: WELLS })
  expect([inspect.status, inspect.body]).toEqual([200, WELLS_SUMMARY])
  expect(await page.evaluate(async () => (await (await caches.open('outpost-engines-v1')).keys()).map((r) => new URL(r.url).pathname).sort()))
    .toEqual(['/demo/gdal/gdal3WebAssembly.data', '/demo/gdal/gdal3WebAssembly.wasm'])
  const created = await api.request('POST', '/demo/api/component/file_upload/', { headers: { 'tus-resumable': '1.0.0', 'upload-length': '5' } })
  expect(created.status).toBe(201)
  expect(created.headers.location).toMatch(new RegExp(`^${host.url}/demo/api/component/file_upload/[0-9a-f]{32}$`))
  const head = await api.request('HEAD', new URL(created.headers.location!).pathname, { headers: { 'tus-resumable': '1.0.0' } })
  expect([head.status, head.headers['upload-length']]).toEqual([200, '5'])

  // A reload is answered by the worker's precache under the path too.
  await page.reload()
  await expect(treeNode(page, 'Demo project')).toBeVisible()
})

test('a start that fails says why on the page instead of "Loading the app…"', async ({ page }) => {
  // The host does not serve the worker: the browser refuses to register it.
  host = await serveStatic(DIST, '/demo/', (path) => path === 'service-worker.js')
  await page.goto(`${host.url}/demo/`)
  await expect(page.getByTestId('splash')).toHaveAttribute('data-step', 'error')
  await expect(page.getByTestId('splash-text')).toContainText('The browser did not start the offline server')
  await expect(page.getByTestId('splash-text')).toContainText(`${host.url}/demo/service-worker.js`)
  await host.close()

  // The host misses the app's own script (dist/ copied in part): no module runs at all.
  const entry = appEntryScript(DIST)
  host = await serveStatic(DIST, '/demo/', (path) => path === entry)
  await page.goto(`${host.url}/demo/`)
  await expect(page.getByTestId('splash')).toHaveAttribute('data-step', 'error')
  await expect(page.getByTestId('splash-text')).toContainText('A file of the app did not load')
  await expect(page.getByTestId('splash-text')).toContainText(`${host.url}/demo/${entry}`)
})
