import { expect, test } from '@playwright/test'
import { TIFFS } from '../api/ingest-files.ts'
import { createGroup, firstLogin, openApp, pick, treeNode } from './ui-steps.ts'

// Managing resources through the tree: a layer made with the fields editor is renamed,
// moved and deleted; the API's refusals reach the person with their title and message.

const api = (page: import('@playwright/test').Page, path: string) =>
  page.evaluate(async (p) => {
    const res = await fetch(p)
    return { status: res.status, body: await res.json() }
  }, path)

test('vector layer: create with fields, duplicate name refused, rename, move, delete', async ({ page }) => {
  const tag = Date.now().toString(36)
  const layer = `Wells ${tag}`
  const renamed = `Water points ${tag}`
  const group = `Archive ${tag}`
  await openApp(page)
  await firstLogin(page)

  await pick(page, 'Main resource group')
  await createGroup(page, group)

  // An empty vector layer with two fields.
  await pick(page, 'Main resource group')
  await page.getByTestId('action-create').click()
  await page.getByTestId('create-cls').selectOption('vector_layer')
  await page.getByTestId('create-display-name').fill(layer)
  await page.getByTestId('create-geometry-type').selectOption('MULTIPOINT')
  await page.getByTestId('create-srs').selectOption('4326')
  await page.getByTestId('field-add').click()
  await page.getByTestId('field-add').click()
  const rows = page.getByTestId('field-row')
  await rows.nth(0).getByTestId('field-keyname').fill('depth')
  await rows.nth(0).getByTestId('field-display-name').fill('Depth, m')
  await rows.nth(0).getByTestId('field-datatype').selectOption('REAL')
  await rows.nth(1).getByTestId('field-keyname').fill('checked_on')
  await rows.nth(1).getByTestId('field-datatype').selectOption('DATE')
  await page.getByTestId('create-submit').click()
  await expect(page.getByTestId('dialog-create')).toBeHidden()
  await expect(treeNode(page, layer)).toBeVisible()
  await expect(page.getByTestId('details-name')).toHaveText(layer)
  await expect(page.getByTestId('details-geometry')).toHaveText('MULTIPOINT')
  await expect(page.getByTestId('details-field')).toHaveCount(2)
  await expect(page.getByTestId('details-fields')).toContainText('Depth, m')
  await expect(page.getByTestId('details-fields')).toContainText('DATE')
  const id = Number(await treeNode(page, layer).getAttribute('data-resource-id'))
  const stored = await api(page, `/api/resource/${id}`)
  expect(stored.body.vector_layer).toEqual({ srs: { id: 4326 }, geometry_type: 'MULTIPOINT' })
  expect(stored.body.feature_layer.fields.map((f: { keyname: string; datatype: string }) => [f.keyname, f.datatype]))
    .toEqual([['depth', 'REAL'], ['checked_on', 'DATE']])

  // The same display name twice in one group: the API's 422 is shown in the form.
  await pick(page, 'Main resource group')
  await page.getByTestId('action-create').click()
  await page.getByTestId('create-cls').selectOption('resource_group')
  await page.getByTestId('create-display-name').fill(layer)
  await page.getByTestId('create-submit').click()
  await expect(page.getByTestId('form-error-title')).toHaveText('Resource display name is not unique')
  await expect(page.getByTestId('form-error-message')).toContainText(`id = ${id}`)
  await expect(page.getByTestId('dialog-create')).toBeVisible()
  await page.getByTestId('modal-close').click()

  // Rename.
  await pick(page, layer)
  await page.getByTestId('action-rename').click()
  await page.getByTestId('rename-display-name').fill(renamed)
  await page.getByTestId('rename-submit').click()
  await expect(page.getByTestId('dialog-rename')).toBeHidden()
  await expect(treeNode(page, renamed)).toBeVisible()
  await expect(treeNode(page, layer)).toHaveCount(0)
  await expect(page.getByTestId('details-name')).toHaveText(renamed)

  // Move into the group.
  await page.getByTestId('action-move').click()
  await page.getByTestId('move-target').selectOption({ label: `Main resource group / ${group}` })
  await page.getByTestId('move-submit').click()
  await expect(page.getByTestId('dialog-move')).toBeHidden()
  const groupId = Number(await treeNode(page, group).getAttribute('data-resource-id'))
  await expect(page.locator(`[data-resource-id="${groupId}"] + ul`).getByTestId('tree-node')).toHaveAttribute('data-name', renamed)
  expect((await api(page, `/api/resource/${id}`)).body.resource.parent.id).toBe(groupId)

  // Delete the layer.
  await pick(page, renamed)
  await page.getByTestId('action-delete').click()
  await expect(page.getByTestId('delete-confirm')).toContainText(renamed)
  await page.getByTestId('delete-submit').click()
  await expect(treeNode(page, renamed)).toHaveCount(0)
  expect((await api(page, `/api/resource/${id}`)).status).toBe(404)
  await expect(page.getByTestId('details-name')).toHaveText(group)
})

test('deleting a group deletes what is inside it; guests see nothing and cannot change anything', async ({ page }) => {
  const tag = Date.now().toString(36)
  await openApp(page)
  await firstLogin(page)
  await pick(page, 'Main resource group')
  await createGroup(page, `Outer ${tag}`)
  await pick(page, `Outer ${tag}`)
  await page.getByTestId('action-create').click()
  await page.getByTestId('create-cls').selectOption('lookup_table')
  await page.getByTestId('create-display-name').fill(`Kinds ${tag}`)
  await page.getByTestId('lookup-add').click()
  await page.getByTestId('lookup-key').fill('a')
  await page.getByTestId('lookup-value').fill('Alpha')
  await page.getByTestId('create-submit').click()
  await expect(page.getByTestId('details-lookup')).toContainText('Alpha')
  const inner = Number(await treeNode(page, `Kinds ${tag}`).getAttribute('data-resource-id'))

  await pick(page, `Outer ${tag}`)
  await page.getByTestId('action-delete').click()
  await expect(page.getByTestId('delete-confirm')).toContainText('Everything inside it is deleted too')
  await page.getByTestId('delete-submit').click()
  await expect(treeNode(page, `Outer ${tag}`)).toHaveCount(0)
  expect((await api(page, `/api/resource/${inner}`)).status).toBe(404)

  // A guest is given nothing by the root's rules (issue 21): no tree, no editing actions.
  await page.getByTestId('logout-button').click()
  await expect(page.getByTestId('login-button')).toBeVisible()
  await expect(page.getByTestId('tree-denied')).toBeVisible()
  await expect(page.getByTestId('action-create')).toHaveCount(0)
})

test('the New menu offers what the selected resource may hold: a raster layer its styles, a vector layer its styles', async ({ page }) => {
  const tag = Date.now().toString(36)
  await openApp(page)
  await firstLogin(page)
  // A raster layer made through the API from a small GeoTIFF (ingested by GDAL in the worker).
  const tiff = Buffer.from(await TIFFS.rgb()).toString('base64')
  const raster = await page.evaluate(async ([tiff, name]) => {
    const fd = new FormData()
    fd.append('file', new Blob([Uint8Array.from(atob(tiff), (c) => c.charCodeAt(0))], { type: 'image/tiff' }), 'rgb.tif')
    const source = (await (await fetch('/api/component/file_upload/', { method: 'POST', body: fd })).json()).upload_meta[0]
    const res = await fetch('/api/resource/', { method: 'POST', body: JSON.stringify({
      resource: { cls: 'raster_layer', parent: { id: 0 }, display_name: name }, raster_layer: { srs: { id: 3857 }, source } }) })
    return (await res.json()).id as number
  }, [tiff, `Orthophoto ${tag}`])
  expect(raster).toBeGreaterThan(0)
  const blueprint = await page.evaluate(async () => (await (await fetch('/api/component/resource/blueprint')).json()).resources as
    Record<string, { identity: string; label: string; outpost_parent_classes: string[] }>)
  const under = (cls: string) => Object.values(blueprint).filter((c) => c.outpost_parent_classes.includes(cls))
  expect(under('raster_layer').map((c) => c.identity)).toEqual(['raster_style'])

  await page.reload()
  await pick(page, `Orthophoto ${tag}`)
  await page.getByTestId('action-create').click()
  const options = page.getByTestId('create-cls').locator('option')
  await expect(options).toHaveText(['Raster style'])
  await expect(page.getByTestId('create-cls')).toHaveValue('raster_style')
  await page.getByTestId('create-display-name').fill('Natural colours')
  await page.getByTestId('create-submit').click()
  await expect(page.getByTestId('dialog-create')).toBeHidden()
  // The style is shown under its layer, which can now be opened and closed, and is selected.
  await expect(page.getByTestId('details-name')).toHaveText('Natural colours')
  const style = treeNode(page, 'Natural colours')
  await expect(style).toBeVisible()
  await expect(treeNode(page, `Orthophoto ${tag}`).getByTestId('tree-toggle')).toBeVisible()
  const stored = await api(page, `/api/resource/${await style.getAttribute('data-resource-id')}`)
  expect(stored.body.resource).toMatchObject({ cls: 'raster_style', parent: { id: raster } })

  // A vector layer holds its styles and nothing else.
  expect(under('vector_layer').map((c) => c.identity).sort()).toEqual(['engine_style', 'qgis_vector_style'])
  await treeNode(page, 'Demo project').getByTestId('tree-toggle').click()
  await pick(page, 'Field observations')
  await page.getByTestId('action-create').click()
  expect((await options.allTextContents()).sort()).toEqual(['MapServer style', 'QGIS vector style'])
})
