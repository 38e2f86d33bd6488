import { expect, test } from '@playwright/test'
import type { Server } from 'node:http'
import { createApp, nodePlatform, serve } from '../../sw/host/node.ts'
import { NODE_ADMIN_PASSWORD } from '../api/node-client.ts'
import { gotoControlled } from './helpers.ts'
import { firstLogin } from './ui-steps.ts'

// The team's server on another origin than the app (issue 20 item 7): the browser fails the
// worker's request with a bare "Failed to fetch", whether the server does not allow the app's
// origin (CORS) or is not there at all. The person is told both, with the origin to allow.

let server: Server
let team: string

test.beforeAll(async () => {
  // No --cors: this server allows no other origin.
  const app = createApp(nodePlatform({ admin: { password: NODE_ADMIN_PASSWORD, mustChange: false }, log: () => {} }))
  server = await serve(app, { port: 0 })
  const addr = server.address()
  team = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
})
test.afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

test('a team\'s server on another origin without --cors: the message says to start it with --cors <the app\'s origin> or check the address', async ({ page, baseURL }) => {
  const origin = new URL(baseURL!).origin
  await gotoControlled(page)
  // A guest reads nothing (issue 21): the app says so until the first login.
  await expect(page.getByTestId('tree-denied')).toBeVisible()
  await firstLogin(page)
  await page.getByTestId('sync-open').click()
  await expect(page.getByTestId('sync-connect-form')).toBeVisible()
  await page.getByTestId('connection-url').fill(team)
  await page.getByTestId('connection-password').fill(NODE_ADMIN_PASSWORD)
  await page.getByTestId('sync-connect-submit').click()
  const error = page.getByTestId('form-error')
  await expect(error).toContainText(`start it with --cors ${origin}`)
  await expect(error).toContainText('check the address')
  await expect(error).toContainText(team)
  // Nothing was kept of the failed connection.
  await expect(page.getByTestId('sync-connection')).toHaveCount(0)
})
