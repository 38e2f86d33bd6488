/**
 * @module auth/routes
 * `auth.login_cookies`, `auth.logout_cookies`, `auth.current_user`, `auth.profile` and the
 * users and groups (auth/principal-routes.ts; reference §3.2).
 */
import type { AuthVariables } from './env.ts'
import { payloadTooLarge, validationError } from '../core/error.ts'
import { LOGIN_BODY_LIMIT, readBytes } from '../core/limits.ts'
import { json, readJsonObject } from '../core/http.ts'
import { PUBLIC, type RequestContext, type Routes } from '../core/routes.ts'
import { expectKind, queryBool } from '../core/validate.ts'
import { authenticationRequired, invalidCredentials, userDisabled } from './errors.ts'
import { SESSION_COOKIE, SET_COOKIE_COPY } from './middleware.ts'
import { createSession, deleteSession, SESSION_MAX_AGE_S } from './service.ts'
import type { Principal } from './types.ts'
import { mountPrincipals } from './principal-routes.ts'

function userBrief(u: Principal) {
  return { id: u.id, keyname: u.keyname, display_name: u.displayName }
}

/** Login accepts JSON or a form-encoded body (reference §3.2), of at most `LOGIN_BODY_LIMIT` bytes. */
async function readCredentials(c: RequestContext<AuthVariables>): Promise<{ login: string; password: string }> {
  const type = c.req.header('content-type') ?? ''
  let body: Record<string, unknown>
  if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
    const bytes = await readBytes(c.req.raw, LOGIN_BODY_LIMIT, () => payloadTooLarge(LOGIN_BODY_LIMIT))
    let form: FormData
    try {
      form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData()
    } catch (err) {
      throw validationError(`The form could not be read: ${(err as Error).message}`, { location: ['body'] })
    }
    body = { login: form.get('login') ?? undefined, password: form.get('password') ?? undefined }
  } else {
    body = await readJsonObject(c.req.raw, LOGIN_BODY_LIMIT)
  }
  return { login: expectKind<string>('str', body.login, '$.login'), password: expectKind<string>('str', body.password, '$.password') }
}

/**
 * The session cookie, as Set-Cookie and as `x-outpost-set-cookie`: a service worker cannot put
 * Set-Cookie on a Response it builds (browsers drop it), so its host reads the copy instead.
 * Hosts remove the copy before the response leaves them.
 */
function cookie(value: string, maxAge: number): Record<string, string> {
  const line = `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}`
  return { 'set-cookie': line, [SET_COOKIE_COPY]: line }
}

export function mountAuth(routes: Routes<AuthVariables>): void {
  routes.add('auth.login_cookies', '/api/component/auth/login', 'POST', PUBLIC('signing in'), async (c) => {
    const { login, password } = await readCredentials(c)
    const { auth, data, platform } = c.get('services')
    const user = await auth.check(login, password, c.get('peer'))
    if (!user) throw invalidCredentials()
    if (user.disabled) throw userDisabled()
    const sid = await createSession(data, user.id, platform.now())
    return json({ ...userBrief(user), password_change_required: user.mustChangePassword }, 200,
      cookie(sid, SESSION_MAX_AGE_S))
  })

  routes.add('auth.logout_cookies', '/api/component/auth/logout', 'POST', PUBLIC('signing out'), async (c) => {
    const key = c.get('sessionKey')
    if (key) await deleteSession(c.get('services').data, key)
    return json({}, 200, cookie('', 0))
  })

  routes.add('auth.current_user', '/api/component/auth/current_user', 'GET', PUBLIC('who is asking, the guest included'), (c) => {
    const user = c.get('user')
    if (queryBool(new URL(c.req.url).searchParams, 'require_authenticated', false) && user.isGuest) {
      throw authenticationRequired()
    }
    const medium = c.get('authMedium')
    return json({ ...userBrief(user), language: user.language, auth_medium: medium,
      auth_provider: medium ? 'local_pw' : null,
      // Ours: the browser host's administrator starts with a known password to replace.
      password_change_required: user.mustChangePassword })
  })

  routes.add('auth.profile', '/api/component/auth/profile', 'GET', PUBLIC('a guest gets 401, as the original'), (c) => {
    const user = c.get('user')
    if (user.isGuest) throw authenticationRequired()
    return json({ language: user.language })
  })

  mountPrincipals(routes)
}
