import { expect, test } from '@playwright/test'
import type { Expect } from '../api/harness.ts'
import { CASE_GROUPS } from '../api/cases/index.ts'
import { gotoControlled, swApi } from './helpers.ts'

// The same API cases as on the Node host, answered by the service worker over real IndexedDB.

// The groups share nothing (a context each), so Playwright's workers may take different groups;
// inside a group the cases run in order on one page, as on the Node host ('default' below).
test.describe.configure({ mode: 'parallel' })

for (const [group, cases] of Object.entries(CASE_GROUPS)) {
  test.describe(`API in the service worker: ${group}`, () => {
    test.describe.configure({ mode: 'default' })
    let page: import('@playwright/test').Page
    test.beforeAll(async ({ browser }) => {
      page = await (await browser.newContext()).newPage()
      await gotoControlled(page)
    })
    test.afterAll(async () => { await page.context().close() })
    for (const c of cases) {
      test(c.name, async () => {
        const api = swApi(page)
        const ping = await api.request('GET', '/api/component/pyramid/pkg_version')
        expect(ping.headers['x-outpost-host']).toBe('service-worker')
        await c.run(api, expect as unknown as Expect)
      })
    }
  })
}
