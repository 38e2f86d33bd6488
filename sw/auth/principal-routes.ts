/**
 * @module auth/principal-routes
 * `auth.user.collection`, `auth.user.item`, `auth.group.collection`, `auth.group.item` and
 * `auth.permission` (reference ngw-services §5.2). The brief forms need nothing; the full forms
 * and every change need an administrator (this server's `auth.view` / `auth.manage`), except
 * that a user reads their own record and changes their own password and display name.
 */
import type { AuthVariables } from './env.ts'
import { forbidden, validationError } from '../core/error.ts'
import { LOGIN_BODY_LIMIT } from '../core/limits.ts'
import { json, readJsonObject } from '../core/http.ts'
import { PUBLIC, ADMINISTRATOR, type RequestContext, type Routes } from '../core/routes.ts'
import { expectKind, queryBool } from '../core/validate.ts'
import { oldPasswordWrong, userNotFound } from './errors.ts'
import { hashPassword } from './password.ts'
import {
  deletePrincipal, groupJson, isAdminPrincipal, principalInput, savePrincipal, userJson, type Cls,
} from './principals.ts'
import type { Principal } from './types.ts'

type Ctx = RequestContext<AuthVariables>

/** Passwords shorter than this are refused when a person chooses their own. */
const MIN_PASSWORD = 8

/**
 * One's own password changes only with the old one (`old_password`), checked like a login
 * (and limited like one), so a session left open does not hand the account over. Only the
 * browser host's first-run password, which everyone knows, is replaced without it.
 */
async function checkOldPassword(c: Ctx, me: Principal, old: unknown): Promise<void> {
  if (me.mustChangePassword) return
  if (old === undefined) throw validationError('Object missing required field `old_password` - at `$`', { location: ['body', 'old_password'] })
  const given = expectKind<string>('str', old, '$.old_password')
  if ((await c.get('services').auth.check(me.keyname, given, c.get('peer')))?.id !== me.id) throw oldPasswordWrong()
}

/** The refusal of a user-level check: the original's HTTPForbidden, whose text it replaces by "Forbidden". */
const refused = () => forbidden('Access was denied to this resource.')

/**
 * The hash a body's `password` asks for: a string sets it, `false` clears it, `true` keeps it
 * (422 when there is none), as the original (§5.2); `undefined` when the body has none.
 */
async function passwordHashOf(v: unknown, hasOne: boolean): Promise<string | null | undefined> {
  if (v === undefined || v === true) {
    if (v === true && !hasOne) throw validationError('Password is not set. - at `$.password`')
    return undefined
  }
  if (v === false) return null
  return hashPassword(expectKind<string>('str', v, '$.password'))
}

const jsonOf = (cls: Cls) => cls === 'U' ? userJson : groupJson

function mountKind(routes: Routes<AuthVariables>, cls: Cls, kind: 'user' | 'group'): void {
  const notFound = (id: number) => cls === 'U' ? userNotFound(id) : Object.assign(userNotFound(id), { message: `Group with id = ${id} was not found.` })

  routes.add(`auth.${kind}.collection`, `/api/component/auth/${kind}/`, ['GET', 'POST'],
    { GET: PUBLIC('the brief list needs nothing (a guest sees system principals); the full one an administrator'), POST: ADMINISTRATOR },
    async (c) => {
      const { data } = c.get('services')
      const me = c.get('user')
      if (c.req.method === 'POST') {
        const body = await readJsonObject(c.req.raw, LOGIN_BODY_LIMIT)
        const input = principalInput(cls, body)
        if (cls === 'U') input.passwordHash = await passwordHashOf(body.password, false)
        return json({ id: (await data.unitOfWork((tx) => savePrincipal(tx, cls, undefined, input))).id }, 201)
      }
      const brief = queryBool(new URL(c.req.url).searchParams, 'brief', false)
      if (!brief && !me.isAdmin) throw refused()
      return json(await data.read(async (tx) => {
        const out = []
        for (const r of await tx.principals.list(cls, me.isGuest)) out.push(await jsonOf(cls)(tx, r, brief))
        return out
      }))
    })

  routes.add(`auth.${kind}.item`, `/api/component/auth/${kind}/{id}`, ['GET', 'PUT', 'DELETE'],
    { GET: PUBLIC('the brief form needs nothing; the full one oneself or an administrator'),
      PUT: PUBLIC('oneself for the password and display name; an administrator for the rest'), DELETE: ADMINISTRATOR },
    async (c) => {
      const id = Number(c.req.param('id'))
      const me = c.get('user')
      const { data, auth } = c.get('services')
      const row = await data.read((tx) => tx.principals.row(id, cls))
      if (!row) throw notFound(id)
      if (c.req.method === 'GET') {
        const brief = queryBool(new URL(c.req.url).searchParams, 'brief', false)
        if (!brief && !me.isAdmin && me.id !== id) throw refused()
        return json(await data.read((tx) => jsonOf(cls)(tx, row, brief)))
      }
      if (c.req.method === 'DELETE') {
        await data.unitOfWork((tx) => deletePrincipal(tx, cls, id))
        return json({})
      }
      if (!me.isAdmin && me.id !== id) throw refused()
      const body = await readJsonObject(c.req.raw, LOGIN_BODY_LIMIT)
      const input = principalInput(cls, body)
      if (!me.isAdmin && Object.keys(body).some((k) => !['password', 'old_password', 'display_name'].includes(k))) throw refused()
      if (cls === 'U' && body.password !== undefined) {
        if (me.id === id) {
          const password = expectKind<string>('str', body.password, '$.password')
          if (password.length < MIN_PASSWORD) throw validationError(`Password must be at least ${MIN_PASSWORD} characters long - at \`$.password\``)
          await checkOldPassword(c, me, body.old_password)
          // Every other session of the user ends; the one making the change (if any) goes on.
          await auth.setPassword(id, password, c.get('authMedium') === 'session' ? c.get('sessionKey') : undefined)
        } else {
          input.passwordHash = await passwordHashOf(body.password, row.password_hash !== null)
        }
      }
      await data.unitOfWork(async (tx) => {
        // Changes to a system principal or an administrator need an administrator (§5.2).
        if (!me.isAdmin && (row.system || await isAdminPrincipal(tx, id))) throw refused()
        await savePrincipal(tx, cls, id, input)
      })
      auth.forget(id)
      return json({ id })
    })
}

export function mountPrincipals(routes: Routes<AuthVariables>): void {
  mountKind(routes, 'U', 'user')
  mountKind(routes, 'G', 'group')
  routes.add('auth.permission', '/api/component/auth/permission', 'GET', PUBLIC('the names of user-level permissions'), () =>
    json({ 'auth.view': 'View users and groups', 'auth.manage': 'Manage users and groups' }))
}
