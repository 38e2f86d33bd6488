import { expect, test } from '@playwright/test'
import type { Api } from '../api/harness.ts'
import { swApi } from './helpers.ts'
import { useTeamServer } from './team-server.ts'
import { firstLogin, logIn, NEW_ADMIN_PASSWORD } from './ui-steps.ts'

// Issue 21 items 5 and 6 in the app, on the worker's backend with a team's server (an Outpost
// Node host serving the app): the server's account may read but not write, so "Take offline"
// shows the server's refusal for a layer it may not read, and Sync says the changes are kept.
// Here, the buttons a person may not use are absent: Sync without data.write, Export without
// data.read (each checked next to a layer where the same person has the button), "Connect a
// server" and "Take layers offline" for anyone but the device's owner (resource.create here).

const server = useTeamServer()

type Rule = [scope: string, permission: string]

/** A user of `api` with a password; returns its id. */
async function user(api: Api, keyname: string, password: string): Promise<number> {
  const res = await api.request('POST', '/api/component/auth/user/', { body: { keyname, display_name: keyname, password } })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.id
}

/** Replaces the rules of resource `id` of `api` with `allow`s: each principal's permissions. */
async function allow(api: Api, id: number, grants: [principal: number, rules: Rule[]][]): Promise<void> {
  const permissions = grants.flatMap(([principal, rules]) => rules.map(([scope, permission]) =>
    ({ action: 'allow', principal: { id: principal }, identity: '', scope, permission, propagate: true })))
  expect((await api.request('PUT', `/api/resource/${id}`, { body: { resource: { permissions } } })).status).toBe(200)
}

async function teamLayer(name: string): Promise<number> {
  const res = await server.team.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } } })
  expect(res.status).toBe(201)
  await server.team.request('PATCH', `/api/resource/${res.body.id}/feature/`, { body: [{ geom: 'POINT(100 200)', fields: { name: `in ${name}` } }] })
  return res.body.id
}

const READ: Rule[] = [['resource', 'read'], ['data', 'read']]

test('a read-only account on the team\'s server: take offline refused plainly, pushes kept; Sync and Export absent without the permission', async ({ page }) => {
  test.setTimeout(120_000)
  const { base, team } = server
  const tag = Date.now().toString(36)
  const reader = `reader${tag}`
  const wells = await teamLayer(`Wells ${tag}`)
  const pond = await teamLayer(`Pond ${tag}`)
  const closed = await teamLayer(`Closed ${tag}`)
  const remoteReader = await user(team, reader, 'reader-secret-1')
  await allow(team, wells, [[remoteReader, READ]])
  await allow(team, pond, [[remoteReader, READ]])
  // Listed there, but its data may not be read.
  await allow(team, closed, [[remoteReader, [['resource', 'read']]]])

  await page.goto(base)
  await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 20_000 })
  await firstLogin(page)
  const local = swApi(page, NEW_ADMIN_PASSWORD)
  const conn = await local.request('POST', '/api/resource/', { body: { resource: { cls: 'remote_connection', parent: { id: 0 }, display_name: `Team ${tag}` },
    remote_connection: { url: base, username: reader, password: 'reader-secret-1' } } })
  expect(conn.status).toBe(201)

  // Take offline: the layer it may not read says so, naming the server and the account; the others come.
  await page.getByTestId('sync-open').click()
  // The device's owner connects servers and takes layers offline.
  await expect(page.getByTestId('sync-add-server')).toBeVisible()
  await expect(page.getByTestId('sync-owner-only')).toHaveCount(0)
  await page.getByTestId('sync-browse').click()
  const remoteItem = (name: string) => page.locator(`[data-testid="sync-remote-item"][data-name="${name} ${tag}"]`)
  await remoteItem('Closed').getByTestId('sync-take-offline').click()
  await expect(page.getByTestId('sync-browser').getByTestId('form-error-message'))
    .toContainText(`The server ${base} does not let ${reader} read resource ${closed}`)
  await remoteItem('Wells').getByTestId('sync-take-offline').click()
  await expect(page.getByTestId('sync-panel').locator(`[data-testid="sync-layer"][data-name="Wells ${tag}"]`)).toBeVisible({ timeout: 30_000 })
  await page.getByTestId('sync-browse').click()
  await remoteItem('Pond').getByTestId('sync-take-offline').click()
  const row = (name: string) => page.locator(`[data-testid="sync-layer"][data-name="${name} ${tag}"]`)
  await expect(row('Pond')).toBeVisible({ timeout: 30_000 })
  const linked = (await local.request('GET', '/api/component/outpost/sync/')).body as { id: number; display_name: string }[]
  const lid = linked.find((l) => l.display_name === `Wells ${tag}`)!.id
  const pid = linked.find((l) => l.display_name === `Pond ${tag}`)!.id

  // A change here, refused there: the panel says so, and the change stays waiting.
  const [f] = (await local.request('GET', `/api/resource/${lid}/feature/`)).body as { id: number }[]
  await local.request('PUT', `/api/resource/${lid}/feature/${f!.id}`, { body: { fields: { name: 'changed here' } } })
  await page.getByTestId('modal-close').click()
  await page.getByTestId('sync-open').click()
  await row('Wells').getByTestId('sync-layer-button').click()
  const message = `The server ${base} refuses changes from ${reader}: they may read this layer but not write it. `
    + 'Your 1 change is kept here and will be sent when they are allowed.'
  await expect(row('Wells').getByTestId('sync-refused')).toHaveText(message)
  await expect(page.getByTestId('info-notice').filter({ hasText: 'Changes refused by the server' })).toContainText(message)
  await expect(row('Wells').getByTestId('sync-waiting')).toHaveText('1 change waiting')
  expect((await team.request('GET', `/api/resource/${wells}/feature/`)).body[0].fields.name).toBe(`in Wells ${tag}`)
  await page.getByTestId('modal-close').click()

  // People of this app: one may read Wells and write Pond, one may only see that Wells exists.
  const viewer = await user(local, `viewer${tag}`, 'viewer-secret-1')
  const looker = await user(local, `looker${tag}`, 'looker-secret-1')
  await allow(local, lid, [[viewer, READ], [looker, [['resource', 'read']]]])
  await allow(local, pid, [[viewer, [...READ, ['data', 'write']]], [looker, READ]])
  // The viewer may see and use the connection, but not create anything in the main group.
  await allow(local, conn.body.id, [[viewer, [['resource', 'read'], ['connection', 'connect']]]])

  // The viewer: Sync on Pond (data.write), none on Wells (data.read only); Export on Wells.
  await page.getByTestId('logout-button').click()
  await logIn(page, `viewer${tag}`, 'viewer-secret-1')
  await page.getByTestId('sync-open').click()
  await expect(row('Pond').getByTestId('sync-layer-button')).toBeVisible()
  await expect(row('Wells')).toBeVisible()
  await expect(row('Wells').getByTestId('sync-layer-button')).toHaveCount(0)
  // Connecting a server and taking layers offline are the owner's: absent, and the panel says why.
  await expect(page.getByTestId('sync-owner-only')).toBeVisible()
  await expect(page.getByTestId('sync-connection')).toHaveCount(1)
  await expect(page.getByTestId('sync-browse')).toHaveCount(0)
  await expect(page.getByTestId('sync-add-server')).toHaveCount(0)
  await page.getByTestId('modal-close').click()
  await page.getByTestId('layer-list-toggle').click()
  await expect(page.getByTestId(`layer-export-${lid}`)).toBeVisible()
  await page.getByTestId('layer-list-toggle').click()

  // The looker: Export on Pond (data.read), none on Wells (resource.read only).
  await page.getByTestId('logout-button').click()
  await logIn(page, `looker${tag}`, 'looker-secret-1')
  await page.getByTestId('layer-list-toggle').click()
  await expect(page.getByTestId(`layer-export-${pid}`)).toBeVisible()
  await expect(page.getByTestId(`layer-item-${lid}`)).toBeVisible()
  await expect(page.getByTestId(`layer-export-${lid}`)).toHaveCount(0)
})
