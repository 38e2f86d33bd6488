import { expect, test } from '@playwright/test'
import { dropFile, firstLogin, openApp, pick, treeNode } from './ui-steps.ts'
import { countColor, settle } from './map-steps.ts'
import { featureCollection, utf8 } from '../api/ingest-files.ts'

// A phone-sized screen: the sidebar is a drawer over the map, controls are touch-sized.

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 })

test('phone: the tree in a drawer over the map, touch-sized rows', async ({ page }) => {
  await openApp(page)
  await firstLogin(page)
  await treeNode(page, 'Demo project').getByTestId('tree-toggle').tap()
  await expect(treeNode(page, 'Field observations')).toBeVisible()
  await pick(page, 'Field observations')
  await expect(page.getByTestId('details-field')).toHaveCount(5)

  // Nothing is wider than the screen, and tree rows are easy to hit with a finger.
  const width = await page.evaluate(() => document.documentElement.scrollWidth)
  expect(width).toBeLessThanOrEqual(390)
  const row = await treeNode(page, 'Field observations').getByTestId('tree-label').boundingBox()
  expect(row!.height).toBeGreaterThanOrEqual(44)
  const drawer = await page.getByTestId('sidebar').boundingBox()
  expect(drawer!.width).toBeLessThan(390)
  await page.screenshot({ path: 'test-results/ui-phone-tree.png' })

  // The menu button hides the drawer and shows the map; it comes back the same way.
  await page.getByTestId('sidebar-toggle').tap()
  await expect(page.getByTestId('sidebar')).toBeHidden()
  const map = await page.getByTestId('map').boundingBox()
  expect(map!.width).toBe(390)
  await expect(page.locator('.ol-viewport canvas').first()).toBeVisible()
  await page.screenshot({ path: 'test-results/ui-phone-map.png' })
  await page.getByTestId('sidebar-toggle').tap()
  await expect(treeNode(page, 'Field observations')).toBeVisible()
})

test('phone: the drawer opens on first use, then as left; the world basemap has no lines across the ocean', async ({ page }) => {
  await openApp(page)
  await expect(page.getByTestId('sidebar')).toBeVisible()
  await page.getByTestId('sidebar-toggle').tap()
  await expect(page.getByTestId('sidebar')).toBeHidden()
  // The South Pacific at a small scale (no land within 80 px of the centre): water only.
  await page.evaluate(() => localStorage.setItem('outpost.map.view', JSON.stringify({ center: [-130 * 111319.49, -15 * 111319.49 * 1.02], zoom: 2 })))
  await page.reload()
  await expect(page.getByTestId('map')).toBeVisible()
  await expect(page.getByTestId('sidebar')).toBeHidden()
  await settle(page)
  await page.screenshot({ path: 'test-results/ui-phone-pacific.png' })
  // Land fill (#f3f0e8) and its outline (#b9c9d6): both drew bands and lines from edges across the antimeridian.
  expect(await countColor(page, '#cfe3f2', 6, 160)).toBeGreaterThan(160 * 160 * 4 * 0.8)
  expect(await countColor(page, '#f3f0e8', 10, 160)).toBe(0)
  expect(await countColor(page, '#b9c9d6', 10, 160)).toBe(0)
  // Opened again, it stays open across a reload.
  await page.getByTestId('sidebar-toggle').tap()
  await page.reload()
  await expect(page.getByTestId('sidebar')).toBeVisible()
})

test('phone: collect form labels are field names, a date-time starts at now, an import joins the layer list, opacity shows its value', async ({ page }) => {
  test.setTimeout(120_000)
  await openApp(page)
  await firstLogin(page)
  await page.getByTestId('sidebar-toggle').tap()
  await page.getByTestId('field-open').tap()
  await page.getByTestId('field-layer-select').selectOption({ label: 'Field observations' })
  await page.getByTestId('field-add').tap()
  // Labels are the display names only ("Count", not "Count integer").
  await expect(page.getByLabel('Count', { exact: true })).toBeVisible()
  await expect(page.getByLabel('Observed at', { exact: true })).toHaveAttribute('type', 'datetime-local')
  const observed = await page.getByTestId('field-input-observed').inputValue()
  const now = await page.evaluate(() => Date.now())
  expect(observed).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
  expect(Math.abs(new Date(observed).getTime() - now)).toBeLessThan(120_000)
  await page.getByRole('button', { name: 'Cancel' }).tap()

  // A layer imported meanwhile is offered in the collect panel at once, and chosen.
  const name = `Springs ${Date.now()}`
  await dropFile(page, 'springs.geojson', utf8(featureCollection([{ geometry: { type: 'Point', coordinates: [8.54, 47.37] }, properties: { name: 'A' } }])))
  const dialog = page.getByTestId('dialog-ingest')
  await expect(dialog.getByTestId('ingest-geometry')).toHaveText('POINT', { timeout: 60_000 })
  await dialog.getByTestId('ingest-name').fill(name)
  await dialog.getByTestId('ingest-create').click()
  await expect(dialog).toBeHidden({ timeout: 60_000 })
  const select = page.getByTestId('field-layer-select')
  await expect(select.locator('option', { hasText: name })).toHaveCount(1)
  await expect(select.locator('option:checked')).toHaveText(name)

  // The opacity slider says how opaque its layer is.
  const layer = Number(await page.getByTestId('field-panel').getAttribute('data-layer'))
  await page.getByTestId('layer-list-toggle').tap()
  await expect(page.getByTestId(`layer-opacity-value-${layer}`)).toHaveText('100 %')
  await page.getByTestId(`layer-opacity-${layer}`).fill('0.7')
  await expect(page.getByTestId(`layer-opacity-value-${layer}`)).toHaveText('70 %')
})
