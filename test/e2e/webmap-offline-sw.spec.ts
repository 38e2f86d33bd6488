import { expect, test, type Page } from '@playwright/test'
import type { Api, Expect } from '../api/harness.ts'
import { NODE_ADMIN_PASSWORD, startNodeApi } from '../api/node-client.ts'
import { BIG, BIG_TILES, colours, connect, countTiles, offlineCases, offlineFixtures, progressToken, reachTiles, replaceRaster, resumeChecked, takeOffline, teamMap, wellsItem,
  type OfflineEnv } from '../api/webmap-offline-cases.ts'
import { gotoControlled, stopWorker, swApi } from './helpers.ts'
import { firstLogin, NEW_ADMIN_PASSWORD, openApp } from './ui-steps.ts'
import { pngToImage, pixel } from '../api/render-helpers.ts'

// Taking a team's web map offline into the app: the backend in the service worker (real
// IndexedDB), the team's server a Node host across origins. The API cases of
// test/api/webmap-offline-cases.ts, then the map opened with the network cut and the team's
// server stopped.

const ORIGIN = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 4173)}`

/** Tile blobs in the worker's IndexedDB (`outpost`, store `blobs`) whose id starts with `prefix`. */
const tileBlobs = (page: Page) => (prefix: string) => page.evaluate(async (prefix) => {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open('outpost')
    open.onsuccess = () => resolve(open.result)
    open.onerror = () => reject(open.error)
  })
  try {
    const count = db.transaction('blobs').objectStore('blobs').count(IDBKeyRange.bound(prefix, prefix + '\uffff'))
    return await new Promise<number>((resolve, reject) => { count.onsuccess = () => resolve(count.result); count.onerror = () => reject(count.error) })
  } finally {
    db.close()
  }
}, prefix)

test.describe('a web map taken offline into the service worker', () => {
  test.describe.configure({ timeout: 120_000 })
  let remote: Awaited<ReturnType<typeof startNodeApi>>
  let page: Page
  let env: OfflineEnv

  test.beforeAll(async ({ browser }) => {
    await offlineFixtures()
    remote = await startNodeApi({ platform: { corsOrigins: [ORIGIN] } })
    page = await (await browser.newContext()).newPage()
    await gotoControlled(page)
    env = { local: swApi(page), remote: remote.api, remoteUrl: remote.base, remotePassword: NODE_ADMIN_PASSWORD, tileBlobs: tileBlobs(page),
      ...countTiles(remote.server), replaceRemoteRaster: replaceRaster(remote.app) }
  })

  test.afterAll(async () => {
    await page.context().close()
    await new Promise((resolve) => remote.server.close(resolve))
  })

  for (const c of offlineCases) test(c.name, () => c.run(env, expect as unknown as Expect))

  test('a job cut by the browser stopping the worker, or by the network going, keeps what came; resumed, it fetches only the rest', async () => {
    const E = expect as unknown as Expect
    const take = async (map: { webmap: number }, token: string) => env.local.request('POST', '/api/component/outpost/webmap_offline/', {
      headers: { 'x-outpost-progress': token }, body: { connection: { id: await connect(env, E) }, webmap: { id: map.webmap }, ...BIG } })
    const listed = async (map: { webmap: number }) => ((await env.local.request('GET', '/api/component/outpost/webmap_offline/')).body as
      { id: number; remote_webmap: number; state: string; stopped?: string }[]).find((m) => m.remote_webmap === map.webmap)!
    // The worker is stopped while the tiles come (as a browser ends an idle or busy worker).
    const map = await teamMap(env, E, { twoLive: true })
    const token = progressToken('swstop')
    const job = take(map, token).catch((err: unknown) => err)
    await reachTiles(env, E, token)
    await stopWorker(page.context(), page)
    // The page's request fails, or Chromium sends it again to the restarted worker, which names the incomplete map to resume.
    const after = await job
    const cut = await listed(map)
    expect(cut).toMatchObject({ state: 'incomplete', stopped: 'the app stopped while it was saved' })
    if (!(after instanceof Error)) {
      expect(after).toMatchObject({ status: 409, body: { exception: 'outpost.webmap_offline.AlreadyTaking', data: { resource_id: cut.id, state: 'incomplete' } } })
    }
    await resumeChecked(env, E, cut.id, map)
    // The network goes while the tiles come: the basemap whose tiles stopped coming cuts the job, kept to be resumed.
    const other = await teamMap(env, E)
    const token2 = progressToken('swnet')
    const job2 = take(other, token2)
    await reachTiles(env, E, token2)
    await page.context().setOffline(true)
    const res = await job2
    await page.context().setOffline(false)
    expect(res.status, JSON.stringify(res.body)).toBe(502)
    expect(res.body.message).toMatch(/^The tiles of basemap "Land" stopped coming from .* resume it when the network is back\.$/)
    const dropped = await listed(other)
    expect(dropped).toMatchObject({ state: 'incomplete', stopped: res.body.message })
    const kept = await env.tileBlobs(`webmap-offline-${dropped.id}-0-`)
    expect(kept).toBeGreaterThan(0)
    const resumed = await env.local.request('POST', `/api/resource/${dropped.id}/webmap_offline/resume`)
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200)
    expect(resumed.body.saved).toMatchObject({ state: 'saved', basemaps: [{ name: 'Land', tiles: BIG_TILES }] })
    expect(await env.tileBlobs(`webmap-offline-${dropped.id}-0-`)).toBe(BIG_TILES)
    expect((await env.local.request('DELETE', `/api/resource/${dropped.id}/webmap_offline`)).body).toEqual({ freed: { tiles: BIG_TILES } })
  })

  test('with the network cut and the team\'s server stopped, the saved map opens with its layer drawn and its basemap tiles', async () => {
    const E = expect as unknown as Expect
    const map = await teamMap(env, E)
    const { id, saved } = await takeOffline(env, E, await connect(env, E), map)
    // The person logs in to the app (online, the first time), then the network goes.
    await openApp(page)
    await firstLogin(page)
    await page.context().setOffline(true)
    await new Promise((resolve) => remote.server.close(resolve))
    remote.server.closeAllConnections()
    // The worker starts again from nothing, as after the phone slept.
    await stopWorker(page.context(), page)
    await page.goto(`./?webmap=${saved.webmap}`)
    await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 20_000 })
    const local = swApi(page, NEW_ADMIN_PASSWORD)
    const item = await wellsItem(local, saved.webmap)
    expect(item.display_name).toBe('Wells')
    // The map opens as the main view: its layer's canvas draws the red points, the basemap the blue land, all from the device.
    const view = page.getByTestId('webmap-view')
    await expect(view).toHaveAttribute('data-loaded', 'true')
    await expect(view.getByTestId('webmap-tree')).toContainText('Wells')
    await expect(view.getByTestId('webmap-basemap')).toHaveValue('0')
    await expect.poll(() => page.evaluate((cls) => {
      let n = 0
      for (const canvas of document.querySelectorAll<HTMLCanvasElement>(`.${cls} canvas`)) {
        const d = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data
        for (let i = 0; i < d.length; i += 4) if (d[i]! > 200 && d[i + 1]! < 60 && d[i + 2]! < 60 && d[i + 3]! > 128) n++
      }
      return n
    }, `outpost-style-${item.layer_style_id}`), { timeout: 30_000 }).toBeGreaterThan(50)
    const blue = async () => {
      const img = pngToImage(new Uint8Array(await page.locator('.ol-viewport').screenshot()))
      let n = 0
      for (let y = 0; y < img.height; y += 4) for (let x = 0; x < img.width; x += 4) {
        const [r, g, b] = pixel(img, x, y)
        if (b > 200 && r < 60 && g < 60) n++
      }
      return n
    }
    await expect.poll(blue, { timeout: 30_000 }).toBeGreaterThan(5000)
    // The view says it is an offline copy and what is missing.
    await expect(view.getByTestId('wmo-view-status')).toContainText('Offline copy of')
    await expect(view.getByTestId('wmo-view-status')).toContainText('tiles "Gone"')
    // The layer draws its three red points from the data on the device.
    const drawn = await local.request('GET', `/api/component/render/tile?resource=${item.layer_style_id}&z=8&x=135&y=86`)
    expect(drawn.status).toBe(200)
    expect(colours(drawn).red).toBeGreaterThan(20)
    // The basemap's tiles of the area come from the device; outside it there are none.
    const basemap = (await local.request('GET', `/api/resource/${saved.basemaps[0].resource}`)).body.basemap_layer.url as string
    const at = (z: number, x: number, y: number) => local.request('GET', basemap.replace('{z}', String(z)).replace('{x}', String(x)).replace('{y}', String(y)))
    for (const [z, x, y] of [[8, 135, 86], [11, 1080, 694], [11, 1081, 695]] as const) {
      const t = await at(z, x, y)
      expect(t.status).toBe(200)
      expect(colours(t).blue).toBeGreaterThan(1000)
    }
    expect((await at(12, 0, 0)).status).toBe(204)
    // What did not come is said, offline too.
    const kept = await local.request('GET', `/api/resource/${id}/webmap_offline`)
    expect(kept.body.missing).toEqual([{ kind: 'tiles', name: 'Gone', reason: expect.stringMatching(/could not be read/) }])
    // A refresh without the team's server is an error report, and changes nothing here.
    const refresh = await local.request('POST', `/api/resource/${id}/webmap_offline`)
    expect(refresh.body.status).toBe('error')
    expect(refresh.body.tiles).toMatchObject([{ name: 'Land', tiles: 0, replaced: false }])
    expect(await env.tileBlobs(`webmap-offline-${id}-0-`)).toBe(saved.basemaps[0].tiles)
    // The view's Refresh says the same, and the map keeps drawing its basemap from the kept tiles.
    await view.getByTestId('wmo-view-refresh').click()
    await expect(page.getByTestId('info-notice').filter({ hasText: 'Not refreshed' })).toContainText('"Land" keeps its tiles')
    await expect.poll(blue, { timeout: 30_000 }).toBeGreaterThan(5000)
    expect((await local.request('GET', `/api/resource/${saved.layers[0].local}/feature_count`)).body.total_count).toBe(3)
  })
})
