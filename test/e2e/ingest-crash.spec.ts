import { expect, test, type Page } from '@playwright/test'
import type { Api } from '../api/harness.ts'
import { gotoControlled, stopWorker, swApi, SW_ADMIN_PASSWORD } from './helpers.ts'
import { base64, featureCollection, pointsGeojson } from '../api/ingest-files.ts'

// An ingest is one transaction in the service worker too (issue 9 §4): the worker stopped
// mid-ingest, or the tab that started it closed, leaves no half-made layer, and after the
// layer sweep no layer database without its layer.

const FEATURES = 30_000
const AUTH = 'Basic ' + btoa(`administrator:${SW_ADMIN_PASSWORD}`)

/** Starts a create in the page without waiting for it; its progress is reported under `token`. */
async function startCreate(page: Page, parent: number, source: unknown, name: string, token: string): Promise<void> {
  await page.evaluate(({ parent, source, name, token, auth }) => {
    void fetch('/api/resource/', { method: 'POST', headers: { authorization: auth, 'x-outpost-progress': token }, body: JSON.stringify({
      resource: { cls: 'vector_layer', parent: { id: parent }, display_name: name }, vector_layer: { srs: { id: 3857 }, source } }) }).catch(() => undefined)
  }, { parent, source, name, token, auth: AUTH })
}

/** Waits until the progress under `token` shows one of `stages` (or the work ended); returns what was seen. */
async function waitForStage(page: Page, token: string, stages: string[]): Promise<string> {
  return page.evaluate(async ({ token, stages, auth }) => {
    for (let i = 0; i < 2400; i++) {
      const res = await fetch(`/api/component/outpost/progress/${token}`, { headers: { authorization: auth } }).catch(() => undefined)
      const p = res?.ok ? await res.json() : undefined
      if (p && (p.state !== 'running' || stages.includes(p.stage))) return `${p.state}:${p.stage}`
      await new Promise((r) => setTimeout(r, 25))
    }
    return 'timeout'
  }, { token, stages, auth: AUTH })
}

/** Names of the databases saved in IndexedDB (the store's `images`). */
function savedImages(page: Page): Promise<string[]> {
  return page.evaluate(() => new Promise<string[]>((resolve, reject) => {
    const req = indexedDB.open('outpost')
    req.onerror = () => reject(req.error)
    req.onsuccess = () => {
      const tx = req.result.transaction('images', 'readonly')
      const keys = tx.objectStore('images').getAllKeys()
      keys.onsuccess = () => { resolve(keys.result.map(String)); req.result.close() }
      keys.onerror = () => reject(keys.error)
    }
  }))
}

async function checkWholeAndSwept(api: Api, page: Page, parent: number, probe: number): Promise<number> {
  const children = (await api.request('GET', `/api/resource/?parent=${parent}`)).body as Array<{ resource: { id: number; cls: string } }>
  for (const c of children) {
    expect((await api.request('GET', `/api/resource/${c.resource.id}/feature_count`)).body).toEqual({ total_count: FEATURES })
  }
  await api.request('GET', `/api/resource/${probe}/feature_count`) // the first layer opened sweeps orphans
  for (const name of await savedImages(page)) {
    const m = /^layer-(\d+)$/.exec(name)
    if (!m) continue
    const res = await api.request('GET', `/api/resource/${m[1]}`)
    expect(res.status, `${name} has no layer`).toBe(200)
  }
  return children.length
}


test('stopping the worker or closing the tab mid-ingest leaves no half-made layer and no orphan database', async ({ browser }) => {
  test.setTimeout(180_000)
  const context = await browser.newContext()
  try {
    let page = await context.newPage()
    await gotoControlled(page)
    let api = swApi(page)
    expect((await api.request('POST', '/api/component/outpost/gdal/inspect?name=w.geojson',
      { raw: featureCollection([{ geometry: { type: 'Point', coordinates: [1, 2] }, properties: {} }]) })).status).toBe(200)
    const parent = (await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'ingest crash' } } })).body.id
    const probe = (await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'probe' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT' } } })).body.id
    const up = await api.request('POST', '/api/component/file_upload/', { form: [{ name: 'file', filename: 'points.geojson', base64: base64(pointsGeojson(FEATURES)) }] })
    const source = up.body.upload_meta[0]

    // 1: the worker is stopped while GDAL or the checks run.
    const helper = await context.newPage()
    await startCreate(page, parent, source, 'stopped', 'crash-stop-0000001')
    const seen = await waitForStage(page, 'crash-stop-0000001', ['converting', 'checking', 'writing', 'saving'])
    await stopWorker(context, helper)
    await page.close()
    page = await context.newPage()
    await gotoControlled(page)
    api = swApi(page)
    const afterStop = await checkWholeAndSwept(api, page, parent, probe)
    console.info(`worker stopped at '${seen}': ${afterStop} layer(s) afterwards`)

    // 2: the tab that started the ingest is closed while GDAL runs.
    await startCreate(page, parent, source, 'closed', 'crash-close-000001')
    const seen2 = await waitForStage(page, 'crash-close-000001', ['reading', 'converting'])
    await page.close()
    page = await context.newPage()
    await gotoControlled(page)
    api = swApi(page)
    const end = await waitForStage(page, 'crash-close-000001', [])
    const afterClose = await checkWholeAndSwept(api, page, parent, probe)
    console.info(`tab closed at '${seen2}', ended '${end}': ${afterClose} layer(s) afterwards`)
    await helper.close()
  } finally {
    await context.close()
  }
})
