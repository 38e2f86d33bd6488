import { expect, test } from '@playwright/test'
import { dropFile, firstLogin, openApp, pick, treeNode } from './ui-steps.ts'

// Issue 20, item 10: what a person on a phone noticed — the drawer, the collect form's labels
// and date-time, the collect panel's layer list after an import, the opacity value.

test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })

test('phone: the drawer opens on first use only, then stays as the person left it', async ({ page }) => {
  await openApp(page)
  await expect(page.getByTestId('sidebar')).toBeVisible()
  await page.getByTestId('sidebar-toggle').tap()
  await expect(page.getByTestId('sidebar')).toBeHidden()
  await page.reload()
  await expect(page.locator('.ol-viewport canvas').first()).toBeVisible()
  await expect(page.getByTestId('sidebar')).toBeHidden()
  // Opened again, it is open after the next load.
  await page.getByTestId('sidebar-toggle').tap()
  await page.reload()
  await expect(treeNode(page, 'Main resource group')).toBeVisible()
})

test('phone: the collect form labels fields by name only, a date-time starts at now; an imported layer is offered at once; opacity shows its value', async ({ page }) => {
  test.setTimeout(90_000)
  await openApp(page)
  await firstLogin(page)
  await treeNode(page, 'Demo project').getByTestId('tree-toggle').tap()
  await pick(page, 'Field observations')
  await page.getByTestId('action-collect').tap()
  await page.getByTestId('field-add').click()
  await expect(page.locator('label[for]', { hasText: 'Count' })).toHaveText('Count')
  await expect(page.locator('label[for]', { hasText: 'Observed at' })).toHaveText('Observed at')
  const observed = await page.getByTestId('field-input-observed').inputValue()
  const shown = new Date(observed).getTime() // datetime-local: the device's time
  expect(Math.abs(shown - Date.now())).toBeLessThan(5 * 60_000)

  // A layer imported now is in the collect panel's list without a reload.
  await page.getByTestId('sidebar-toggle').tap()
  const name = `Phone import ${Date.now()}`
  const geojson = JSON.stringify({ type: 'FeatureCollection', features: [
    { type: 'Feature', properties: { n: 1 }, geometry: { type: 'Point', coordinates: [8.54, 47.37] } }] })
  await dropFile(page, 'points.geojson', new TextEncoder().encode(geojson))
  const dialog = page.getByTestId('dialog-ingest')
  await dialog.getByTestId('ingest-name').fill(name)
  await dialog.getByTestId('ingest-create').click()
  await expect(dialog).toBeHidden({ timeout: 60_000 })
  await expect(page.getByTestId('field-layer-select').locator('option', { hasText: name })).toHaveCount(1)

  // The opacity slider says its value.
  if (await page.getByTestId('sidebar').isVisible()) await page.getByTestId('sidebar-toggle').tap()
  await page.getByTestId('layer-list-toggle').click()
  const value = page.getByTestId('layer-list').locator('output').first()
  await expect(value).toHaveText('100 %')
  const slider = page.getByTestId('layer-list').locator('input[type=range]').first()
  await slider.fill('0.7')
  await expect(value).toHaveText('70 %')
})
