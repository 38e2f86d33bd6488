import { expect, test, type Page } from '@playwright/test'
import type { Expect } from '../api/harness.ts'
import { HostileRemote } from '../api/hostile-remote.ts'
import { hostileCases } from '../api/hostile-cases.ts'
import { gotoControlled, swApi } from './helpers.ts'

// Hostile remotes against the service worker: the same cases as on the Node host
// (test/api/hostile-remote.test.ts). The hostile server runs in this process on 127.0.0.1 and
// allows any origin, so the worker reads its answers across origins like a team's server's.

test.describe('hostile remotes, service worker', () => {
  test.describe.configure({ timeout: 90_000 })
  let hostile: HostileRemote
  let page: Page

  test.beforeAll(async ({ browser }) => {
    hostile = await new HostileRemote().start()
    page = await (await browser.newContext()).newPage()
    await gotoControlled(page)
  })
  test.afterAll(async () => {
    await page.context().close()
    await hostile.close()
  })

  for (const c of hostileCases) {
    test(c.name, async () => {
      await c.run({ api: swApi(page), hostile }, expect as unknown as Expect)
    })
  }
})
