import { expect, test, type Page } from '@playwright/test'
import type { Server } from 'node:http'
import type { Api, Expect } from '../api/harness.ts'
import { uniq } from '../api/harness.ts'
import { NODE_ADMIN_PASSWORD, startNodeApi } from '../api/node-client.ts'
import { connect, type OfflineEnv } from '../api/webmap-offline-cases.ts'
import { deviceMap, publishCases, type PublishEnv } from '../api/webmap-publish-cases.ts'
import { gotoControlled, swApi } from './helpers.ts'
import { firstLogin, NEW_ADMIN_PASSWORD, openApp } from './ui-steps.ts'

// Publishing a web map made in the app to the team's server: the backend in the service worker
// (real IndexedDB), the team's server a Node host across origins serving the built app. The API
// cases of test/api/webmap-publish-cases.ts, then the share dialog's Publish and the team link
// opened in a fresh browser, where the team's server draws the layer's points.

const ORIGIN = `http://127.0.0.1:${Number(process.env.E2E_PORT ?? 4173)}`

/** Red pixels drawn on the canvases of style `style`'s layer in `page`. */
const redOf = (page: Page, style: number) => page.evaluate((cls) => {
  let n = 0
  for (const canvas of document.querySelectorAll<HTMLCanvasElement>(`.${cls} canvas`)) {
    const d = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data
    for (let i = 0; i < d.length; i += 4) if (d[i]! > 200 && d[i + 1]! < 60 && d[i + 2]! < 60 && d[i + 3]! > 128) n++
  }
  return n
}, `outpost-style-${style}`)

test.describe('a web map published from the service worker to a team\'s server', () => {
  test.describe.configure({ timeout: 120_000 })
  let remote: { api: Api; server: Server; base: string }
  let page: Page
  let env: PublishEnv

  test.beforeAll(async ({ browser }) => {
    remote = await startNodeApi({ platform: { corsOrigins: [ORIGIN] }, serve: { staticDir: 'dist' } })
    page = await (await browser.newContext()).newPage()
    await gotoControlled(page)
    env = { local: swApi(page), remote: remote.api, remoteUrl: remote.base, remotePassword: NODE_ADMIN_PASSWORD }
  })

  test.afterAll(async () => {
    await page.context().close()
    await new Promise((resolve) => remote.server.close(resolve))
  })

  for (const c of publishCases) test(c.name, () => c.run(env, expect as unknown as Expect))

  test('published from the share dialog, the team link opens the map from the team\'s server in a fresh browser, its points drawn', async ({ browser }) => {
    const E = expect as unknown as Expect
    const map = await deviceMap(env.local, E)
    const connection = await connect(env as OfflineEnv, E)
    // A public group there, as a team publishes: everyone may read it and its data (and see the root).
    const principals = (await remote.api.request('GET', '/api/component/auth/user/?brief=true')).body as { id: number; keyname: string }[]
    const everyone = principals.find((p) => p.keyname === 'everyone')!.id
    const permissions = ['resource', 'data'].map((scope) => ({ action: 'allow', principal: { id: everyone }, identity: '', scope, permission: 'read', propagate: true }))
    const root = (await remote.api.request('GET', '/api/resource/0')).body.resource.permissions as unknown[]
    expect((await remote.api.request('PUT', '/api/resource/0', { body: { resource: { permissions: [...root, { ...permissions[0], propagate: false }] } } })).status).toBe(200)
    const name = uniq('Public')
    expect((await remote.api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: name, permissions } } })).status).toBe(201)

    await openApp(page)
    await firstLogin(page)
    await page.goto(`./?webmap=${map.webmap}`)
    const view = page.getByTestId('webmap-view')
    await expect(view).toHaveAttribute('data-loaded', 'true')
    await view.getByTestId('webmap-share').click()
    const dialog = page.getByTestId('dialog-webmap-share')
    await dialog.getByTestId('webmap-publish-open').click()
    await dialog.getByTestId('webmap-publish-connection').selectOption(String(connection))
    await dialog.getByTestId('webmap-publish-group').filter({ hasText: name }).click()
    await expect(dialog.getByTestId('webmap-publish-folder')).toHaveText(`Main group › ${name}`)
    await dialog.getByTestId('webmap-publish-go').click()
    await expect(dialog.getByTestId('webmap-publish-done')).toContainText('Published on the team\'s server: 3 features sent')
    await expect(dialog.getByTestId('webmap-publish-skipped')).toContainText('"Kept": its tiles are served by this device only')
    const link = await dialog.getByTestId('webmap-publish-link').inputValue()
    expect(link).toMatch(new RegExp(`^${remote.base}/embed\\.html\\?webmap=\\d+&panel=1$`))
    const id = Number(new URL(link).searchParams.get('webmap'))
    expect(await dialog.getByTestId('webmap-publish-snippet').inputValue()).toContain(`src="${remote.base}/embed.html?webmap=${id}&amp;panel=1"`)
    // The dialog now says where it went, and that publishing again updates that map.
    await expect(dialog.getByTestId('webmap-publish-before')).toContainText(`Published to ${remote.base}`)
    await expect(dialog.getByTestId('webmap-publish-go')).toHaveText('Publish again')
    // What the app shows is what the worker remembers.
    expect((await swApi(page, NEW_ADMIN_PASSWORD).request('GET', `/api/resource/${map.webmap}/webmap_publish`)).body.webmap).toBe(id)

    // Someone else, in a fresh browser with no Outpost of their own, opens the team link: the team's server answers.
    const style = (await remote.api.request('GET', `/api/resource/${id}`)).body.webmap.root_item.children[0].children[0].layer_style_id as number
    const context = await browser.newContext()
    const other = await context.newPage()
    await other.goto(link)
    await expect(other.getByTestId('webmap-embed')).toHaveAttribute('data-loaded', 'true')
    await expect(other.getByTestId('webmap-tree')).toContainText('Wells')
    await expect.poll(() => redOf(other, style), { timeout: 30_000 }).toBeGreaterThan(50)
    await context.close()
  })
})
