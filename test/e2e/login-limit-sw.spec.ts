import { expect, test } from '@playwright/test'
import { gotoControlled } from './helpers.ts'

// The service worker is stopped after half a minute without requests; the login limiter's
// count must survive that (tx.loginLimits, sw/sqlite/main/login-limits.ts), or every restart would give fresh attempts.

test('a locked login stays locked after the service worker is stopped and started again', async ({ page, context }) => {
  test.setTimeout(60_000)
  await gotoControlled(page)
  const login = `guesser-${Date.now()}`
  const attempt = () => page.evaluate(async (login) => {
    const res = await fetch('/api/component/auth/login', { method: 'POST', body: JSON.stringify({ login, password: 'wrong' }) })
    return { status: res.status, retryAfter: Number(res.headers.get('retry-after')), host: res.headers.get('x-outpost-host') }
  }, login)
  for (let i = 0; i < 5; i++) expect((await attempt()).status).toBe(401)
  // Locks of 1, 2 and 4 s: each waited out, then one more failure; the last lock is 8 s.
  for (const ms of [1000, 2000, 4000]) {
    expect((await attempt()).status).toBe(429)
    await page.waitForTimeout(ms + 150)
    expect((await attempt()).status).toBe(401)
  }
  const locked = await attempt()
  expect(locked.status).toBe(429)
  expect(locked.retryAfter).toBeGreaterThanOrEqual(5)

  const cdp = await context.newCDPSession(page)
  await cdp.send('ServiceWorker.enable')
  await cdp.send('ServiceWorker.stopAllWorkers')
  await gotoControlled(page, '/')
  const after = await attempt()
  expect(after.host).toBe('service-worker')
  expect(after.status).toBe(429)
})
