/**
 * @module auth/middleware
 * Finds who sent a request: the session cookie, then HTTP Basic (checked on every
 * request), else the guest. Failed credentials are remembered, not thrown, so that an
 * unmatched URL still answers 404 (reference §1.3).
 */
import { base64ToUtf8 } from '../core/bytes.ts'
import type { MiddlewareContext, RequestContext } from '../core/routes.ts'
import type { AuthVariables } from './env.ts'
import { insufficientPermissions } from '../core/error.ts'
import { sessionUser } from './service.ts'
import { invalidAuthorizationHeader, invalidCredentials, userDisabled } from './errors.ts'
import type { Principal } from './types.ts'

export const SESSION_COOKIE = 'ngw_sid'
/** Header that carries Set-Cookie to a host that cannot read Set-Cookie itself. */
export const SET_COOKIE_COPY = 'x-outpost-set-cookie'
/** Header that carries Cookie from a host that cannot put Cookie on a Request (the worker). */
export const COOKIE_COPY = 'x-outpost-cookie'

export function readCookie(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=')
    if (k === name) return decodeURIComponent(v.join('='))
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
export function sessionIdOf(c: RequestContext<AuthVariables>): string | undefined {
  return readCookie(c.req.header('cookie') ?? c.req.header(COOKIE_COPY) ?? null, SESSION_COOKIE)
}

export async function authenticate(c: MiddlewareContext<AuthVariables>): Promise<void> {
  const { main, auth, platform } = c.get('services')
  c.set('authMedium', null)
  c.set('authError', undefined)
  const sid = sessionIdOf(c)
  if (sid) {
    const user = await main.read((db) => sessionUser(db, sid, platform.now()))
    if (user) {
      c.set('user', user)
      c.set('authMedium', 'session')
      return
    }
  }
  c.set('user', await auth.guest())
  const header = c.req.header('authorization')
  if (!header) return
  try {
    const creds = parseBasic(header)
    if (!creds) throw invalidAuthorizationHeader()
    const user = await auth.check(creds.login, creds.password)
    if (!user) throw invalidCredentials()
    if (user.disabled) throw userDisabled()
    c.set('user', user)
    c.set('authMedium', 'basic')
  } catch (err) {
    c.set('authError', err as never)
  }
}

/**
 * Writes need an administrator in this server (no per-resource ACLs yet); anyone else gets
 * the original's 403, never a 401 (reference §2.5).
 */
export function requireAdmin(user: Principal, permission: string, scope: string, resourceId: number): void {
  if (!user.isAdmin) throw insufficientPermissions(permission, scope, resourceId)
}
