/**
 * Logins and sessions (issue 7, section 1): timing, forged cross-site writes, password
 * changes, and the lock after failed attempts. The cases run in this order on a server of
 * their own: the password change leaves the administrator with `FINAL_PASSWORD`, and the
 * last case locks the administrator's login.
 */
import type { Api, ApiCase } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'

const AUTH = 'nextgisweb.auth.exception'
const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const FINAL_PASSWORD = 'hardening-final-pw'

const startPassword = (api: Api) => api.host === 'node' ? 'test-admin-password' : 'admin'
const basic = (password: string) => ({ login: 'administrator', password })
const login = (api: Api, name: string, password: string, credentials: 'omit' | 'include' = 'omit') =>
  api.request('POST', '/api/component/auth/login', { auth: 'guest', credentials, body: { login: name, password } })
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

export const hardeningAuthCases: ApiCase[] = [
  {
    name: 'an unknown login is refused as slowly as a known one (no user enumeration by timing)',
    async run(api, expect) {
      const timed = async (name: string) => {
        const t0 = performance.now()
        expect((await login(api, name, 'not-the-password')).status).toBe(401)
        return performance.now() - t0
      }
      const known: number[] = []
      const unknown: number[] = []
      for (let i = 0; i < 3; i++) {
        known.push(await timed('administrator'))
        unknown.push(await timed(uniq('nobody')))
      }
      // Was 3 ms against 190 ms: the unknown name skipped PBKDF2.
      expect(median(unknown)).toBeGreaterThan(median(known) * 0.4)
      expect((await login(api, 'administrator', startPassword(api))).status).toBe(200)
    },
  },
  {
    name: 'a cookie-authenticated write from another origin is refused; the app\'s own and Basic clients are not',
    async run(api, expect) {
      expect((await login(api, 'administrator', startPassword(api), 'include')).status).toBe(200)
      const body = (name: string) => JSON.stringify({ resource: { cls: 'resource_group', parent: { id: 0 }, display_name: name } })
      const plain = { 'content-type': 'text/plain' }
      // The page's own write with the session cookie (no foreign Origin) works on both hosts.
      const own = await api.request('POST', '/api/resource/', { auth: 'guest', credentials: 'include', headers: plain, raw: body(uniq('Own')) })
      expect(own.status).toBe(201)
      // A browser in the worker never lets a page forge Origin; the worker's own check is in
      // test/e2e/csrf.spec.ts (a form another site submits).
      if (api.host !== 'node') return
      const forged = uniq('Forged')
      const foreign: Record<string, string>[] = [{ origin: 'http://evil.example' }, { origin: 'null' }, { referer: 'http://evil.example/page' },
        { 'sec-fetch-site': 'cross-site' }]
      for (const headers of foreign) {
        const res = await api.request('POST', '/api/resource/', { auth: 'guest', credentials: 'include', headers: { ...plain, ...headers }, raw: body(forged) })
        expectError(expect, res, 403, `${AUTH}.CrossOriginRequestRefused`)
        const del = await api.request('DELETE', `/api/resource/${own.body.id}`, { auth: 'guest', credentials: 'include', headers })
        expectError(expect, del, 403, `${AUTH}.CrossOriginRequestRefused`)
      }
      const found = await api.request('GET', `/api/resource/search/?display_name=${encodeURIComponent(forged)}`)
      expect(found.body).toEqual([])
      expect((await api.request('GET', `/api/resource/${own.body.id}`)).status).toBe(200)
      // Reads with the cookie stay open; Basic clients are not judged by Origin at all.
      const read = await api.request('GET', '/api/component/auth/current_user', { auth: 'guest', credentials: 'include', headers: { origin: 'http://evil.example' } })
      expect(read.body.keyname).toBe('administrator')
      const byBasic = await api.request('POST', '/api/resource/', { headers: { ...plain, origin: 'http://evil.example' }, raw: body(uniq('Basic')) })
      expect(byBasic.status).toBe(201)
      // Basic credentials sent beside the session cookie are judged on their own.
      const both = await api.request('POST', '/api/resource/', { credentials: 'include', headers: { ...plain, origin: 'http://evil.example' },
        raw: body(uniq('Both')) })
      expect(both.status).toBe(201)
    },
  },
  {
    name: 'changing one\'s own password needs the old one; other sessions end, the one that made the change goes on',
    async run(api, expect) {
      let current = startPassword(api)
      const me = (await api.request('GET', '/api/component/auth/current_user', { auth: basic(current) })).body
      const put = (body: unknown, opts: { auth?: ReturnType<typeof basic> | 'guest'; credentials?: 'include' } = {}) =>
        api.request('PUT', `/api/component/auth/user/${me.id}`, { auth: opts.auth ?? basic(current), credentials: opts.credentials, body })
      if (me.password_change_required) {
        // The browser host's first-run password ('admin', known to all) is replaced without it.
        expect((await put({ password: 'first-run-choice' })).status).toBe(200)
        current = 'first-run-choice'
      }
      expectError(expect, await put({ password: 'second-choice' }), 422, VALIDATION)
      const wrong = await put({ password: 'second-choice', old_password: 'not-the-old-one' })
      expectError(expect, wrong, 422, VALIDATION)
      expect(wrong.body.message).toMatch(/old password/)
      expect((await api.request('GET', '/api/component/auth/current_user', { auth: basic(current) })).body.keyname).toBe('administrator')

      expect((await login(api, 'administrator', current, 'include')).status).toBe(200)
      const bySession = await put({ password: 'second-choice', old_password: current }, { auth: 'guest', credentials: 'include' })
      expect(bySession.status).toBe(200)
      current = 'second-choice'
      const still = await api.request('GET', '/api/component/auth/current_user', { auth: 'guest', credentials: 'include' })
      expect(still.body).toMatchObject({ keyname: 'administrator', auth_medium: 'session' })

      expect((await put({ password: FINAL_PASSWORD, old_password: current })).status).toBe(200)
      const ended = await api.request('GET', '/api/component/auth/current_user', { auth: 'guest', credentials: 'include' })
      expect(ended.body.keyname).toBe('guest')
    },
  },
  {
    name: 'after five failed attempts a login is locked: even the right password gets 429 with Retry-After',
    async run(api, expect) {
      expect((await login(api, 'administrator', FINAL_PASSWORD)).status).toBe(200)
      for (let i = 0; i < 5; i++) expect((await login(api, 'administrator', `guess-${i}`)).status).toBe(401)
      for (const res of [await login(api, 'administrator', FINAL_PASSWORD),
        await login(api, 'ADMINISTRATOR', FINAL_PASSWORD),
        await api.request('GET', '/api/resource/0', { auth: basic(FINAL_PASSWORD) })]) {
        expectError(expect, res, 429, `${AUTH}.TooManyAttempts`)
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1)
        expect(res.body.data.retry_after).toBe(Number(res.headers['retry-after']))
      }
      // Another name is not locked by it.
      expect((await login(api, uniq('nobody'), 'x')).status).toBe(401)
    },
  },
]
