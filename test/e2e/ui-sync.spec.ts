import { expect, test } from '@playwright/test'
import { NODE_ADMIN_PASSWORD } from '../api/node-client.ts'
import { swApi } from './helpers.ts'
import { useTeamServer } from './team-server.ts'
import { firstLogin, NEW_ADMIN_PASSWORD } from './ui-steps.ts'

// The app and its team's server, as a person uses them: the app is served by an Outpost Node
// host (as `npm start` does), which the app offers as the team's server; a layer is taken
// offline, edited here and there, synced with the button, a conflict is shown side by side
// and resolved, and changes made without network go when it is back.

const server = useTeamServer()

test('the team\'s server: connect, take a layer offline, sync with the button, a conflict side by side, sync when the network is back', async ({ page, context }) => {
  test.setTimeout(120_000)
  const { base, team } = server
  const layer = (await team.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'Wells' },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'depth', datatype: 'INTEGER' }] } } })).body.id
  const made = (await team.request('PATCH', `/api/resource/${layer}/feature/`, { body: [{ geom: 'POINT(100 200)', fields: { name: 'north', depth: 10 } },
    { geom: 'POINT(300 400)', fields: { name: 'south', depth: 20 } }] })).body.map((f: { id: number }) => f.id)

  // Counts the app's requests for persistent storage (the browser's own answer is kept).
  await page.addInitScript(() => {
    const w = window as unknown as { persistAsked: number }
    w.persistAsked = 0
    const real = navigator.storage.persist.bind(navigator.storage)
    navigator.storage.persist = () => { w.persistAsked++; return real() }
  })
  const persistAsked = () => page.evaluate(() => (window as unknown as { persistAsked: number }).persistAsked)

  // The app, served by the team's server itself; its own backend runs in the browser.
  await page.goto(base)
  await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 20_000 })
  // A guest reads nothing (issue 21): the app says so until the first login.
  await expect(page.getByTestId('tree-denied')).toBeVisible()
  await firstLogin(page)
  const local = swApi(page, NEW_ADMIN_PASSWORD)

  await page.getByTestId('sync-open').click()
  await expect(page.getByTestId('sync-connect-form')).toBeVisible()
  await expect(page.getByTestId('sync-suggested')).toContainText(base)
  await expect(page.getByTestId('connection-url')).toHaveValue(base)
  await page.getByTestId('connection-password').fill('wrong password')
  await page.getByTestId('sync-connect-submit').click()
  await expect(page.getByTestId('form-error')).toBeVisible()
  await page.getByTestId('connection-password').fill(NODE_ADMIN_PASSWORD)
  await page.getByTestId('sync-connect-submit').click()
  await expect(page.getByTestId('sync-connection')).toHaveCount(1)
  await expect(page.getByTestId('sync-device')).toContainText('works offline')
  await expect(page.getByTestId('sync-storage')).toContainText('MB')

  // Persistent storage is asked for when the first layer is taken offline, not before.
  expect(await persistAsked()).toBe(0)
  await page.getByTestId('sync-browse').click()
  const item = page.locator('[data-testid="sync-remote-item"][data-name="Wells"]')
  await item.getByTestId('sync-take-offline').click()
  const row = page.locator('[data-testid="sync-layer"][data-name="Wells"]')
  await expect(row).toBeVisible({ timeout: 30_000 })
  expect(await persistAsked()).toBeGreaterThanOrEqual(1)
  await expect(row.getByTestId('sync-waiting')).toHaveText('0 changes waiting')
  const lid = (await local.request('GET', '/api/component/outpost/sync/')).body[0].id as number
  const fids = (await local.request('GET', `/api/resource/${lid}/feature/`)).body.map((f: { id: number }) => f.id)

  // An edit here waits, then goes with the button.
  await local.request('PUT', `/api/resource/${lid}/feature/${fids[0]}`, { body: { fields: { depth: 11 } } })
  await page.getByTestId('modal-close').click()
  await page.getByTestId('sync-open').click()
  await expect(page.getByTestId('sync-badge')).toHaveText('1')
  await expect(row.getByTestId('sync-waiting')).toHaveText('1 change waiting')
  await row.getByTestId('sync-layer-button').click()
  await expect(page.getByTestId('info-notice').filter({ hasText: 'Sent 1, received 0 changes.' })).toBeVisible()
  await expect(row.getByTestId('sync-waiting')).toHaveText('0 changes waiting')
  expect((await team.request('GET', `/api/resource/${layer}/feature/${made[0]}`)).body.fields.depth).toBe(11)

  // Changed on both sides: a conflict, both versions side by side; the server's is kept.
  await local.request('PUT', `/api/resource/${lid}/feature/${fids[1]}`, { body: { fields: { depth: 21 } } })
  await team.request('PUT', `/api/resource/${layer}/feature/${made[1]}`, { body: { fields: { depth: 22 } } })
  await row.getByTestId('sync-layer-button').click()
  await row.getByTestId('sync-conflicts-open').click()
  const conflict = page.getByTestId('sync-conflict')
  await expect(conflict).toHaveAttribute('data-kind', 'update/update')
  const depth = conflict.locator('tr[data-row="depth"]')
  await expect(depth.getByTestId('conflict-local')).toContainText('21')
  await expect(depth.getByTestId('conflict-remote')).toContainText('22')
  await conflict.getByTestId('conflict-keep-remote').click()
  await expect(page.getByTestId('sync-conflict')).toHaveCount(0)
  expect((await local.request('GET', `/api/resource/${lid}/feature/${fids[1]}`)).body.fields.depth).toBe(22)
  await page.getByRole('button', { name: 'Back' }).click()

  // Without network the change waits; when the network is back it goes by itself.
  await context.setOffline(true)
  await local.request('PUT', `/api/resource/${lid}/feature/${fids[0]}`, { body: { fields: { name: 'north, offline' } } })
  await context.setOffline(false)
  await expect.poll(async () => (await team.request('GET', `/api/resource/${layer}/feature/${made[0]}`)).body.fields.name,
    { timeout: 20_000 }).toBe('north, offline')
})
