import { expect, test } from '@playwright/test'
import { qmsData, qmsDir } from '../api/cases/catalogue-data.ts'
import { firstLogin, openApp } from './ui-steps.ts'

// The catalogue import from the app: the administrator picks a folder in the QMS data layout
// (../shared/data/qms, read where it lies), and the picker then lists that folder's services.
test('catalogue import: an administrator picks a QMS folder and the picker lists its services', async ({ page }) => {
  await openApp(page)
  await firstLogin(page)
  await page.getByTestId('basemap-toggle').click()
  const picker = page.getByTestId('basemap-picker')
  const name = qmsData().geoservices.find((s) => s.name === 'OSM Veloroad')?.name ?? qmsData().geoservices[0]!.name
  await page.getByTestId('basemap-search').fill(name)
  await expect(picker.locator('.count')).toHaveText('0 found')

  await page.getByTestId('basemap-import').setInputFiles(qmsDir())
  await expect(page.getByTestId('basemap-message')).toContainText(`Imported ${qmsData().geoservices.length} services`)
  await page.getByTestId('basemap-search').fill(name)
  await expect(picker.locator('.results button', { hasText: name }).first()).toBeVisible()
  // The default catalogue was replaced, not extended.
  const total = await page.evaluate(async () => (await (await fetch('/api/v1/geoservices/')).json()).length)
  expect(total).toBe(qmsData().geoservices.length)
})
