import { expect, test } from '@playwright/test'
import { gotoControlled, SW_ADMIN_PASSWORD } from './helpers.ts'

// The worker sees no Origin header, so it judges a write by how it arrived: another site's
// page can navigate to /api/ (a form POST), and such a navigation gets no session cookie.

test('a form another site submits to the worker\'s API runs without the session', async ({ browser, baseURL }) => {
  const context = await browser.newContext()
  const page = await context.newPage()
  await gotoControlled(page)
  const logged = await page.evaluate(async (password) => (await fetch('/api/component/auth/login', { method: 'POST', credentials: 'include',
    body: JSON.stringify({ login: 'administrator', password }) })).status, SW_ADMIN_PASSWORD)
  expect(logged).toBe(200)
  const name = `Forged ${Date.now()}`
  // The page's own cookie write works.
  const own = await page.evaluate(async (name) => (await fetch('/api/resource/', { method: 'POST', credentials: 'include',
    body: JSON.stringify({ resource: { cls: 'resource_group', parent: { id: 0 }, display_name: `${name} own` } }) })).status, name)
  expect(own).toBe(201)

  // The same server under another host name is another origin (and another site).
  const target = new URL('/api/resource/', baseURL).href
  const foreign = new URL(baseURL!)
  foreign.hostname = 'localhost'
  const evil = await context.newPage()
  await evil.goto(new URL('/index.html', foreign).href)
  await evil.evaluate(({ target, name }) => {
    const form = document.createElement('form')
    form.method = 'POST'
    form.action = target
    form.enctype = 'text/plain'
    const input = document.createElement('input')
    // text/plain sends `name=value`: the JSON is split across both, as CSRF pages do.
    input.name = JSON.stringify({ resource: { cls: 'resource_group', parent: { id: 0 }, display_name: name } }).slice(0, -2) + ',"x":"'
    input.value = '"}}'
    form.append(input)
    document.body.append(form)
    form.submit()
  }, { target, name })
  await evil.waitForURL(target)
  const answer = JSON.parse(await evil.locator('body').innerText())
  expect(answer).toMatchObject({ status_code: 403, exception: 'nextgisweb.core.exception.ForbiddenError' })

  const found = await page.evaluate(async (name) => (await (await fetch(`/api/resource/search/?display_name=${encodeURIComponent(name)}`,
    { credentials: 'include' })).json()).length, name)
  expect(found).toBe(0)
  await context.close()
})
