/**
 * @module auth/routes
 * `auth.login_cookies`, `auth.logout_cookies`, `auth.current_user`, `auth.profile` and the
 * password part of `auth.user.item` (reference §3.2).
 */
import type { AuthVariables } from './env.ts'
import { forbidden, payloadTooLarge, validationError } from '../core/error.ts'
import { LOGIN_BODY_LIMIT, readBytes } from '../core/limits.ts'
import { json, readJsonObject } from '../core/http.ts'
import type { RequestContext, Routes } from '../core/routes.ts'
import { expectKind, queryBool } from '../core/validate.ts'
import { authenticationRequired, invalidCredentials, oldPasswordWrong, userDisabled, userNotFound } from './errors.ts'
import { SESSION_COOKIE, SET_COOKIE_COPY } from './middleware.ts'
import { createSession, deleteSession, getUser, SESSION_MAX_AGE_S } from './service.ts'
import type { Principal } from './types.ts'

/** Passwords shorter than this are refused when a person chooses one. */
const MIN_PASSWORD = 8

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

/**
 * One's own password changes only with the old one (`old_password`), checked like a login
 * (and limited like one), so a session left open does not hand the account over. Only the
 * browser host's first-run password, which everyone knows, is replaced without it.
 */
async function checkOldPassword(c: RequestContext<AuthVariables>, me: Principal, old: unknown): Promise<void> {
  if (me.mustChangePassword) return
  if (old === undefined) throw validationError('Object missing required field `old_password` - at `$`', { location: ['body', 'old_password'] })
  const given = expectKind<string>('str', old, '$.old_password')
  if ((await c.get('services').auth.check(me.keyname, given, c.get('peer')))?.id !== me.id) throw oldPasswordWrong()
}

export function mountAuth(routes: Routes<AuthVariables>): void {
  routes.add('auth.login_cookies', '/api/component/auth/login', 'POST', async (c) => {
    const { login, password } = await readCredentials(c)
    const { auth, main, platform } = c.get('services')
    const user = await auth.check(login, password, c.get('peer'))
    if (!user) throw invalidCredentials()
    if (user.disabled) throw userDisabled()
    const sid = await createSession(main, user.id, platform.now())
    return json({ ...userBrief(user), password_change_required: user.mustChangePassword }, 200,
      cookie(sid, SESSION_MAX_AGE_S))
  })

  routes.add('auth.logout_cookies', '/api/component/auth/logout', 'POST', async (c) => {
    const key = c.get('sessionKey')
    if (key) await deleteSession(c.get('services').main, key)
    return json({}, 200, cookie('', 0))
  })

  routes.add('auth.current_user', '/api/component/auth/current_user', 'GET', (c) => {
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

  routes.add('auth.profile', '/api/component/auth/profile', 'GET', (c) => {
    const user = c.get('user')
    if (user.isGuest) throw authenticationRequired()
    return json({ language: user.language })
  })

  // Only the password and display name of a user can be changed here: by the user or an admin.
  routes.add('auth.user.item', '/api/component/auth/user/{id}', ['GET', 'PUT'], async (c) => {
    const id = Number(c.req.param('id'))
    const me = c.get('user')
    const { main, auth } = c.get('services')
    const target = await main.read((db) => getUser(db, id))
    if (!target || target.isGuest && c.req.method === 'PUT') throw userNotFound(id)
    if (!me.isAdmin && me.id !== id) throw forbidden('You are not allowed to manage other users.')
    if (c.req.method === 'GET') return json({ ...userBrief(target), system: false, disabled: false, language: target.language })
    const body = await readJsonObject(c.req.raw, LOGIN_BODY_LIMIT)
    if (body.password !== undefined) {
      const password = expectKind<string>('str', body.password, '$.password')
      if (password.length < MIN_PASSWORD) throw validationError(`Password must be at least ${MIN_PASSWORD} characters long - at \`$.password\``)
      if (me.id === id) await checkOldPassword(c, me, body.old_password)
      // Every other session of the user ends; the one making the change (if any) goes on.
      await auth.setPassword(id, password, me.id === id && c.get('authMedium') === 'session' ? c.get('sessionKey') : undefined)
    }
    if (body.display_name !== undefined) {
      const name = expectKind<string>('str', body.display_name, '$.display_name').trim()
      if (!name) throw validationError('Display name must not be empty - at `$.display_name`')
      await main.write((db) => { db.exec({ sql: `UPDATE principal SET display_name = ? WHERE id = ?`, bind: [name, id] }) })
    }
    return json({})
  })
}
