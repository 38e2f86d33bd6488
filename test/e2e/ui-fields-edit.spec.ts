import { expect, test } from '@playwright/test'
import { firstLogin, openApp, pick } from './ui-steps.ts'

// The fields of an existing layer, changed in the UI (one PUT of feature_layer.fields): a
// field renamed, one linked to a lookup table, one removed, one added. Features keep the
// values of every field that stays; the open field panel shows the new fields at once.

interface StoredField { id: number; keyname: string; display_name: string; datatype: string; lookup_table: { id: number } | null }

test('fields of an existing layer: rename, link a lookup table, remove, add; features keep their values', async ({ page }) => {
  await openApp(page)
  await firstLogin(page)
  const name = `Trees ${Date.now().toString(36)}`
  const { layer, lookup } = await page.evaluate(async (name) => {
    const post = async (url: string, body: unknown) => (await fetch(url, { method: 'POST',
      headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json()
    const lookup = (await post('/api/resource/', { resource: { cls: 'lookup_table', parent: { id: 0 }, display_name: `Species of ${name}` },
      lookup_table: { items: { oak: 'Oak', ash: 'Ash' } } })).id as number
    const layer = (await post('/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [
        { keyname: 'name', display_name: 'Name', datatype: 'STRING' },
        { keyname: 'height', display_name: 'Height', datatype: 'REAL' },
        { keyname: 'species', display_name: 'Species', datatype: 'STRING' },
        { keyname: 'old', display_name: 'Old code', datatype: 'INTEGER' }] } })).id as number
    await post(`/api/resource/${layer}/feature/`, { geom: 'POINT(1 2)', fields: { name: 'Big one', height: 21.5, species: 'oak', old: 7 } })
    await post(`/api/resource/${layer}/feature/`, { geom: 'POINT(3 4)', fields: { name: 'Small one', height: 3, species: 'ash', old: 8 } })
    return { layer, lookup }
  }, name)
  const fieldsOf = () => page.evaluate(async (id) => (await (await fetch(`/api/resource/${id}`)).json()).feature_layer.fields as StoredField[], layer)
  const before = await fieldsOf()

  // The layer open for collecting, beside the details.
  await page.reload()
  await pick(page, name)
  await page.getByTestId('action-collect').click()
  await expect(page.getByTestId('field-row')).toHaveCount(2)
  await expect(page.getByTestId('field-sort-name')).toContainText('Name')

  await page.getByTestId('action-fields').click()
  const dialog = page.getByTestId('dialog-fields')
  await expect(dialog).toBeVisible()
  const rows = dialog.getByTestId('field-row')
  await expect(rows).toHaveCount(4)
  await expect(rows.nth(1).getByTestId('field-datatype')).toBeDisabled()
  await rows.nth(0).getByTestId('field-keyname').fill('title')
  await rows.nth(0).getByTestId('field-display-name').fill('Title')
  await rows.nth(2).getByTestId('field-lookup').selectOption({ label: `Species of ${name}` })
  // Remove, undo, remove again: marked until saved.
  await rows.nth(3).getByTestId('field-remove').click()
  await expect(rows.nth(3)).toHaveAttribute('data-removed', 'true')
  await rows.nth(3).getByTestId('field-remove').click()
  await expect(rows.nth(3)).toHaveAttribute('data-removed', 'false')
  await rows.nth(3).getByTestId('field-remove').click()
  await expect(rows.nth(3).getByTestId('field-removed-note')).toBeVisible()
  await dialog.getByTestId('field-add').click()
  await rows.nth(4).getByTestId('field-keyname').fill('planted')
  await rows.nth(4).getByTestId('field-datatype').selectOption('DATE')
  await dialog.getByTestId('fields-submit').click()
  await expect(dialog).toHaveCount(0)

  // Stored: kept fields keep their ids, the removed one is gone, the new one is last.
  const after = await fieldsOf()
  const byId = (id: number) => after.find((f) => f.id === id)
  expect(after.map((f) => [f.keyname, f.display_name, f.datatype, f.lookup_table])).toEqual([
    ['title', 'Title', 'STRING', null], ['height', 'Height', 'REAL', null], ['species', 'Species', 'STRING', { id: lookup }],
    ['planted', 'planted', 'DATE', null]])
  expect(byId(before[0]!.id)?.keyname).toBe('title')
  expect(byId(before[3]!.id)).toBeUndefined()
  const features = await page.evaluate(async (id) => ((await (await fetch(`/api/resource/${id}/feature/`)).json()) as
    { fields: Record<string, unknown> }[]).map((f) => f.fields), layer)
  expect(features).toEqual([
    { title: 'Big one', height: 21.5, species: 'oak', planted: null },
    { title: 'Small one', height: 3, species: 'ash', planted: null }])

  // The details and the open field panel show the new fields without a reload.
  await expect(page.getByTestId('details-field')).toHaveCount(4)
  await expect(page.locator('[data-testid="details-field"][data-keyname="species"]')).toContainText(`Species of ${name}`)
  await expect(page.getByTestId('field-sort-title')).toContainText('Title')
  await expect(page.getByTestId('field-sort-old')).toHaveCount(0)
  await expect(page.locator('[data-testid="field-row"] [data-col="species"]')).toHaveText(['Oak', 'Ash'])
  await page.getByTestId('field-row').first().click()
  await expect(page.getByTestId('field-input-species').locator('option')).toHaveText(['—', 'Oak', 'Ash'])
  await expect(page.getByTestId('field-input-title')).toHaveValue('Big one')
  await expect(page.getByTestId('field-input-planted')).toHaveAttribute('type', 'date')
  await page.getByTestId('field-cancel').click()

  // A clash is refused with the server's reason, and nothing changes.
  await page.getByTestId('action-fields').click()
  await dialog.getByTestId('field-row').nth(1).getByTestId('field-keyname').fill('title')
  await dialog.getByTestId('fields-submit').click()
  await expect(dialog.getByTestId('form-error-message')).toContainText('not unique')
  await page.getByTestId('modal-close').click()
  expect(await fieldsOf()).toEqual(after)
})
