import { expect, test, type Page } from '@playwright/test'
import { dropFile, firstLogin, openApp, pick, treeNode } from './ui-steps.ts'
import { TIFFS } from '../api/ingest-files.ts'

// The map's Layers list as a person meets it: an imported GeoTIFF is listed and drawn, a
// styled layer is listed (and drawn) once, and an export is saved under the layer's name.

/** The RGBA of a style's own canvas at the given fraction of the map's size. */
async function stylePixel(page: Page, styleId: number, fx: number, fy: number): Promise<number[]> {
  return page.evaluate(({ id, fx, fy }) => {
    const canvas = document.querySelector(`.outpost-style-${id} canvas`) as HTMLCanvasElement | null
    if (!canvas) return []
    return Array.from(canvas.getContext('2d')!.getImageData(Math.round(canvas.width * fx), Math.round(canvas.height * fy), 1, 1).data)
  }, { id: styleId, fx, fy })
}

/** The ids of the resources of class `cls` named `name`. */
async function idsOf(page: Page, cls: string, name: string): Promise<number[]> {
  return page.evaluate(async ({ cls, name }) => {
    const res = await fetch(`/api/resource/search/?${new URLSearchParams({ cls, display_name: name })}`)
    return ((await res.json()) as { resource: { id: number } }[]).map((i) => i.resource.id)
  }, { cls, name })
}

/** The children of resource `id`: class and name. */
async function childrenOf(page: Page, id: number): Promise<{ id: number; cls: string; display_name: string }[]> {
  return page.evaluate(async (id) => ((await (await fetch(`/api/resource/?parent=${id}`)).json()) as
    { resource: { id: number; cls: string; display_name: string } }[]).map((i) => i.resource), id)
}

test('an imported GeoTIFF gets a style, is in the Layers list and is drawn where it lies', async ({ page }) => {
  test.setTimeout(120_000)
  await openApp(page)
  await firstLogin(page)
  const name = `Orthophoto ${Date.now()}`
  await dropFile(page, 'ortho.tif', await TIFFS.rgb())
  const dialog = page.getByTestId('dialog-ingest')
  await expect(dialog).toBeVisible()
  await dialog.getByTestId('ingest-name').fill(name)
  await dialog.getByTestId('ingest-create').click()
  await expect(dialog).toBeHidden({ timeout: 60_000 })
  await expect(treeNode(page, name)).toBeVisible()

  // Created with the layer: one raster style, named after it.
  const [raster] = await idsOf(page, 'raster_layer', name)
  const styles = await childrenOf(page, raster!)
  expect(styles.map((s) => [s.cls, s.display_name])).toEqual([['raster_style', name]])
  const style = styles[0]!.id

  // Listed once under the layer's name, switched on; zoomed to, its pixels (200, 100, 50 in a square) are drawn.
  await page.getByTestId('layer-list-toggle').click()
  const item = page.getByTestId(`layer-item-${style}`)
  await expect(item).toContainText(name)
  await expect(page.getByTestId('layer-list').locator('li', { hasText: name })).toHaveCount(1)
  await expect(page.getByTestId(`layer-toggle-${style}`)).toBeChecked()
  await page.getByTestId(`layer-zoom-${style}`).click()
  await expect.poll(async () => (await stylePixel(page, style, 0.5, 0.5)).slice(0, 4).join(','), { timeout: 20_000 }).toBe('200,100,50,255')
})

/** A polygon layer in the main group with one square at the map's start (lon 0, lat 20), made through the API. */
async function squareLayer(page: Page, name: string): Promise<number> {
  return page.evaluate(async (name) => {
    const post = async (url: string, body: unknown, method = 'POST') =>
      (await fetch(url, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json()
    const { id } = await post('/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
      vector_layer: { srs: { id: 4326 }, geometry_type: 'POLYGON', fields: [{ keyname: 'kind', datatype: 'STRING' }] } })
    await post(`/api/resource/${id}/feature/`, [{ geom: 'POLYGON((-5 15,5 15,5 25,-5 25,-5 15))', fields: { kind: 'wood' } }], 'PATCH')
    return id as number
  }, name)
}

test('a styled layer is listed and drawn once, an abandoned "+ Style" leaves nothing, an export is saved under the layer\'s name', async ({ page }) => {
  await openApp(page)
  await firstLogin(page)
  const name = 'Woods: north/south?'
  const layer = await squareLayer(page, name)
  await page.reload()
  await pick(page, name)
  const styles = page.getByTestId('layer-styles')
  await expect(styles.getByText('This layer has no style yet.')).toBeVisible()

  // "+ Style" then Cancel: no style is created.
  await styles.getByTestId('style-add').click()
  await expect(page.getByTestId('dialog-style')).toBeVisible()
  await page.getByTestId('style-editor').getByRole('button', { name: 'Cancel' }).click()
  await expect(page.getByTestId('dialog-style')).toBeHidden()
  expect(await childrenOf(page, layer)).toEqual([])
  await expect(styles.getByText('This layer has no style yet.')).toBeVisible()

  // "+ Style" then Save: one style, put on the map.
  await styles.getByTestId('style-add').click()
  await page.getByTestId('style-save').click()
  await expect(page.getByTestId('dialog-style')).toBeHidden()
  const created = await childrenOf(page, layer)
  expect(created.map((s) => [s.cls, s.display_name])).toEqual([['engine_style', 'Style 1']])
  const style = created[0]!.id
  await expect(styles.getByTestId('style-show')).toBeChecked()

  // The map's list names the layer once: by its style, not also by its own vector tiles.
  await page.getByTestId('layer-list-toggle').click()
  await expect(page.getByTestId(`layer-item-${style}`)).toBeVisible()
  await expect(page.getByTestId('layer-list').locator('li', { hasText: name })).toHaveCount(1)
  await expect(page.getByTestId(`layer-item-${layer}`)).toHaveCount(0)
  await expect.poll(async () => (await stylePixel(page, style, 0.5, 0.5))[3] ?? 0, { timeout: 15_000 }).toBeGreaterThan(200)
  // Still once after a reload, where the list is read from the server.
  await page.reload()
  await page.getByTestId('layer-list-toggle').click()
  await expect(page.getByTestId(`layer-item-${style}`)).toBeVisible()
  await expect(page.getByTestId('layer-list').locator('li', { hasText: name })).toHaveCount(1)

  // Exported from the styled entry: the layer's features, saved as the layer's name made safe for file systems.
  await page.getByTestId(`layer-export-${style}`).click()
  await page.getByTestId('export-format').selectOption('GPKG')
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-download').click()])
  expect(file.suggestedFilename()).toBe('Woods_ north_south_.gpkg')
})
