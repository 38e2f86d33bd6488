import { expect, test, type Page } from '@playwright/test'
import { stopWorker, swApi } from './helpers.ts'
import { dropFile, firstLogin, NEW_ADMIN_PASSWORD, openApp, treeNode } from './ui-steps.ts'
import { featureCollection, pointsGeojson, pointsShapefileZip } from '../api/ingest-files.ts'

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

test('a text file renamed .shp is refused at inspection with the server\'s words; the proposed name drops the extension', async ({ page }) => {
  test.setTimeout(90_000)
  await openApp(page)
  await firstLogin(page)
  await dropFile(page, 'notes.shp', new TextEncoder().encode('Meeting notes\nBring the maps, and the GPS.\n'))
  const dialog = page.getByTestId('dialog-ingest')
  // Before: read as CSV ("Geometry none, Features 0") and the create answered 500.
  await expect(dialog.getByTestId('form-error-message')).toContainText('notes.shp: the name ends in .shp, but the file is not a shapefile', { timeout: 30_000 })
  await expect(dialog.getByTestId('ingest-summary')).toHaveCount(0)
  await expect(dialog.getByTestId('ingest-name')).toHaveValue('notes')
  await expect(dialog.getByTestId('ingest-create')).toBeDisabled()
})

test('Cancel while GDAL converts stops the work: the create answers 409 cancelled and no layer is there after a reload', async ({ page }) => {
  test.setTimeout(150_000)
  await openApp(page)
  await firstLogin(page)
  await dropFile(page, 'cancelme.geojson', new TextEncoder().encode(pointsGeojson(30_000)))
  const dialog = page.getByTestId('dialog-ingest')
  await expect(dialog.getByTestId('ingest-count')).toHaveText('30,000', { timeout: 60_000 })
  const created = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/resource/' && r.request().method() === 'POST', { timeout: 120_000 })
  const cancelled = page.waitForResponse((r) => /\/api\/component\/outpost\/progress\//.test(r.url()) && r.request().method() === 'DELETE')
  await dialog.getByTestId('ingest-create').click()
  // The server has the job (its first progress answer), GDAL is at work: cancel.
  await page.waitForResponse((r) => /\/api\/component\/outpost\/progress\//.test(r.url()) && r.status() === 200, { timeout: 60_000 })
  await dialog.getByTestId('ingest-cancel').click()
  await expect(dialog).toBeHidden()
  expect((await cancelled).status()).toBe(202)
  // Before the fix the create went on and answered 201 with the new layer.
  const res = await created
  expect(res.status()).toBe(409)
  expect((await res.json()).data).toEqual({ cancelled: true })
  await page.reload()
  await expect(treeNode(page, 'Main resource group')).toBeVisible()
  await expect(treeNode(page, 'cancelme')).toHaveCount(0)
  const list = await page.evaluate(async () => (await (await fetch('/api/resource/?parent=0')).json()) as Array<{ resource: { display_name: string } }>)
  expect(list.map((r) => r.resource.display_name)).not.toContain('cancelme')
})

/** How often GDAL was started in this worker's life (the diagnostics' count). */
async function gdalStarts(page: Page): Promise<{ starts: number; started: boolean }> {
  const res = await swApi(page, NEW_ADMIN_PASSWORD).request('GET', '/api/component/outpost/gdal')
  expect(res.status).toBe(200)
  return res.body
}


test('GDAL starts once per worker life, as the import dialog opens: inspections and imports after it reuse it', async ({ page, context }) => {
  test.setTimeout(150_000)
  await openApp(page)
  await firstLogin(page)
  expect(await gdalStarts(page)).toMatchObject({ starts: 0, started: false })
  // The dialog opened with no file yet: GDAL starts now, while the person picks a file
  // (before, it started only once the file was uploaded and inspected).
  await page.getByTestId('action-import').click()
  const dialog = page.getByTestId('dialog-ingest')
  await expect(dialog).toBeVisible()
  await expect.poll(() => gdalStarts(page), { timeout: 60_000 }).toMatchObject({ starts: 1, started: true })
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  for (const name of ['first', 'second']) {
    await dropFile(page, `${name}.zip`, await pointsShapefileZip(300, name))
    await expect(dialog.getByTestId('ingest-count')).toHaveText('300', { timeout: 60_000 })
    await dialog.getByTestId('ingest-create').click()
    await expect(dialog).toBeHidden({ timeout: 60_000 })
    await expect(treeNode(page, name)).toBeVisible()
  }
  expect(await gdalStarts(page)).toMatchObject({ starts: 1 })
  // A stopped worker is a new life: the next dialog starts GDAL once more, once.
  await stopWorker(context, page)
  await dropFile(page, 'third.zip', await pointsShapefileZip(300, 'third'))
  await expect(dialog.getByTestId('ingest-count')).toHaveText('300', { timeout: 60_000 })
  await dialog.getByTestId('ingest-create').click()
  await expect(dialog).toBeHidden({ timeout: 60_000 })
  expect(await gdalStarts(page)).toMatchObject({ starts: 1, started: true })
})
