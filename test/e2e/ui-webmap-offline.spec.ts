import { expect, test, type Locator } from '@playwright/test'
import { NODE_ADMIN_PASSWORD } from '../api/node-client.ts'
import type { Expect } from '../api/harness.ts'
import { AREA, BIG, BIG_TILES, teamMap, ZOOMS, type OfflineEnv } from '../api/webmap-offline-cases.ts'
import { swApi } from './helpers.ts'
import { useTeamServer } from './team-server.ts'
import { firstLogin, NEW_ADMIN_PASSWORD } from './ui-steps.ts'

// Taking a team's web map offline as a person does it, in the Sync panel of the app served by
// the team's server: choose the area on the form's map (a drawn rectangle, the map's view) or
// in degrees, and zooms, see the estimate, take it, see it listed with its size and what is
// missing, refresh it (its tiles again), remove it; a larger one stopped mid-way, listed
// incomplete and resumed. (The API and the offline map itself:
// webmap-offline-sw.spec.ts.)

const server = useTeamServer()

/** The form's area in degrees, as its fields hold it. */
async function fields(form: Locator): Promise<number[]> {
  return Promise.all(['west', 'south', 'east', 'north'].map(async (k) => Number(await form.getByTestId(`wmo-${k}`).inputValue())))
}

test('the Sync panel takes a team\'s web map offline: area on the map, estimate, progress, listed with its size, refreshed, removed', async ({ page }) => {
  test.setTimeout(120_000)
  await page.goto(server.base)
  await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 20_000 })
  await firstLogin(page)
  const local = swApi(page, NEW_ADMIN_PASSWORD)
  // Only teamMap and connect run here: the counters and the raster swap are the API cases'.
  const env: OfflineEnv = { local, remote: server.team, remoteUrl: server.base, remotePassword: NODE_ADMIN_PASSWORD, tileBlobs: async () => 0,
    remoteTiles: () => 0, replaceRemoteRaster: () => Promise.reject(new Error('not used by this spec')) }
  const map = await teamMap(env, expect as unknown as Expect)
  const name = (await server.team.request('GET', `/api/resource/${map.webmap}`)).body.resource.display_name as string

  await page.getByTestId('sync-open').click()
  await page.getByTestId('connection-password').fill(NODE_ADMIN_PASSWORD)
  await page.getByTestId('sync-connect-submit').click()
  await page.getByTestId('sync-browse').click()
  await page.locator(`[data-testid="sync-remote-item"][data-name="${name}"]`).getByTestId('sync-take-map').click()

  const form = page.getByTestId('webmap-offline-form')
  // The map's own extent (the world) to start with, at zooms that fit it.
  await expect(form.getByTestId('wmo-estimate-text')).toContainText('1 layer (3 features)')
  await expect(form.getByTestId('wmo-zmax')).toHaveValue('4')

  // A rectangle dragged over the middle half of the form's map is the area, in degrees; "Use
  // this view" takes all the map shows, which holds it, twice as wide (x is linear in longitude).
  const picker = form.getByTestId('wmo-area-map')
  await expect(picker).toHaveAttribute('data-rendered-at', /\d/)
  await picker.scrollIntoViewIfNeeded()
  const box = (await picker.boundingBox())!
  await form.getByTestId('wmo-draw').click()
  await page.mouse.click(box.x + box.width * 0.25, box.y + box.height * 0.25)
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.6, { steps: 4 })
  await page.mouse.click(box.x + box.width * 0.75, box.y + box.height * 0.75)
  await expect(form.getByTestId('wmo-draw')).toHaveAttribute('aria-pressed', 'false')
  const drawn = await fields(form)
  await form.getByTestId('wmo-use-view').click()
  await expect.poll(async () => (await fields(form))[0]).not.toBe(drawn[0])
  const view = await fields(form)
  expect(view[0]).toBeLessThan(drawn[0]!)
  expect(view[1]).toBeLessThan(drawn[1]!)
  expect(view[2]).toBeGreaterThan(drawn[2]!)
  expect(view[3]).toBeGreaterThan(drawn[3]!)
  expect((drawn[2]! - drawn[0]!) / (view[2]! - view[0]!)).toBeCloseTo(0.5, 1)
  // The estimate follows the area chosen on the map.
  await expect(form.getByTestId('wmo-estimate-text')).toContainText('1 layer (3 features)')

  // Typed degrees stay the precise way.
  for (const [i, k] of ['west', 'south', 'east', 'north'].entries()) await form.getByTestId(`wmo-${k}`).fill(String(AREA[i]))
  await form.getByTestId('wmo-zmin').fill(String(ZOOMS[0]))
  await form.getByTestId('wmo-zmax').fill(String(ZOOMS[1]))
  await form.getByTestId('wmo-estimate').click()
  await expect(form.getByTestId('wmo-estimate-text')).toContainText('14 basemap tiles')
  await form.getByTestId('wmo-take').click()

  const saved = page.locator(`[data-testid="wmo-saved"][data-name="${name}"]`)
  await expect(saved).toBeVisible({ timeout: 60_000 })
  await expect(saved.getByTestId('wmo-size')).toHaveText(/^0\.0 MB$/)
  await expect(saved.getByTestId('wmo-saved-missing')).toContainText('Missing: tiles "Gone"')
  await expect(saved.getByTestId('wmo-open')).toHaveAttribute('href', /^\.\/\?webmap=\d+$/)
  await expect(saved.getByTestId('wmo-tiles')).toHaveText('7 tiles')
  // Its layer is among the offline layers, linked for sync.
  await expect(page.locator('[data-testid="sync-layer"]')).toHaveCount(1)

  // Refresh fetches the area's tiles again and says so.
  await saved.getByTestId('wmo-refresh').click()
  await expect(page.getByTestId('info-notice').filter({ hasText: 'Refreshed' })).toContainText('7 tiles of "Land" replaced')
  await expect(saved.getByTestId('wmo-tiles')).toHaveText('7 tiles')
  expect((await local.request('GET', '/api/component/outpost/webmap_offline/')).body[0].basemaps[0].index).toBe(1000)

  await saved.getByTestId('wmo-remove').click()
  await expect(saved).toHaveCount(0)
  expect((await local.request('GET', '/api/component/outpost/webmap_offline/')).body).toEqual([])

  // A larger area, stopped while its tiles come: listed as incomplete with what came, then resumed.
  await page.getByTestId('sync-browse').click()
  await page.locator(`[data-testid="sync-remote-item"][data-name="${name}"]`).getByTestId('sync-take-map').click()
  await expect(form.getByTestId('wmo-estimate-text')).toContainText('1 layer (3 features)')
  for (const [i, k] of ['west', 'south', 'east', 'north'].entries()) await form.getByTestId(`wmo-${k}`).fill(String(BIG.bbox[i]))
  await form.getByTestId('wmo-zmin').fill(String(BIG.zooms[0]))
  await form.getByTestId('wmo-zmax').fill(String(BIG.zooms[1]))
  await form.getByTestId('wmo-estimate').click()
  await expect(form.getByTestId('wmo-estimate-text')).toContainText(`${2 * BIG_TILES} basemap tiles`)
  // Its tiles come slowly, so Stop lands while they come (fast, the job could end before the click).
  server.slowTiles(150)
  await form.getByTestId('wmo-take').click()
  await expect(form.getByTestId('wmo-progress')).toHaveText(/^Basemap tiles: [1-9]\d* of 170$/, { timeout: 30_000 })
  await form.getByTestId('wmo-stop').click()
  server.slowTiles(0)
  await expect(page.getByTestId('info-notice').filter({ hasText: 'Not finished' })).toContainText('is listed as incomplete')
  await expect(saved.getByTestId('wmo-incomplete')).toHaveText('incomplete — resume')
  await expect(saved.getByTestId('wmo-stopped')).toContainText('what came is kept')
  await expect(saved.getByTestId('wmo-open')).toHaveCount(0)
  // Taken again meanwhile (as Chromium resends a take whose worker it stopped): the app names the incomplete map to resume, and makes none.
  await page.getByTestId('sync-browse').click()
  await page.locator(`[data-testid="sync-remote-item"][data-name="${name}"]`).getByTestId('sync-take-map').click()
  await expect(form.getByTestId('wmo-estimate-text')).toContainText('1 layer (3 features)')
  await form.getByTestId('wmo-take').click()
  await expect(page.getByTestId('info-notice').filter({ hasText: 'Taken before' })).toContainText('resume it to bring the rest')
  await expect(saved.getByTestId('wmo-incomplete')).toHaveText('incomplete — resume')
  expect((await local.request('GET', '/api/component/outpost/webmap_offline/')).body).toHaveLength(1)
  await saved.getByTestId('wmo-resume').click()
  await expect(page.getByTestId('info-notice').filter({ hasText: /^Offline/ })).toContainText('is whole on this device now')
  await expect(saved.getByTestId('wmo-tiles')).toHaveText(`${BIG_TILES} tiles`)
  await expect(saved.getByTestId('wmo-open')).toBeVisible()
  await saved.getByTestId('wmo-remove').click()
  await expect(saved).toHaveCount(0)
})
