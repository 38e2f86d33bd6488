import { expect, test, type Page } from '@playwright/test'
import { firstLogin, openApp, pick, treeNode } from './ui-steps.ts'

// A person styles a layer and sees it on the map with its legend, with no network at all:
// the tiles and the legend are drawn by the service worker.

/** Three squares around the map's initial centre (lon 0, lat 20), in EPSG:3857. */
async function addFeatures(page: Page, layer: number) {
  const status = await page.evaluate(async (layer) => {
    const sq = (x: number, y: number, d: number) => `POLYGON((${x} ${y},${x + d} ${y},${x + d} ${y + d},${x} ${y + d},${x} ${y}))`
    const body = [
      { geom: sq(-1500000, 1500000, 1200000), fields: { kind: 'forest', name: 'Green wood' } },
      { geom: sq(300000, 1500000, 1200000), fields: { kind: 'lake', name: 'Blue lake' } },
      { geom: sq(-600000, 3200000, 1200000), fields: { kind: 'lake', name: 'North lake' } },
    ]
    const res = await fetch(`/api/resource/${layer}/feature/`, { method: 'PATCH', body: JSON.stringify(body) })
    return res.status
  }, layer)
  expect(status).toBe(200)
}

/** The RGBA of the style layer's canvas at the given fraction of the map's size. */
async function mapPixel(page: Page, styleId: number, fx: number, fy: number): Promise<number[]> {
  return page.evaluate(({ id, fx, fy }) => {
    const canvas = document.querySelector(`.outpost-style-${id} canvas`) as HTMLCanvasElement | null
    if (!canvas) return []
    const d = canvas.getContext('2d')!.getImageData(Math.round(canvas.width * fx), Math.round(canvas.height * fy), 1, 1).data
    return Array.from(d)
  }, { id: styleId, fx, fy })
}

test('styles a layer with classes and labels, and shows it on the map with its legend, offline', async ({ page, context }) => {
  await openApp(page)
  await firstLogin(page)
  await context.setOffline(true)

  // A new layer gets a default style.
  const name = `Land ${Date.now()}`
  await pick(page, 'Main resource group')
  await page.getByTestId('action-create').click()
  await page.getByTestId('create-cls').selectOption('vector_layer')
  await page.getByTestId('create-display-name').fill(name)
  await page.getByTestId('create-geometry-type').selectOption('POLYGON')
  for (const f of ['kind', 'name']) {
    await page.getByTestId('field-add').click()
    await page.getByTestId('field-keyname').last().fill(f)
  }
  await expect(page.getByTestId('create-default-style')).toBeChecked()
  await page.getByTestId('create-submit').click()
  await expect(page.getByTestId('dialog-create')).toBeHidden()
  await expect(treeNode(page, name)).toBeVisible()
  await pick(page, name)
  const layer = Number(await page.evaluate(async (n) => {
    const res = await fetch(`/api/resource/search/?display_name=${encodeURIComponent(n)}`)
    return ((await res.json()) as { resource: { id: number } }[])[0]!.resource.id
  }, name))
  await addFeatures(page, layer)
  await pick(page, 'Main resource group')
  await pick(page, name)

  const styles = page.getByTestId('layer-styles')
  await expect(styles.getByText('Default style')).toBeVisible()
  await expect(styles.getByTestId('legend-item')).toHaveCount(1)

  // Edit: classes by "kind", labels from "name", with a live preview.
  await styles.getByTestId('style-edit').click()
  const editor = page.getByTestId('style-editor')
  await expect(editor.getByTestId('style-preview')).toBeVisible()
  const before = await editor.getByTestId('style-preview').getAttribute('src')
  await editor.getByTestId('style-classify').selectOption('kind')
  await expect(editor.getByTestId('style-classes').locator('li')).toHaveCount(2)
  await editor.getByTestId('style-label').selectOption('name')
  await expect.poll(() => editor.getByTestId('style-preview').getAttribute('src')).not.toBe(before)
  await editor.getByTestId('style-save').click()
  await expect(page.getByTestId('dialog-style')).toBeHidden()

  // Saved: the legend has a class per kind plus "Other", and the style is on the map.
  await expect(styles.getByTestId('legend-item')).toHaveCount(3)
  await expect(styles.getByTestId('legend-item').first()).toContainText('forest')
  const styleId = Number((await styles.locator('[data-testid^="layer-style-"]').first().getAttribute('data-testid'))!.replace('layer-style-', ''))
  await expect(styles.getByTestId('style-show')).toBeChecked()
  // It is in the map's one layer list, in place of the layer's own vector tiles, with its legend.
  await page.getByTestId('layer-list-toggle').click()
  const onMap = page.getByTestId(`layer-item-${styleId}`)
  await expect(onMap).toBeVisible()
  await expect(page.getByTestId('layer-list').locator('li').first()).toHaveAttribute('data-testid', `layer-item-${styleId}`)
  await expect(page.getByTestId(`layer-item-${layer}`)).toHaveCount(0)
  await expect(onMap.getByTestId('legend-item')).toHaveCount(3)
  await expect(onMap.getByTestId('legend-item').nth(1)).toContainText('lake')

  // The map draws the worker's tiles: the squares are coloured, the corners are not.
  await expect.poll(async () => (await mapPixel(page, styleId, 0.5, 0.5))[3] ?? 0, { timeout: 15_000 }).toBeGreaterThan(200)
  expect((await mapPixel(page, styleId, 0.05, 0.95))[3]).toBe(0)
  const tile = await page.evaluate(async (id) => {
    const res = await fetch(`/api/component/render/tile?z=2&x=1&y=1&resource=${id}`)
    return { status: res.status, type: res.headers.get('content-type'), host: res.headers.get('x-outpost-host') }
  }, styleId)
  expect(tile).toEqual({ status: 200, type: 'image/png', host: 'service-worker' })
  await page.screenshot({ path: 'test-results/ui-style.png' })

  // Switched off in the list, its canvas is not drawn; the opacity slider fades it.
  await page.getByTestId(`layer-toggle-${styleId}`).uncheck()
  await expect.poll(async () => (await mapPixel(page, styleId, 0.5, 0.5))[3] ?? 0).toBe(0)
  await page.getByTestId(`layer-toggle-${styleId}`).check()
  await expect.poll(async () => (await mapPixel(page, styleId, 0.5, 0.5))[3] ?? 0, { timeout: 15_000 }).toBeGreaterThan(200)
  await page.getByTestId(`layer-opacity-${styleId}`).fill('0.5')
  await expect.poll(async () => (await mapPixel(page, styleId, 0.5, 0.5))[3] ?? 0).toBeLessThan(160)

  // After a reload the style is still on the map, on top of the list, at half opacity.
  await page.reload()
  await page.getByTestId('layer-list-toggle').click()
  await expect(page.getByTestId('layer-list').locator('li').first()).toHaveAttribute('data-testid', `layer-item-${styleId}`)
  await expect(page.getByTestId(`layer-opacity-${styleId}`)).toHaveValue('0.5')
  await expect(onMap.getByTestId('legend-item')).toHaveCount(3)
  await pick(page, 'Main resource group')
  await pick(page, name)

  // Taking it off the map removes it from the list and unticks it in the layer's styles.
  await onMap.getByRole('button', { name: /Hide/ }).click()
  await expect(page.getByTestId(`layer-item-${styleId}`)).toHaveCount(0)
  await expect(page.getByTestId(`layer-item-${layer}`)).toBeVisible()
  await expect(styles.getByTestId('style-show')).not.toBeChecked()
  await context.setOffline(false)
})
