/**
 * @module auth/middleware
 * Finds who sent a request: the session cookie, then HTTP Basic (checked on every
 * request), else the guest. Failed credentials are remembered, not thrown, so that an
 * unmatched URL still answers 404 (reference §1.3).
 */
import { base64ToUtf8 } from '../core/bytes.ts'
import type { MiddlewareContext, RequestContext } from '../core/routes.ts'
import type { AuthVariables } from './env.ts'
import { sessionKey, sessionUser } from './service.ts'
import { crossOriginRefused, invalidAuthorizationHeader, invalidCredentials, userDisabled } from './errors.ts'

export const SESSION_COOKIE = 'ngw_sid'
/** Header that carries Set-Cookie to a host that cannot read Set-Cookie itself. */
export const SET_COOKIE_COPY = 'x-outpost-set-cookie'
/** Header that carries Cookie from a host that cannot put Cookie on a Request (the worker). */
export const COOKIE_COPY = 'x-outpost-cookie'

/** A cookie's value; `undefined` when absent or not valid percent-encoding (a forged value names no session). */
export function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k !== name) continue
    try {
      return decodeURIComponent(v.join('='))
    } catch {
      return undefined
    }
  }
  return undefined
}

/** Decodes `Basic base64(login:password)` as UTF-8; `undefined` for other schemes. */
function parseBasic(header: string): { login: string; password: string } | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(header.trim())
  if (!m) return undefined
  let decoded: string
  try {
    decoded = base64ToUtf8(m[1]!)
  } catch {
    throw invalidAuthorizationHeader()
  }
  const i = decoded.indexOf(':')
  if (i < 0) throw invalidAuthorizationHeader()
  return { login: decoded.slice(0, i), password: decoded.slice(i + 1) }
}

/** The session id the request carries, from its Cookie header or the worker's copy of it. */
function sessionIdOf(c: RequestContext<AuthVariables>): string | undefined {
  return readCookie(c.req.header('cookie') ?? c.req.header(COOKIE_COPY) ?? null, SESSION_COOKIE)
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Whether a request comes from this server's own pages, by its Origin, else its Referer.
 * Browsers send Origin with every cross-origin write; a request with neither header nor a
 * cross-site `Sec-Fetch-Site` comes from a non-browser client (NextGIS Mobile logs in and
 * keeps the cookie), which a forged page cannot be.
 */
function sameOrigin(c: RequestContext<AuthVariables>): boolean {
  const own = new URL(c.req.url).origin
  const origin = c.req.header('origin')
  if (origin !== undefined) return origin === own
  const referer = c.req.header('referer')
  if (referer !== undefined) return URL.canParse(referer) && new URL(referer).origin === own
  const site = c.req.header('sec-fetch-site')
  return site === undefined || site === 'same-origin' || site === 'none'
}

export async function authenticate(c: MiddlewareContext<AuthVariables>): Promise<void> {
  const { data, auth, platform } = c.get('services')
  c.set('authMedium', null)
  c.set('authError', undefined)
  const sid = sessionIdOf(c)
  const key = sid ? sessionKey(sid) : undefined
  c.set('sessionKey', key)
  if (key) {
    const user = await sessionUser(data, key, platform.now())
    // The cookie rides along with requests other sites make: their writes do not get it
    // (refused, unless they carry Basic credentials of their own).
    const forged = !!user && !SAFE_METHODS.has(c.req.method) && !sameOrigin(c)
    if (user && !forged) {
      c.set('user', user)
      c.set('authMedium', 'session')
      return
    }
    if (forged && !c.req.header('authorization')) {
      c.set('user', await auth.guest())
      c.set('authError', crossOriginRefused())
      return
    }
  }
  c.set('user', await auth.guest())
  const header = c.req.header('authorization')
  if (!header) return
  try {
    const creds = parseBasic(header)
    if (!creds) throw invalidAuthorizationHeader()
    const user = await auth.check(creds.login, creds.password, c.get('peer'))
    if (!user) throw invalidCredentials()
    if (user.disabled) throw userDisabled()
    c.set('user', user)
    c.set('authMedium', 'basic')
  } catch (err) {
    c.set('authError', err as never)
  }
}

