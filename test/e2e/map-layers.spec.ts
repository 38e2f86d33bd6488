import { expect, test, type Page } from '@playwright/test'
import { readFileSync } from 'node:fs'
import { firstLogin, openApp } from './ui-steps.ts'
import { countColor, settle } from './map-steps.ts'

// The map as a person uses it, offline: the bundled world basemap, two layers drawn from the
// worker's vector tiles and switched on and off, identify by click and by a drawn area, and an export download.

const swatchColor = (page: Page, id: number) =>
  page.getByTestId(`layer-swatch-${id}`).evaluate((el) => getComputedStyle(el).getPropertyValue('--c').trim())

test('map offline: world basemap, two layers from vector tiles toggled, identify, export download', async ({ page, context }) => {
  await openApp(page)
  await firstLogin(page)
  const [wells, areas] = await page.evaluate(async () => {
    const post = async (url: string, body: unknown, method = 'POST') =>
      (await fetch(url, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json()
    const layer = (name: string, type: string, fields: unknown[]) => post('/api/resource/', { resource: { cls: 'vector_layer',
      parent: { id: 0 }, display_name: name }, vector_layer: { srs: { id: 4326 }, geometry_type: type, fields } })
    const w = await layer('E2E wells', 'POINT', [{ keyname: 'name', datatype: 'STRING', label_field: true }, { keyname: 'depth', datatype: 'REAL' }])
    const a = await layer('E2E areas', 'POLYGON', [{ keyname: 'kind', datatype: 'STRING' }])
    await post(`/api/resource/${w.id}/feature/`, [{ geom: 'POINT(30 10)', fields: { name: 'Well A', depth: 12.5 } }], 'PATCH')
    await post(`/api/resource/${a.id}/feature/`, [{ geom: 'POLYGON((29.999 9.999,30.001 9.999,30.001 10.001,29.999 10.001,29.999 9.999))',
      fields: { kind: 'meadow' } }], 'PATCH')
    return [w.id as number, a.id as number]
  })

  // Every request of the page and of its tile-decoding worker (which the page's performance entries do not list).
  const requested: string[] = []
  context.on('request', (r) => { requested.push(r.url()) })
  // No network from here on: the app, its API and its basemap come from the worker.
  await context.setOffline(true)
  await page.reload()
  await expect(page.getByTestId('offline-indicator')).toBeVisible()
  await settle(page)
  const basemapTiles = await page.evaluate(() =>
    performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/component/outpost/basemap/')).length)
  expect(basemapTiles).toBeGreaterThan(0)
  // Land (#f3f0e8) and water (#cfe3f2) are both drawn on the world view.
  expect(await countColor(page, '#f3f0e8', 6)).toBeGreaterThan(1000)
  expect(await countColor(page, '#cfe3f2', 6)).toBeGreaterThan(1000)
  await page.screenshot({ path: 'test-results/map-world-offline.png' })

  await page.getByTestId('layer-list-toggle').click()
  await expect(page.getByTestId(`layer-item-${wells}`)).toBeVisible()
  await expect(page.getByTestId(`layer-item-${areas}`)).toBeVisible()
  const wellColor = await swatchColor(page, wells)
  const areaColor = await swatchColor(page, areas)
  await page.getByTestId(`layer-zoom-${wells}`).click()
  await page.screenshot({ path: 'test-results/map-layers-offline.png' })
  // Pixels are counted with the list closed: its swatches have the layers' colours too.
  const toggle = async (id: number, on: boolean) => {
    await page.getByTestId('layer-list-toggle').click()
    await page.getByTestId(`layer-toggle-${id}`).setChecked(on)
    await page.getByTestId('layer-list-toggle').click()
    await settle(page)
  }
  await page.getByTestId('layer-list-toggle').click()
  await settle(page)
  expect(await countColor(page, wellColor)).toBeGreaterThan(30)
  expect(await countColor(page, areaColor)).toBeGreaterThan(30)
  const tiles = requested.filter((u) => u.includes('/api/component/feature_layer/mvt'))
  expect(tiles.some((u) => u.includes(`resource=${wells}&`))).toBe(true)
  expect(tiles.some((u) => u.includes(`resource=${areas}&`))).toBe(true)

  // Switching the wells off removes their points; on again brings them back.
  await toggle(wells, false)
  expect(await countColor(page, wellColor)).toBe(0)
  expect(await countColor(page, areaColor)).toBeGreaterThan(30)
  await toggle(wells, true)
  expect(await countColor(page, wellColor)).toBeGreaterThan(30)
  // And the areas: off leaves the wells alone, on brings them back.
  await toggle(areas, false)
  expect(await countColor(page, areaColor)).toBe(0)
  expect(await countColor(page, wellColor)).toBeGreaterThan(30)
  await toggle(areas, true)
  expect(await countColor(page, areaColor)).toBeGreaterThan(30)

  // A click on the well identifies it and the area under it.
  const box = (await page.getByTestId('map').boundingBox())!
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
  const popup = page.getByTestId('identify-popup')
  await expect(popup).toHaveAttribute('data-count', '2')
  const well = popup.locator(`[data-testid="identify-feature"][data-layer="${wells}"]`)
  await expect(well.locator('summary')).toHaveText('Well A')
  await expect(well.locator('[data-field="depth"]')).toHaveText('12.5')
  await expect(popup.locator(`[data-testid="identify-feature"][data-layer="${areas}"] summary`)).toHaveText(/^#\d+$/)
  await page.screenshot({ path: 'test-results/map-identify-offline.png' })
  await page.getByTestId('identify-close').click()

  // "Identify area": a triangle drawn around the well finds it and the area; one beside it, nothing.
  // The popup may have panned the map: the well is put back in the middle first.
  await page.getByTestId('layer-list-toggle').click()
  await page.getByTestId(`layer-zoom-${wells}`).click()
  await page.getByTestId('layer-list-toggle').click()
  await settle(page)
  const cx = box.x + box.width / 2, cy = box.y + box.height / 2
  const drawTriangle = async (dx: number) => {
    await page.getByTestId('identify-area').click()
    await expect(page.getByTestId('identify-area')).toHaveAttribute('aria-pressed', 'true')
    await page.mouse.click(cx + dx - 30, cy + 25)
    await page.waitForTimeout(300)
    await page.mouse.click(cx + dx + 30, cy + 25)
    await page.waitForTimeout(300)
    await page.mouse.dblclick(cx + dx, cy - 30)
    await expect(page.getByTestId('identify-area')).toHaveAttribute('aria-pressed', 'false')
  }
  await drawTriangle(0)
  await expect(popup).toBeVisible()
  await expect(popup).toHaveAttribute('data-count', '2')
  await expect(popup.locator(`[data-testid="identify-feature"][data-layer="${wells}"] summary`)).toHaveText('Well A')
  await page.getByTestId('identify-close').click()
  await drawTriangle(-250)
  await expect(popup).toBeVisible()
  await expect(popup).toHaveAttribute('data-count', '0')
  await page.getByTestId('identify-close').click()

  // Export the wells as GeoJSON: the file is saved under the layer's name.
  await page.getByTestId('layer-list-toggle').click()
  await page.getByTestId(`layer-export-${wells}`).click()
  await page.getByTestId('export-format').selectOption('GeoJSON')
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-download').click()])
  expect(file.suggestedFilename()).toBe('E2E wells.geojson')
  const doc = JSON.parse(readFileSync((await file.path())!, 'utf8'))
  expect(doc.features).toEqual([expect.objectContaining({ type: 'Feature', properties: { name: 'Well A', depth: 12.5 },
    geometry: { type: 'Point', coordinates: [30, 10] } })])
  await expect(page.getByTestId('dialog-export')).toHaveCount(0)

  // The view and the layer choices survive a reload.
  await page.getByTestId(`layer-toggle-${areas}`).uncheck()
  const view = await page.evaluate(() => localStorage.getItem('outpost.map.view'))
  await page.reload()
  await expect(page.getByTestId(`layer-item-${areas}`)).toHaveAttribute('data-visible', 'false')
  expect(await page.evaluate(() => localStorage.getItem('outpost.map.view'))).toBe(view)
  await context.setOffline(false)
})

test('map: an online basemap whose tiles fail is reported, and the world map stays under it', async ({ page, context }) => {
  await openApp(page)
  await context.setOffline(true)
  await page.getByTestId('basemap-toggle').click()
  await page.getByTestId('basemap-search').fill('OpenStreetMap Standard')
  await page.locator('[data-testid="basemap-picker"] .results button').first().click()
  await expect(page.getByTestId('info-notice').filter({ hasText: 'Basemap not loading' })).toBeVisible()
  await expect(page.getByTestId('basemap-failed')).toBeVisible()
  await settle(page)
  expect(await countColor(page, '#f3f0e8', 6)).toBeGreaterThan(1000)
  await context.setOffline(false)
})
