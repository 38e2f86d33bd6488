import { expect, test, type Page } from '@playwright/test'
import { readFileSync } from 'node:fs'
import { firstLogin, openApp } from './ui-steps.ts'

// A layer's export from the map's layer list, big enough to take a while: the dialog shows
// the bytes received as they come (and the percentage when the size is known), Stop ends the
// download with nothing saved, and a finished one is saved under the backend's file name.

const COUNT = 40_000

/** Creates a point layer of COUNT features (in batches, from the page: through the worker). */
async function bigLayer(page: Page): Promise<number> {
  return page.evaluate(async (count) => {
    const send = async (url: string, method: string, body: unknown) => {
      const res = await fetch(url, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
      if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`)
      return res.json()
    }
    const { id } = await send('/api/resource/', 'POST', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'E2E export points' },
      vector_layer: { srs: { id: 4326 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } })
    for (let i = 0; i < count; i += 10_000) {
      await send(`/api/resource/${id}/feature/`, 'PATCH', Array.from({ length: 10_000 }, (_, k) =>
        ({ geom: `POINT(${((i + k) % 300) / 10} ${Math.floor((i + k) / 300) / 10})`, fields: { name: `point number ${i + k}` } })))
    }
    return id as number
  }, COUNT)
}

/** Every text the progress line shows from now on (read back with `progressSeen`). */
const watchProgress = (page: Page) => page.evaluate(() => {
  const seen: string[] = []
  ;(window as unknown as { __progress: string[] }).__progress = seen
  new MutationObserver(() => {
    const t = document.querySelector('[data-testid="export-progress"]')?.textContent?.trim()
    if (t && t !== seen.at(-1)) seen.push(t)
  }).observe(document.body, { subtree: true, childList: true, characterData: true })
})
const progressSeen = (page: Page) => page.evaluate(() => (window as unknown as { __progress: string[] }).__progress)

async function openExport(page: Page, id: number, format: string): Promise<void> {
  await page.getByTestId(`layer-export-${id}`).click()
  await expect(page.getByTestId('dialog-export')).toBeVisible()
  await page.getByTestId('export-format').selectOption(format)
}

test('map: a big export shows its progress, can be stopped, and is saved whole under its name', async ({ page }) => {
  test.setTimeout(120_000)
  await openApp(page)
  await firstLogin(page)
  const id = await bigLayer(page)
  await page.reload()
  await page.getByTestId('layer-list-toggle').click()
  await expect(page.getByTestId(`layer-item-${id}`)).toBeVisible()

  // GeoJSON streams (no Content-Length): a running count of bytes. Stop is pressed from inside
  // the page the moment the first bytes are shown (from Node it could come after the end).
  await openExport(page, id, 'GeoJSON')
  await watchProgress(page)
  await page.evaluate(() => {
    const w = window as unknown as { __stoppedAt?: string }
    const stop = new MutationObserver(() => {
      const t = document.querySelector('[data-testid="export-progress"]')?.textContent?.trim() ?? ''
      if (!/ MB received$/.test(t) || t.startsWith('0.00 MB')) return
      stop.disconnect()
      w.__stoppedAt = t
      ;[...document.querySelectorAll<HTMLButtonElement>('[data-testid="dialog-export"] button')].find((b) => b.textContent === 'Stop')!.click()
    })
    stop.observe(document.body, { subtree: true, childList: true, characterData: true })
  })
  let saved = false
  page.on('download', () => { saved = true })
  await page.getByTestId('export-download').click()
  await expect.poll(() => page.evaluate(() => (window as unknown as { __stoppedAt?: string }).__stoppedAt)).toMatch(/^[\d.]+ MB received$/)
  await expect(page.getByTestId('export-download')).toBeEnabled()
  await page.waitForTimeout(1000)
  expect(saved).toBe(false)
  await expect(page.getByTestId('dialog-export')).toBeVisible()

  // Again to the end: several counts on the way, then the file, with every feature.
  const [file] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId('export-download').click()])
  expect(file.suggestedFilename()).toBe('E2E export points.geojson')
  const doc = JSON.parse(readFileSync((await file.path())!, 'utf8'))
  expect(doc.features).toHaveLength(COUNT)
  expect(doc.features[COUNT - 1]).toMatchObject({ properties: { name: `point number ${COUNT - 1}` },
    geometry: { type: 'Point', coordinates: [((COUNT - 1) % 300) / 10, Math.floor((COUNT - 1) / 300) / 10] } })
  const counts = (await progressSeen(page)).filter((t) => / MB received$/.test(t)).map((t) => Number.parseFloat(t))
  // The stopped download's counts, then this one's: more than one step up to the whole file.
  expect(counts.filter((n) => n > 0).length).toBeGreaterThan(2)
  expect(counts.at(-1)).toBeCloseTo(readFileSync((await file.path())!).length / 1048576, 1)
  await expect(page.getByTestId('dialog-export')).toHaveCount(0)

  // A GeoPackage has a known size: the progress line shows the percentage.
  await openExport(page, id, 'GPKG')
  await watchProgress(page)
  const [gpkg] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId('export-download').click()])
  expect(gpkg.suggestedFilename()).toBe('E2E export points.gpkg')
  const bytes = readFileSync((await gpkg.path())!)
  expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0')
  const mb = (bytes.length / 1048576).toFixed(bytes.length < 1048576 ? 2 : 1)
  expect(await progressSeen(page)).toContain(`100 % (${mb} MB of ${mb} MB)`)
})
