import { expect, test } from '@playwright/test'
import { encode } from 'fast-png'
import { gotoControlled } from './helpers.ts'

// The basemap picker in Chromium: it searches the built-in catalogue, switches the map's
// basemap, and the map requests the provider's tiles by the right URL. The machine has no
// internet: the test answers tile requests itself (context.route also sees the worker's).

const TILE = (() => {
  const data = new Uint8Array(256 * 256 * 4)
  for (let i = 0; i < data.length; i += 4) data.set([120, 170, 110, 255], i)
  return Buffer.from(encode({ width: 256, height: 256, data, channels: 4, depth: 8 }))
})()

test('basemap picker: search, choose a TMS and a WMS basemap, tiles requested by the right URL, kept offline', async ({ browser }) => {
  const context = await browser.newContext()
  const requested: string[] = []
  const answerTile = async (route: import('@playwright/test').Route) => {
    requested.push(route.request().url())
    await route.fulfill({ status: 200, contentType: 'image/png', body: TILE, headers: { 'access-control-allow-origin': '*' } })
  }
  await context.route(/^https:\/\/(tile\.openstreetmap\.org|ows\.terrestris\.de)\//, answerTile)
  const page = await context.newPage()
  await gotoControlled(page, '/')
  const picker = page.getByTestId('basemap-picker')
  await expect(picker).toBeVisible()
  // Collapsed to its button until opened.
  await expect(page.getByTestId('basemap-search')).toBeHidden()
  await page.getByTestId('basemap-toggle').click()
  await expect(page.getByTestId('basemap-search')).toBeVisible()

  // Type filter: only WMS entries remain.
  await page.getByTestId('basemap-type').selectOption('wms')
  await expect(picker.locator('.results .type').first()).toHaveText('WMS')
  await expect(picker.locator('.results .type', { hasText: 'TMS' })).toHaveCount(0)
  await page.getByTestId('basemap-type').selectOption('')

  await page.getByTestId('basemap-search').fill('OpenStreetMap Standard')
  const items = picker.locator('.results button')
  await expect(items).toHaveCount(1)
  await expect(items.first()).toContainText('OpenStreetMap Standard')
  // The icon comes from the catalogue, resized by the backend.
  await expect.poll(() => items.first().locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(24)
  await items.first().click()

  const tmsTile = /^https:\/\/tile\.openstreetmap\.org\/\d+\/\d+\/\d+\.png$/
  await expect.poll(() => requested.filter((u) => tmsTile.test(u)).length).toBeGreaterThan(0)
  expect(requested.every((u) => tmsTile.test(u))).toBe(true)
  await expect(page.getByTestId('basemap-attribution')).toContainText('© OpenStreetMap contributors')
  await expect(page.locator('.ol-attribution')).toContainText('© OpenStreetMap contributors')
  await expect.poll(async () => Number(await picker.getAttribute('data-tiles-loaded'))).toBeGreaterThan(0)

  // The tiles seen online are in the worker's cache; offline, the map still shows them.
  await expect.poll(() => page.evaluate(async () =>
    (await (await caches.open('outpost-basemap-tiles-v1')).keys()).filter((r) => r.url.includes('tile.openstreetmap.org')).length)).toBeGreaterThan(3)
  // Nothing answers tiles any more (no route, no network): only the cache can.
  await context.unrouteAll()
  await context.setOffline(true)
  await page.reload()
  await expect(page.getByTestId('basemap-picker')).toHaveAttribute('data-current', /\d+/)
  await expect.poll(async () => Number(await page.getByTestId('basemap-picker').getAttribute('data-tiles-loaded'))).toBeGreaterThan(0)
  expect(Number(await page.getByTestId('basemap-picker').getAttribute('data-tiles-failed'))).toBe(0)
  await context.setOffline(false)
  await context.route(/^https:\/\/(tile\.openstreetmap\.org|ows\.terrestris\.de)\//, answerTile)
  await page.getByTestId('basemap-toggle').click()

  // A WMS entry: GetMap requests with its layer.
  await page.getByTestId('basemap-search').fill('terrestris')
  await expect(page.getByTestId('basemap-picker').locator('.results button')).toHaveCount(1)
  await page.getByTestId('basemap-picker').locator('.results button').first().click()
  await expect.poll(() => requested.filter((u) => u.startsWith('https://ows.terrestris.de/osm/service?')).length).toBeGreaterThan(0)
  const wms = new URL(requested.find((u) => u.startsWith('https://ows.terrestris.de/'))!)
  expect(wms.searchParams.get('REQUEST')).toBe('GetMap')
  expect(wms.searchParams.get('LAYERS')).toBe('OSM-WMS')
  expect(wms.searchParams.get('FORMAT')).toBe('image/png')
  await expect(page.getByTestId('basemap-attribution')).toContainText('terrestris')

  // Only services that cover the current view: the built-in ones are global, so all stay.
  await page.getByTestId('basemap-search').fill('')
  await page.getByTestId('basemap-in-view').check()
  await expect(page.getByTestId('basemap-picker').locator('.count')).toHaveText(/^[1-9]\d* found$/)
  await context.close()
})
