import { expect, test } from '@playwright/test'
import { readFileSync, writeFileSync } from 'node:fs'
import { gotoControlled, swApi } from './helpers.ts'

// The build served by the test's web server; the test changes it on disk and puts it back.
const WORKER = 'dist/service-worker.js'

// An update of the app: a changed worker script is installed, takes over at once, the page
// reloads onto it, and the data written under the old worker is still there.
test('an updated worker takes over cleanly: the page reloads onto it and the data stays', async ({ browser }) => {
  const context = await browser.newContext()
  const original = readFileSync(WORKER)
  test.info().annotations.push({ type: 'note', description: 'changes dist/service-worker.js and restores it' })
  try {
    const page = await context.newPage()
    await gotoControlled(page)
    const api = swApi(page)
    const created = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'Before the update' } } })
    expect(created.status).toBe(201)
    const before = (await api.request('GET', '/api/component/pyramid/ping')).body.started

    // A byte-different script is what makes a browser install a new worker (routing cannot
    // catch the browser's update check, so the served file itself changes).
    writeFileSync(WORKER, Buffer.concat([original, Buffer.from(`\n// outpost update test ${Date.now()}\n`)]))
    const reloaded = page.waitForEvent('load')
    await page.evaluate(async () => { await (await navigator.serviceWorker.getRegistration())!.update() })
    await reloaded
    await page.waitForFunction(() => !!navigator.serviceWorker.controller)
    const after = await swApi(page).request('GET', '/api/component/pyramid/ping')
    expect(after.headers['x-outpost-host']).toBe('service-worker')
    expect(after.body.started).toBeGreaterThan(before)
    // Exactly one worker is active for the scope: the old one is gone.
    const states = await page.evaluate(async () => {
      const r = (await navigator.serviceWorker.getRegistration())!
      return { active: !!r.active, waiting: !!r.waiting, installing: !!r.installing }
    })
    expect(states).toEqual({ active: true, waiting: false, installing: false })
    const got = await swApi(page).request('GET', `/api/resource/${created.body.id}`)
    expect(got.body.resource.display_name).toBe('Before the update')
  } finally {
    writeFileSync(WORKER, original)
    await context.close()
  }
})
