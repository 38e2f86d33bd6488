import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import { request as httpRequest } from 'node:http'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import type { Api } from './harness.ts'
import { uniq } from './harness.ts'

// Only the Node host knows the client's address; the worker limits by login name alone.
let api: Api
let server: Server
let base: string
beforeAll(async () => { ({ api, server, base } = await startNodeApi()) })

/** A login sent from local address `from` (the whole of 127/8 is this machine): another client address. */
function loginFrom(from: string, login: string, password: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/api/component/auth/login`, { method: 'POST', localAddress: from,
      headers: { 'content-type': 'application/json' } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)) })
    req.on('error', reject)
    req.end(JSON.stringify({ login, password }))
  })
}
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('login limits on the Node host', () => {
  it('locks a client address after 20 failures, whatever names it tries', async () => {
    const attempt = (login: string, password = 'x') =>
      api.request('POST', '/api/component/auth/login', { auth: 'guest', body: { login, password } })
    for (let i = 0; i < 20; i++) expect((await attempt(uniq('guess'))).status).toBe(401)
    const locked = await attempt(uniq('guess'))
    expect(locked.status).toBe(429)
    expect(locked.body.exception).toBe('nextgisweb.auth.exception.TooManyAttempts')
    expect(Number(locked.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    // Basic credentials from that address wait too, the right ones included.
    const basic = await api.request('GET', '/api/component/auth/current_user')
    expect(basic.status).toBe(429)
  })

  it('wrong passwords from one address do not lock the same login from another', async () => {
    // Seven wrong passwords from 127.0.0.2 lock the login there (5 free, then 1 s, 2 s …)…
    const statuses = []
    for (let i = 0; i < 7; i++) statuses.push(await loginFrom('127.0.0.2', 'administrator', 'wrong'))
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401])
    expect(statuses.at(-1)).toBe(429)
    expect(await loginFrom('127.0.0.2', 'administrator', NODE_ADMIN_PASSWORD)).toBe(429)
    // …but the person signs in from their own address with the right password.
    expect(await loginFrom('127.0.0.3', 'administrator', NODE_ADMIN_PASSWORD)).toBe(200)
    // Thirty more wrong ones from many addresses (a distributed guesser) still leave a clean address alone.
    for (let i = 0; i < 30; i++) await loginFrom(`127.0.1.${i + 1}`, 'administrator', 'wrong')
    expect(await loginFrom('127.0.0.4', 'administrator', NODE_ADMIN_PASSWORD)).toBe(200)
    // An address that guessed wrong on this login meets the count across addresses (20, short locks).
    expect(await loginFrom('127.0.1.1', 'administrator', NODE_ADMIN_PASSWORD)).toBe(429)
  })
})
