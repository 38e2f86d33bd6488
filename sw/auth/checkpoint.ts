/**
 * @module auth/checkpoint
 * The one checkpoint: what the route table runs before every handler, with the route's declared
 * need (core/routes `Need`). Credentials that failed are thrown here, so an unknown URL is still a
 * 404; then the need is checked through the one evaluator (auth/acl.ts). A resource that does not
 * exist passes: its handler answers the original's 404.
 */
import { forbidden, insufficientPermissions } from '../core/error.ts'
import type { Need, RequestContext } from '../core/routes.ts'
import type { AuthVariables } from './env.ts'
import type { AclEvaluator } from './acl.ts'
import type { LinkedNeeds, Principal } from './types.ts'
import type { DataPort } from '../port/port.ts'

/** What a check reads: the data port, the one evaluator, and where linked needs come from (the class registry). */
interface CheckServices { data: DataPort; acl: AclEvaluator; classes?: LinkedNeeds }

type Vars = Omit<AuthVariables, 'services'> & { services: AuthVariables['services'] & CheckServices }

/** The resource ids a request names where its route says they come from (`path` or `query`). */
function idsOf(c: RequestContext<Vars>, from: 'path' | 'query'): number[] {
  if (from === 'path') return [Number(c.req.param('id'))]
  // `resource=1,2` or `resource=1&resource=2`; what is not an id is the handler's to refuse.
  return new URL(c.req.url).searchParams.getAll('resource').flatMap((v) => v.split(','))
    .filter((v) => /^[0-9]{1,15}$/.test(v)).map(Number)
}

export async function checkpoint(c: RequestContext<Vars>, need: Need): Promise<void> {
  const authError = c.get('authError')
  if (authError) throw authError
  if ('public' in need) return
  const user = c.get('user')
  if ('user' in need) {
    if (need.user === 'administrator' ? !user.isAdmin : user.isGuest) {
      throw forbidden(need.user === 'administrator' ? 'Only administrators may do this.' : 'Sign in to do this.')
    }
    return
  }
  if (need.from === 'handler') return
  const ids = idsOf(c, need.from)
  await requireIds(c.get('services'), user, ids, need.scope, need.permission)
}

/**
 * 403 for the first of `ids` on which `user` lacks `scope.permission`, all checked in one read of
 * the data port. A resource whose data needs a permission on another (a PostGIS layer's
 * `data.*` needs `connection.connect` on its connection, reference ngw-services §4.5) is refused
 * as the original refuses it: as lacking the data permission itself.
 */
export async function requireIds(services: CheckServices, user: Principal, ids: readonly number[], scope: string, permission: string): Promise<void> {
  const refused = await services.data.read((tx) => services.acl.refused(tx.acl, user, ids, scope, permission))
  if (refused !== undefined) throw insufficientPermissions(permission, scope, refused)
  const linked = await linkedRefusal(services, user, ids, scope)
  if (linked !== undefined) throw insufficientPermissions(permission, scope, linked)
}

/** Whether `user` has `scope.permission` on `id`, linked needs included (`undefined`: no such resource). */
export async function allowed(services: CheckServices, user: Principal, id: number, scope: string, permission: string): Promise<boolean | undefined> {
  const own = await services.data.read((tx) => services.acl.check(tx.acl, user, id, scope, permission))
  return own && await linkedRefusal(services, user, [id], scope) === undefined
}

/** The first of `ids` whose linked need `user` lacks; only data permissions have them. */
async function linkedRefusal(services: CheckServices, user: Principal, ids: readonly number[], scope: string): Promise<number | undefined> {
  if (scope !== 'data' || !services.classes) return undefined
  for (const need of await services.classes.linkedNeeds(ids)) {
    // A connection that is gone refuses nothing here: the layer's handler says it is gone (422).
    if (await services.data.read((tx) => services.acl.check(tx.acl, user, need.on, need.scope, need.permission)) === false) return need.id
  }
  return undefined
}

/** What a handler's own check reads: the request's user, the data port and the one evaluator. */
interface HandlerVars { user: Principal; services: CheckServices }

/**
 * For a route declared `inHandler`: 403 unless the request's user has `scope.permission` on
 * every one of `ids` (those that do not exist are the handler's to refuse).
 */
export async function requireOn<V extends HandlerVars>(c: RequestContext<V>, ids: Iterable<number>, scope: string, permission: string): Promise<void> {
  await requireIds(c.get('services'), c.get('user'), [...ids], scope, permission)
}

/** For listings: the rows of `rows` the request's user may read (only their ids are looked at). */
export async function readableRows<T extends { id: number }>(c: RequestContext<Vars>, rows: T[]): Promise<T[]> {
  const { data, acl } = c.get('services')
  return data.read((tx) => acl.readable(tx.acl, c.get('user'), rows))
}
