import { expect, test } from '@playwright/test'
import { NODE_ADMIN_PASSWORD } from '../api/node-client.ts'
import type { Expect } from '../api/harness.ts'
import { AREA, teamMap, ZOOMS, type OfflineEnv } from '../api/webmap-offline-cases.ts'
import { swApi } from './helpers.ts'
import { useTeamServer } from './team-server.ts'
import { firstLogin, NEW_ADMIN_PASSWORD } from './ui-steps.ts'

// Taking a team's web map offline as a person does it, in the Sync panel of the app served by
// the team's server: choose the area and zooms, see the estimate, take it, see it listed with
// its size and what is missing, remove it. (The API and the offline map itself:
// webmap-offline-sw.spec.ts.)

const server = useTeamServer()

test('the Sync panel takes a team\'s web map offline: area, estimate, progress, listed with its size, removed', async ({ page }) => {
  test.setTimeout(120_000)
  await page.goto(server.base)
  await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 20_000 })
  await firstLogin(page)
  const local = swApi(page, NEW_ADMIN_PASSWORD)
  const env: OfflineEnv = { local, remote: server.team, remoteUrl: server.base, remotePassword: NODE_ADMIN_PASSWORD, tileBlobs: async () => 0 }
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
  // Its layer is among the offline layers, linked for sync.
  await expect(page.locator('[data-testid="sync-layer"]')).toHaveCount(1)

  await saved.getByTestId('wmo-remove').click()
  await expect(saved).toHaveCount(0)
  expect((await local.request('GET', '/api/component/outpost/webmap_offline/')).body).toEqual([])
})
