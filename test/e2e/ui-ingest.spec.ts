import { expect, test, type Page } from '@playwright/test'
import { swApi } from './helpers.ts'
import { dropFile, firstLogin, NEW_ADMIN_PASSWORD, openApp, treeNode } from './ui-steps.ts'
import { featureCollection, pointsShapefileZip } from '../api/ingest-files.ts'

// A person drops a file on the app and gets a layer: what GDAL detected, a progress bar with
// the features done, then the layer on the map; offline, with GDAL cached by its first use.

test('offline, a shapefile dropped on the app becomes a layer on the map, with a progress bar on the way', async ({ page, context }) => {
  test.setTimeout(150_000)
  await openApp(page)
  await firstLogin(page)
  // GDAL's files are fetched on first use and kept: one inspection while online.
  const api = swApi(page, NEW_ADMIN_PASSWORD)
  const warm = await api.request('POST', '/api/component/outpost/gdal/inspect?name=w.geojson',
    { raw: featureCollection([{ geometry: { type: 'Point', coordinates: [30, 60] }, properties: {} }]) })
  expect(warm.status).toBe(200)

  await context.setOffline(true)
  await expect(page.getByTestId('offline-indicator')).toBeVisible()
  const zip = await pointsShapefileZip(20_000, 'wells20k')
  await dropFile(page, 'wells20k.zip', zip)

  const dialog = page.getByTestId('dialog-ingest')
  await expect(dialog).toBeVisible()
  await expect(dialog.getByTestId('ingest-filename')).toContainText('wells20k.zip')
  await expect(dialog.getByTestId('ingest-driver')).toHaveText('ESRI Shapefile', { timeout: 30_000 })
  await expect(dialog.getByTestId('ingest-count')).toHaveText('20,000')
  await expect(dialog.getByTestId('ingest-geometry')).toHaveText('POINT')
  await expect(dialog.getByTestId('ingest-fields')).toContainText('surveyed')
  await expect(dialog.getByTestId('ingest-name')).toHaveValue('wells20k')

  await dialog.getByTestId('ingest-create').click()
  await expect(dialog.getByTestId('ingest-progress')).toBeVisible()
  await expect(dialog.getByTestId('ingest-progress-text')).toHaveText(/GDAL|Checking features|Writing|Saving|Starting/)
  await expect(dialog).toBeHidden({ timeout: 90_000 })

  await expect(treeNode(page, 'wells20k')).toBeVisible()
  await expect(page.getByTestId('details-name')).toHaveText('wells20k')
  await expect(page.getByTestId('details-geometry')).toHaveText('POINT')
  // The new layer is the one on the map, every feature drawn.
  const panel = page.getByTestId('field-panel')
  if (!(await panel.isVisible())) await page.getByTestId('field-open').click()
  await expect(panel).toHaveAttribute('data-map-features', '20000', { timeout: 30_000 })
  await context.setOffline(false)
})

test('a refused file shows why next to it, in the server\'s words, and nothing is created', async ({ page }) => {
  test.setTimeout(90_000)
  await openApp(page)
  await firstLogin(page)
  const bad = featureCollection([{ geometry: { type: 'Point', coordinates: [30, 60] }, properties: { id: 7, name: 'x' } }])
  await dropFile(page, 'with-id.geojson', new TextEncoder().encode(bad))
  const dialog = page.getByTestId('dialog-ingest')
  await expect(dialog.getByTestId('ingest-driver')).toHaveText('GeoJSON', { timeout: 30_000 })
  await dialog.getByTestId('ingest-create').click()
  await expect(dialog.getByTestId('form-error-message')).toContainText("with-id.geojson, field 'id': a field named 'id' is not allowed")
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await expect(treeNode(page, 'with-id')).toHaveCount(0)
})
