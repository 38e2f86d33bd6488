import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import { startNodeApi } from './node-client.ts'
import type { Api } from './harness.ts'
import { uniq } from './harness.ts'

// Only the Node host knows the client's address; the worker limits by login name alone.
let api: Api
let server: Server
beforeAll(async () => { ({ api, server } = await startNodeApi()) })
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
})
