import { expect, test, type Page } from '@playwright/test'
import type { Expect } from '../api/harness.ts'
import { bodyOf, checkAfterRestart, checkFeatures, featureRequest, featureWrite, LAYER_FIELDS, seedBody, SEED_BATCH, type FeatureSent, type Sent } from '../api/durability-shared.ts'
import { gotoControlled, swApi, SW_ADMIN_PASSWORD } from './helpers.ts'

// Crash test of the service-worker host (ARCHITECTURE.md "Storage"): the page fires
// concurrent writes, the worker is stopped (DevTools protocol) in the middle of them, and a
// new page in the same profile must find every acknowledged write whole and none half-done.

interface Crash { sent: Sent[]; acked: number; stop: boolean; lanes: Promise<void>[] }
interface FeatureCrash { sent: FeatureSent[]; acked: number; replayed: number; stop: boolean; lanes: Promise<void>[] }
declare global { interface Window { __crash: Crash; __features: FeatureCrash } }

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
          }
        } catch {
          // The worker died under this request: not acknowledged. Go on with the next one.
        }
      }
    })
  }, { plan, auth: 'Basic ' + btoa(`administrator:${SW_ADMIN_PASSWORD}`) })
}

/** Starts 6 lanes of feature edits and batches in the page; they run until `__features.stop` is set. */
async function startFeatureWriters(page: Page, layer: number, firstFid: number, round: number): Promise<void> {
  const plan = Array.from({ length: 6 }, (_, l) => Array.from({ length: 90 }, (_, i) => {
    const s = featureWrite(round, l, i, firstFid)
    return { s, req: featureRequest(s, layer) }
  }))
  await page.evaluate(({ plan, auth }) => {
    const crash: FeatureCrash = { sent: [], acked: 0, replayed: 0, stop: false, lanes: [] }
    window.__features = crash
    crash.lanes = plan.map(async (items) => {
      for (const { s, req } of items) {
        if (crash.stop) return
        crash.sent.push(s)
        try {
          // As the app does: a key per write, so Chromium's replay of a request whose worker
          // was stopped answers the first run instead of writing again (feature/idempotency.ts).
          const res = await fetch(req.path, { method: req.method, body: req.body,
            headers: { authorization: auth, 'idempotency-key': crypto.randomUUID() } })
          await res.text()
          if (res.headers.get('idempotent-replayed')) crash.replayed++
          if (res.status === 200 && res.headers.get('x-outpost-host') === 'service-worker') {
            s.acked = true
            crash.acked++
          }
        } catch {
          // The worker died under this request: not acknowledged.
        }
      }
    })
  }, { plan, auth: 'Basic ' + btoa(`administrator:${SW_ADMIN_PASSWORD}`) })
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
        // Another page of the profile holds the DevTools session (ready before the writes start),
        // so the writing page can be closed and the worker stopped without delay.
        const helper = await context.newPage()
        const cdp = await context.newCDPSession(helper)
        await cdp.send('ServiceWorker.enable')
        await startWriters(page, parent, round, 6)
        await page.waitForFunction((n) => window.__crash.acked >= n, stopAfter, { timeout: 60_000 })
        if (closePage) {
          const sent = await page.evaluate(() => { window.__crash.stop = true; return JSON.parse(JSON.stringify(window.__crash.sent)) as Sent[] })
          await page.close()
          await cdp.send('ServiceWorker.stopAllWorkers')
          // The page is gone with its answers: count as acknowledged only what it had received.
          all.push(...sent)
        } else {
          // Stop the worker three times while the lanes keep writing (each stop finds writes
          // queued or saving; the next request starts a new worker), then stop the lanes.
          const started = () => page.evaluate(async () => (await (await fetch('/api/component/pyramid/ping')).json()).started as number)
          const before = await started()
          for (let k = 1; k <= 3; k++) {
            await page.waitForFunction((n) => window.__crash.acked >= n, stopAfter + 8 * k, { timeout: 60_000 })
            await cdp.send('ServiceWorker.stopAllWorkers')
          }
          const { sent, unanswered } = await page.evaluate(async () => {
            const c = window.__crash
            c.stop = true
            await Promise.all(c.lanes)
            return { sent: JSON.parse(JSON.stringify(c.sent)) as Sent[], unanswered: c.sent.filter((s) => s.id === undefined).length }
          })
          // A new worker answers now. (Whether a stop cuts a request off or Chromium hands it to
          // the next worker depends on timing: the unanswered ones are only counted.)
          expect(await started()).not.toBe(before)
          console.info(`round ${round}: ${unanswered} writes got no answer when the worker stopped`)
          all.push(...sent)
          await page.close()
        }
        await cdp.detach()
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

  test('stopping the worker mid feature edits and batches in a large layer loses no acknowledged one, leaves none half-done', async ({ browser }) => {
    test.setTimeout(120_000)
    const context = await browser.newContext()
    try {
      let page = await context.newPage()
      await gotoControlled(page)
      const api = () => swApi(page)
      const created = await api().request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'crash layer' },
        vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: LAYER_FIELDS } } })
      expect(created.status).toBe(201)
      const layer = created.body.id as number
      const seeded = 4 * SEED_BATCH
      for (let from = 0; from < seeded; from += SEED_BATCH) {
        expect((await api().request('PATCH', `/api/resource/${layer}/feature/`, { raw: seedBody(from, SEED_BATCH) })).status).toBe(200)
      }
      const firstFid = (await api().request('GET', `/api/resource/${layer}/feature/?limit=1&geom=no`)).body[0].id as number
      const all: FeatureSent[] = []
      for (const [round, closePage] of [[1, false], [2, true]] as const) {
        const helper = await context.newPage()
        const cdp = await context.newCDPSession(helper)
        await cdp.send('ServiceWorker.enable')
        await startFeatureWriters(page, layer, firstFid, round)
        let answeredFromRecord = 0
        const stopAt = async (n: number) => {
          await page.waitForFunction((n) => window.__features.acked >= n, n, { timeout: 60_000 })
          await cdp.send('ServiceWorker.stopAllWorkers')
        }
        if (closePage) {
          await page.waitForFunction(() => window.__features.acked >= 12, undefined, { timeout: 60_000 })
          const { sent, replayed } = await page.evaluate(() => {
            window.__features.stop = true
            return { sent: JSON.parse(JSON.stringify(window.__features.sent)) as FeatureSent[], replayed: window.__features.replayed }
          })
          await page.close()
          await cdp.send('ServiceWorker.stopAllWorkers')
          all.push(...sent)
          answeredFromRecord = replayed
        } else {
          // Three stops while the lanes keep writing through the next workers, then the lanes stop.
          for (const n of [10, 25, 40]) await stopAt(n)
          const { sent, replayed } = await page.evaluate(async () => {
            const c = window.__features
            c.stop = true
            await Promise.all(c.lanes)
            return { sent: JSON.parse(JSON.stringify(c.sent)) as FeatureSent[], replayed: c.replayed }
          })
          all.push(...sent)
          answeredFromRecord = replayed
          await page.close()
        }
        await cdp.detach()
        page = helper
        await gotoControlled(page, '/')
        const features = (await api().request('GET', `/api/resource/${layer}/feature/?geom=no`)).body
        const present = checkFeatures(expect as unknown as Expect, features, seeded, firstFid, all)
        console.info(`round ${round}: ${all.length} sent, ${all.filter((s) => s.acked).length} acknowledged, ${present.edits} edits and ${present.batches} batches present, ${answeredFromRecord} answered from the record of a replayed request`)
      }
      expect((await api().request('PATCH', `/api/resource/${layer}/feature/`, { raw: seedBody(0, 10) })).status).toBe(200)
    } finally {
      await context.close()
    }
  })
})
