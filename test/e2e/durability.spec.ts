import { expect, test, type BrowserContext, type Page } from '@playwright/test'
import type { Expect } from '../api/harness.ts'
import { bodyOf, checkAfterRestart, type Sent } from '../api/durability-shared.ts'
import { gotoControlled, swApi, SW_ADMIN_PASSWORD } from './helpers.ts'

// Crash test of the service-worker host (ARCHITECTURE.md "Storage"): the page fires
// concurrent writes, the worker is stopped (DevTools protocol) in the middle of them, and a
// new page in the same profile must find every acknowledged write whole and none half-done.

interface Crash { sent: Sent[]; acked: number; stop: boolean; lanes: Promise<void>[] }
declare global { interface Window { __crash: Crash } }

/** Starts `lanes` concurrent writers in the page; they run until `__crash.stop` is set. */
async function startWriters(page: Page, parent: number, round: number, lanes: number): Promise<void> {
  const bodies = (l: number, i: number) => {
    const s: Sent = { name: `r${round} lane${l} #${i}`, kind: (i + l) % 2 ? 'layer' : 'group' }
    return { s, body: JSON.stringify(bodyOf(s, parent)) }
  }
  // Prepare the bodies here (the page cannot import the helpers): 400 per lane is plenty.
  const plan = Array.from({ length: lanes }, (_, l) => Array.from({ length: 400 }, (_, i) => bodies(l, i)))
  await page.evaluate(({ plan, auth }) => {
    const crash: Crash = { sent: [], acked: 0, stop: false, lanes: [] }
    window.__crash = crash
    crash.lanes = plan.map(async (items) => {
      for (const { s, body } of items) {
        if (crash.stop) return
        crash.sent.push(s)
        try {
          const res = await fetch('/api/resource/', { method: 'POST', body, headers: { authorization: auth } })
          const json = await res.json().catch(() => undefined)
          // Only an answer of the worker with the new id is an acknowledgement.
          if (res.status === 201 && res.headers.get('x-outpost-host') === 'service-worker' && typeof json?.id === 'number') {
            s.id = json.id
            crash.acked++
          } else return
        } catch {
          return // the worker died under this request: not acknowledged
        }
      }
    })
  }, { plan, auth: 'Basic ' + btoa(`administrator:${SW_ADMIN_PASSWORD}`) })
}

async function stopWorkers(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page)
  await cdp.send('ServiceWorker.enable')
  await cdp.send('ServiceWorker.stopAllWorkers')
  await cdp.detach()
}

test.describe('durability of the service-worker host', () => {
  test('stopping the worker (and closing the page) mid-writes loses no acknowledged write, leaves none half-done', async ({ browser }) => {
    test.setTimeout(120_000)
    const context = await browser.newContext()
    try {
      let page = await context.newPage()
      await gotoControlled(page)
      const created = await swApi(page).request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'crash test' } } })
      expect(created.status).toBe(201)
      const parent = created.body.id as number
      const all: Sent[] = []
      for (const [round, stopAfter, closePage] of [[1, 15, false], [2, 30, true]] as const) {
        await startWriters(page, parent, round, 6)
        await page.waitForFunction((n) => window.__crash.acked >= n, stopAfter, { timeout: 60_000 })
        // Another page of the profile holds the DevTools session, so this one can be closed first.
        const helper = await context.newPage()
        await page.evaluate(() => { window.__crash.stop = true })
        if (closePage) {
          const sent = await page.evaluate(() => JSON.parse(JSON.stringify(window.__crash.sent)) as Sent[])
          await page.close()
          await stopWorkers(context, helper)
          // The page is gone with its answers: count as acknowledged only what it had received.
          all.push(...sent)
        } else {
          await stopWorkers(context, helper)
          const { sent, inFlight } = await page.evaluate(async () => {
            const c = window.__crash
            const inFlight = c.sent.filter((s) => s.id === undefined).length
            await Promise.all(c.lanes)
            return { sent: JSON.parse(JSON.stringify(c.sent)) as Sent[], inFlight }
          })
          expect(inFlight).toBeGreaterThan(0)
          all.push(...sent)
          await page.close()
        }
        page = helper
        await gotoControlled(page, '/')
        const api = swApi(page)
        expect((await api.request('GET', '/api/component/pyramid/pkg_version')).headers['x-outpost-host']).toBe('service-worker')
        const acked = all.filter((s) => s.id !== undefined).length
        expect(acked).toBeGreaterThanOrEqual(stopAfter)
        const present = await checkAfterRestart(api, expect as unknown as Expect, parent, all)
        console.info(`round ${round}: ${all.length} sent, ${acked} acknowledged, ${present} present after the restart`)
      }
      expect((await swApi(page).request('POST', '/api/resource/', { body: bodyOf({ name: 'after the crashes', kind: 'layer' }, parent) })).status).toBe(201)
    } finally {
      await context.close()
    }
  })
})
