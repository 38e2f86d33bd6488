/**
 * Users, groups and permissions (issue 21; reference ngw-services §5): the user and group API,
 * ACL rules stored and validated, the evaluator (principals × permissions × classes, propagation,
 * deny over allow, read on every ancestor), effective permissions, listings, and a sweep of the
 * whole route table: every protected route refuses a user without its permission and changes nothing.
 */
import type { Api, ApiCase, Auth, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { addFeatures, createLayer } from './feature.ts'

const DENIED = 'nextgisweb.core.exception.InsufficientPermissions'
const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const FORBIDDEN = 'nextgisweb.core.exception.ForbiddenError'

type Rule = { action: 'allow' | 'deny'; principal: { id: number }; identity: string; scope: string; permission: string; propagate: boolean }
export const rule = (principal: number, scope: string, permission: string, propagate = true, action: 'allow' | 'deny' = 'allow',
  identity = ''): Rule => ({ action, principal: { id: principal }, identity, scope, permission, propagate })

/** A new user (with a password) and its Basic credentials. */
export async function createUser(api: Api, expect: Expect, extra: Record<string, unknown> = {}) {
  const keyname = uniq('u').replace(/[^A-Za-z0-9]/g, '_')
  const password = 'pw-' + keyname
  const res = await api.request('POST', '/api/component/auth/user/', { body: { keyname, display_name: keyname, password, ...extra } })
  expect(res.status).toBe(201)
  return { id: res.body.id as number, keyname, auth: { login: keyname, password } as Auth }
}

async function createGroup(api: Api, expect: Expect, members: number[] = []) {
  const keyname = uniq('g').replace(/[^A-Za-z0-9]/g, '_')
  const res = await api.request('POST', '/api/component/auth/group/', { body: { keyname, display_name: keyname, members } })
  expect(res.status).toBe(201)
  return res.body.id as number
}

/** The id of a system principal, looked up by keyname (never hard-coded, §5.1). */
async function principalId(api: Api, keyname: string): Promise<number> {
  for (const kind of ['user', 'group']) {
    const res = await api.request('GET', `/api/component/auth/${kind}/?brief=true`)
    const hit = (res.body as { id: number; keyname: string }[]).find((p) => p.keyname === keyname)
    if (hit) return hit.id
  }
  throw new Error(`no principal ${keyname}`)
}

/** The members a class needs on create. */
const MEMBERS: Record<string, Record<string, unknown>> = {
  vector_layer: { vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } },
  lookup_table: { lookup_table: { items: { a: 'A' } } },
}

async function resource(api: Api, expect: Expect, cls: string, parent: number, rules: Rule[] = []) {
  const res = await api.request('POST', '/api/resource/', { body: { ...MEMBERS[cls],
    resource: { cls, parent: { id: parent }, display_name: uniq(cls), permissions: rules } } })
  expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined })
  return res.body.id as number
}

export async function setRules(api: Api, expect: Expect, id: number, rules: Rule[]) {
  const res = await api.request('PUT', `/api/resource/${id}`, { body: { resource: { permissions: rules } } })
  expect(res.status).toBe(200)
}

/** Effective permissions of user `user` on `id`, asked by the administrator (§5.7). */
async function effective(api: Api, id: number, user: number) {
  const res = await api.request('GET', `/api/resource/${id}/permission?user=${user}`)
  return res.body as Record<string, Record<string, boolean>>
}

/** A group under the root that `principal` may read down to (read on the root is the root's own rule). */
async function readableGroup(api: Api, expect: Expect, principal: number, rules: Rule[] = []) {
  return resource(api, expect, 'resource_group', 0, [rule(principal, 'resource', 'read', false), ...rules])
}

export const permissionCases: ApiCase[] = [
  {
    name: 'users and groups: full and brief forms, membership both ways, system principals guarded, password write-only',
    async run(api, expect) {
      const group = await createGroup(api, expect)
      const u = await createUser(api, expect, { member_of: [group], description: 'Collector', language: 'en' })
      const full = await api.request('GET', `/api/component/auth/user/${u.id}`)
      expect(full.status).toBe(200)
      expect(full.body).toMatchObject({ id: u.id, system: false, keyname: u.keyname, display_name: u.keyname, is_administrator: false,
        superuser: false, disabled: false, password: true, description: 'Collector', language: 'en', member_of: [group], permissions: [] })
      expect(JSON.stringify(full.body)).not.toContain(`pw-${u.keyname}`)
      const g = await api.request('GET', `/api/component/auth/group/${group}`)
      expect(g.body).toMatchObject({ id: group, system: false, members: [u.id], register: false, permissions: [] })
      // Brief forms need nothing; a guest's list holds the system principals only.
      const brief = await api.request('GET', '/api/component/auth/user/?brief=true', { auth: 'guest' })
      expect(brief.status).toBe(200)
      expect(brief.body.every((p: { system: boolean }) => p.system)).toBe(true)
      expect(brief.body.map((p: { keyname: string }) => p.keyname)).toEqual(expect.arrayContaining(['guest', 'everyone', 'authenticated', 'owner']))
      expectError(expect, await api.request('GET', '/api/component/auth/user/', { auth: u.auth }), 403, FORBIDDEN)
      expectError(expect, await api.request('POST', '/api/component/auth/user/', { auth: u.auth, body: { keyname: 'x', display_name: 'x' } }), 403, FORBIDDEN)
      // The user reads themself; the administrators group is a system group with its member.
      expect((await api.request('GET', `/api/component/auth/user/${u.id}`, { auth: u.auth })).status).toBe(200)
      const admins = await principalId(api, 'administrators')
      expect((await api.request('GET', `/api/component/auth/group/${admins}`)).body).toMatchObject({ system: true, keyname: 'administrators' })
      // Conflicts and system principals: 422, nothing changes.
      expectError(expect, await api.request('POST', '/api/component/auth/user/', { body: { keyname: u.keyname.toUpperCase(), display_name: 'Other' } }), 422, VALIDATION)
      expectError(expect, await api.request('POST', '/api/component/auth/user/', { body: { keyname: '1bad', display_name: 'Bad' } }), 422, VALIDATION)
      const guest = await principalId(api, 'guest')
      expectError(expect, await api.request('PUT', `/api/component/auth/user/${guest}`, { body: { keyname: 'visitor' } }), 422, VALIDATION)
      expectError(expect, await api.request('DELETE', `/api/component/auth/user/${guest}`), 422, VALIDATION)
      const everyone = await principalId(api, 'everyone')
      expectError(expect, await api.request('PUT', `/api/component/auth/user/${everyone}`, { body: { member_of: [group] } }), 422, VALIDATION)
      expectError(expect, await api.request('DELETE', `/api/component/auth/group/${admins}`), 422, VALIDATION)
      // `true` keeps a password, `false` clears it: the user then cannot log in.
      expect((await api.request('PUT', `/api/component/auth/user/${u.id}`, { body: { password: true } })).status).toBe(200)
      expect((await api.request('GET', '/api/component/auth/current_user', { auth: u.auth })).body.keyname).toBe(u.keyname)
      expect((await api.request('PUT', `/api/component/auth/user/${u.id}`, { body: { password: false } })).status).toBe(200)
      expect((await api.request('GET', `/api/component/auth/user/${u.id}`)).body.password).toBe(false)
      expect((await api.request('GET', '/api/component/auth/current_user', { auth: u.auth })).status).toBe(401)
      expectError(expect, await api.request('PUT', `/api/component/auth/user/${u.id}`, { body: { password: true } }), 422, VALIDATION)
      // A user may delete, a group too; the members go with it.
      expect((await api.request('DELETE', `/api/component/auth/group/${group}`)).status).toBe(200)
      expect((await api.request('GET', `/api/component/auth/user/${u.id}`)).body.member_of).toEqual([])
      expect((await api.request('DELETE', `/api/component/auth/user/${u.id}`)).status).toBe(200)
      expect((await api.request('GET', `/api/component/auth/user/${u.id}`)).status).toBe(404)
    },
  },
  {
    name: 'current_user tells the truth; a disabled user cannot log in and their sessions end; the last administrator stays',
    async run(api, expect) {
      const u = await createUser(api, expect)
      const me = await api.request('GET', '/api/component/auth/current_user', { auth: u.auth })
      expect(me.body).toMatchObject({ id: u.id, keyname: u.keyname, display_name: u.keyname, auth_medium: 'basic', auth_provider: 'local_pw' })
      const { login, password } = u.auth as { login: string; password: string }
      const signedIn = await api.request('POST', '/api/component/auth/login', { auth: 'guest', credentials: 'include', body: { login, password } })
      expect(signedIn.status).toBe(200)
      expect((await api.request('GET', '/api/component/auth/current_user', { auth: 'guest', credentials: 'include' })).body.keyname).toBe(u.keyname)
      expect((await api.request('PUT', `/api/component/auth/user/${u.id}`, { body: { disabled: true } })).status).toBe(200)
      // The session ended with the change; a new login is refused as the original's UserDisabled.
      expect((await api.request('GET', '/api/component/auth/current_user', { auth: 'guest', credentials: 'include' })).body.keyname).toBe('guest')
      expect((await api.request('POST', '/api/component/auth/login', { auth: 'guest', body: { login, password } })).status).toBe(401)
      await api.request('POST', '/api/component/auth/logout', { auth: 'guest', credentials: 'include' })
      // Disabling the only administrator would leave nobody to manage the server.
      const adminId = (await api.request('GET', '/api/component/auth/current_user')).body.id
      const refused = await api.request('PUT', `/api/component/auth/user/${adminId}`, { body: { disabled: true } })
      expectError(expect, refused, 422, 'nextgisweb.auth.exception.AdministratorRequired')
      expect((await api.request('GET', `/api/component/auth/user/${adminId}`)).body.disabled).toBe(false)
      // A non-administrator cannot make themself one.
      const v = await createUser(api, expect)
      const admins = await principalId(api, 'administrators')
      expect((await api.request('PUT', `/api/component/auth/user/${v.id}`, { auth: v.auth, body: { member_of: [admins] } })).status).toBe(403)
      expect((await api.request('GET', `/api/component/auth/user/${v.id}`)).body.member_of).toEqual([])
    },
  },
  {
    name: 'who a signed-in user is follows the data at once: joining administrators through the group, the guest\'s language (auth caches follow the change token)',
    async run(api, expect) {
      const u = await createUser(api, expect)
      const full = async () => (await api.request('GET', '/api/component/auth/user/', { auth: u.auth })).status
      expect(await full()).toBe(403)
      // Membership changed from the group's side: nothing names the user, yet the next request is an administrator's.
      const admins = await principalId(api, 'administrators')
      const before = (await api.request('GET', `/api/component/auth/group/${admins}`)).body.members as number[]
      expect((await api.request('PUT', `/api/component/auth/group/${admins}`, { body: { members: [...before, u.id] } })).status).toBe(200)
      expect(await full()).toBe(200)
      expect((await api.request('PUT', `/api/component/auth/group/${admins}`, { body: { members: before } })).status).toBe(200)
      expect(await full()).toBe(403)
      // The guest, as every anonymous request sees it.
      const guest = await principalId(api, 'guest')
      const guestLanguage = async () => (await api.request('GET', '/api/component/auth/current_user', { auth: 'guest' })).body.language
      expect(await guestLanguage()).toBe(null)
      expect((await api.request('PUT', `/api/component/auth/user/${guest}`, { body: { language: 'de' } })).status).toBe(200)
      try {
        expect(await guestLanguage()).toBe('de')
      } finally {
        await api.request('PUT', `/api/component/auth/user/${guest}`, { body: { language: null } })
      }
      expect(await guestLanguage()).toBe(null)
      // Another user's permissions: an unknown user is the original's UserNotFound, a group no user either.
      for (const id of [999_999_999, admins]) {
        expectError(expect, await api.request('GET', `/api/resource/0/permission?user=${id}`), 404, 'nextgisweb.auth.exception.UserNotFound')
      }
      expect((await api.request('GET', `/api/resource/0/permission?user=${u.id}`)).status).toBe(200)
    },
  },
  {
    name: 'ACL rules: stored and read back as sent; a PUT replaces the list; unknown principal, permission or class is a 422 naming it',
    async run(api, expect) {
      const u = await createUser(api, expect)
      const rules = [rule(u.id, 'resource', 'read', false), rule(u.id, 'data', '', true, 'deny', 'vector_layer')]
      const id = await resource(api, expect, 'resource_group', 0, rules)
      expect((await api.request('GET', `/api/resource/${id}`)).body.resource.permissions).toEqual(rules)
      await setRules(api, expect, id, [rules[0]!])
      expect((await api.request('GET', `/api/resource/${id}`)).body.resource.permissions).toEqual([rules[0]])
      for (const [bad, names] of [[rule(999999, '', ''), '999999'], [rule(u.id, 'resource', 'raed'), 'resource.raed'],
        [rule(u.id, 'datta', ''), 'datta'], [rule(u.id, '', '', true, 'allow', 'no_such_class'), 'no_such_class']] as const) {
        const res = await api.request('PUT', `/api/resource/${id}`, { body: { resource: { permissions: [bad] } } })
        expectError(expect, res, 422, VALIDATION)
        expect(res.body.message).toContain(names)
      }
      const missing = await api.request('PUT', `/api/resource/${id}`, { body: { resource: { permissions: [{ action: 'allow', principal: { id: u.id } }] } } })
      expectError(expect, missing, 422, VALIDATION)
      expect((await api.request('GET', `/api/resource/${id}`)).body.resource.permissions).toEqual([rules[0]])
    },
  },
  {
    name: 'matrix: guest, authenticated, group member, owner, denied user × scopes × classes, propagate on and off, deny over allow',
    async run(api, expect) {
      const [guest, authenticated, everyone, owner] = await Promise.all(['guest', 'authenticated', 'everyone', 'owner'].map((k) => principalId(api, k)))
      const member = await createUser(api, expect)
      const denied = await createUser(api, expect)
      const other = await createUser(api, expect)
      const group = await createGroup(api, expect, [member.id, denied.id])
      // top: everyone reads it (not below); the group reads and writes data everywhere below;
      // `denied` is in the group but denied data.write; the owner principal matches nobody.
      const top = await resource(api, expect, 'resource_group', 0, [
        rule(everyone, 'resource', 'read', false), rule(group, 'resource', 'read'), rule(group, 'data', ''),
        rule(denied.id, 'data', 'write', true, 'deny'), rule(owner, '', '')])
      const layer = await resource(api, expect, 'vector_layer', top)
      const sub = await resource(api, expect, 'resource_group', top, [rule(authenticated, 'resource', 'read', false)])
      const lookup = await resource(api, expect, 'lookup_table', top)
      // Root read: signed-in users have it by the root's own rule, the guest does not.
      await setRules(api, expect, 0, [...(await api.request('GET', '/api/resource/0')).body.resource.permissions, rule(everyone, 'resource', 'read', false)])
      try {
        const cases: Array<[string, number, number, Record<string, Record<string, boolean>>]> = [
          ['guest: top read (non-propagating, everyone)', guest, top, { resource: { read: true, update: false } }],
          ['guest: nothing below top', guest, layer, { resource: { read: false }, data: { read: false, write: false } }],
          ['authenticated: nothing below top', other.id, layer, { resource: { read: false }, data: { read: false } }],
          ['authenticated: sub by its own rule', other.id, sub, { resource: { read: true, update: false } }],
          ['member: layer data read and write', member.id, layer, { resource: { read: true, update: false, delete: false }, data: { read: true, write: true } }],
          ['member: lookup table has no data scope shown', member.id, lookup, { resource: { read: true } }],
          ['denied: deny on an ancestor beats the group\'s allow', denied.id, layer, { resource: { read: true }, data: { read: true, write: false } }],
          ['owner principal is inert', other.id, top, { resource: { read: true, update: false, change_permissions: false } }],
        ]
        for (const [what, user, id, want] of cases) {
          const got = await effective(api, id, user)
          for (const [scope, perms] of Object.entries(want)) expect({ what, got: got[scope] }).toMatchObject({ what, got: perms })
        }
        expect(Object.keys(await effective(api, lookup, member.id))).toEqual(['resource'])
        expect(Object.keys(await effective(api, layer, member.id))).toEqual(expect.arrayContaining(['resource', 'data']))
        // What the matrix says is what the routes do.
        const fid = (await addFeatures(api, expect, layer, [{ geom: 'POINT(1 1)', fields: {} }]))[0]
        expect((await api.request('GET', `/api/resource/${layer}/feature/`, { auth: member.auth })).status).toBe(200)
        expect((await api.request('PUT', `/api/resource/${layer}/feature/${fid}`, { auth: member.auth, body: { geom: 'POINT(2 2)' } })).status).toBe(200)
        expectError(expect, await api.request('PUT', `/api/resource/${layer}/feature/${fid}`, { auth: denied.auth, body: { geom: 'POINT(3 3)' } }), 403, DENIED)
        expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}`)).body.geom).toBe('POINT(2 2)')
        expectError(expect, await api.request('GET', `/api/resource/${layer}`, { auth: 'guest' }), 403, DENIED)
        expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/`, { auth: other.auth }), 403, DENIED)
        // Propagation off: the same grant on `top` without propagate gives `member` nothing on the layer.
        await setRules(api, expect, top, [rule(group, 'resource', 'read', false), rule(group, 'data', '', false)])
        expect((await effective(api, layer, member.id)).resource!.read).toBe(false)
        // Read on every ancestor: a grant on the layer alone does not open it under an unreadable group.
        await setRules(api, expect, layer, [rule(other.id, 'resource', 'read', false), rule(other.id, 'data', 'read', false)])
        expect((await effective(api, layer, other.id)).data!.read).toBe(false)
        await setRules(api, expect, top, [rule(other.id, 'resource', 'read', false)])
        expect((await effective(api, layer, other.id)).data).toEqual({ read: true, write: false })
        // Identity filters by the evaluated resource's class.
        await setRules(api, expect, top, [rule(group, 'resource', 'read', true, 'allow', 'lookup_table')])
        expect((await effective(api, lookup, member.id)).resource!.read).toBe(false) // top itself is not a lookup table
        await setRules(api, expect, top, [rule(group, 'resource', 'read', false), rule(group, 'resource', 'read', true, 'allow', 'lookup_table')])
        expect((await effective(api, lookup, member.id)).resource!.read).toBe(true)
        expect((await effective(api, layer, member.id)).resource!.read).toBe(false)
        // Another user's permissions only for who may change permissions.
        expectError(expect, await api.request('GET', `/api/resource/${top}/permission?user=${other.id}`, { auth: member.auth }), 403, DENIED)
      } finally {
        const root = (await api.request('GET', '/api/resource/0')).body.resource.permissions as Rule[]
        await setRules(api, expect, 0, root.filter((r) => r.principal.id !== everyone))
      }
    },
  },
  {
    name: 'a change of rules, of a parent or of membership takes effect on the very next request (the evaluator keeps no stale answer)',
    async run(api, expect) {
      const u = await createUser(api, expect)
      const group = await createGroup(api, expect, [u.id])
      const top = await readableGroup(api, expect, u.id, [rule(group, 'resource', 'read'), rule(group, 'data', 'read')])
      const closed = await readableGroup(api, expect, u.id)
      const layer = await resource(api, expect, 'vector_layer', top)
      const reads = async () => (await api.request('GET', `/api/resource/${layer}/feature/`, { auth: u.auth })).status
      const listed = async () => (await api.request('GET', `/api/resource/?parent=${top}`, { auth: u.auth })).body.length
      expect([await reads(), await listed()]).toEqual([200, 1])
      // A rule on an ancestor: denied, then allowed again.
      await setRules(api, expect, top, [rule(u.id, 'resource', 'read', false), rule(group, 'resource', 'read'), rule(group, 'data', 'read'),
        rule(u.id, 'data', 'read', true, 'deny')])
      expect(await reads()).toBe(403)
      await setRules(api, expect, top, [rule(u.id, 'resource', 'read', false), rule(group, 'resource', 'read'), rule(group, 'data', 'read')])
      expect(await reads()).toBe(200)
      // A move under a group that grants nothing below it, and back.
      expect((await api.request('PUT', `/api/resource/${layer}`, { body: { resource: { parent: { id: closed } } } })).status).toBe(200)
      expect([await reads(), await listed()]).toEqual([403, 0])
      expect((await api.request('PUT', `/api/resource/${layer}`, { body: { resource: { parent: { id: top } } } })).status).toBe(200)
      expect([await reads(), await listed()]).toEqual([200, 1])
      // Leaving the group that grants.
      expect((await api.request('PUT', `/api/component/auth/group/${group}`, { body: { members: [] } })).status).toBe(200)
      expect([await reads(), await listed()]).toEqual([403, 0])
      expect((await api.request('PUT', `/api/component/auth/group/${group}`, { body: { members: [u.id] } })).status).toBe(200)
      expect(await reads()).toBe(200)
      // A resource deleted and another made: the new one's own rules count, not a cached answer.
      expect((await api.request('DELETE', `/api/resource/${layer}`)).status).toBe(200)
      const again = await resource(api, expect, 'vector_layer', top, [rule(u.id, 'data', 'read', false, 'deny')])
      expect((await api.request('GET', `/api/resource/${again}/feature/`, { auth: u.auth })).status).toBe(403)
    },
  },
  {
    name: 'listings and search show only what the user may read; create needs create and manage_children',
    async run(api, expect) {
      const u = await createUser(api, expect)
      const top = await readableGroup(api, expect, u.id)
      const shown = await resource(api, expect, 'resource_group', top, [rule(u.id, 'resource', 'read', false)])
      const hidden = await resource(api, expect, 'resource_group', top)
      const kids = await api.request('GET', `/api/resource/?parent=${top}`, { auth: u.auth })
      expect(kids.status).toBe(200)
      expect(kids.body.map((r: { resource: { id: number } }) => r.resource.id)).toEqual([shown])
      const all = await api.request('GET', `/api/resource/?parent=${top}`)
      expect(all.body.map((r: { resource: { id: number } }) => r.resource.id).sort()).toEqual([shown, hidden].sort())
      const found = await api.request('GET', `/api/resource/search/?parent_id=${top}`, { auth: u.auth })
      expect(found.body.map((r: { resource: { id: number } }) => r.resource.id)).toEqual([shown])
      // Create: refused without create, allowed with create + manage_children on the parent.
      const body = { resource: { cls: 'resource_group', parent: { id: shown }, display_name: uniq('New') } }
      expectError(expect, await api.request('POST', '/api/resource/', { auth: u.auth, body }), 403, FORBIDDEN)
      await setRules(api, expect, shown, [rule(u.id, 'resource', 'read'), rule(u.id, 'resource', 'create'), rule(u.id, 'resource', 'manage_children', false)])
      const made = await api.request('POST', '/api/resource/', { auth: u.auth, body })
      expect(made.status).toBe(201)
      // …but not a change of the new resource's rules without change_permissions.
      const ruled = await api.request('PUT', `/api/resource/${made.body.id}`, { auth: u.auth, body: { resource: { permissions: [rule(u.id, '', '')] } } })
      expectError(expect, ruled, 403, DENIED)
      expect((await api.request('GET', `/api/resource/${made.body.id}`)).body.resource.permissions).toEqual([])
    },
  },
  {
    name: 'a rule for the original\'s class name (mapserver_style) rules the spec\'s engine_style resources and reads back in the spec\'s name',
    async run(api, expect) {
      const u = await createUser(api, expect)
      const top = await readableGroup(api, expect, u.id)
      const layer = await resource(api, expect, 'vector_layer', top, [rule(u.id, 'resource', 'read'), rule(u.id, 'data', 'read'),
        rule(u.id, 'data', 'read', true, 'deny', 'mapserver_style')])
      const style = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'engine_style', parent: { id: layer }, display_name: uniq('Style') } } })
      expect(style.status).toBe(201)
      expect((await effective(api, layer, u.id)).data).toMatchObject({ read: true })
      expect((await effective(api, style.body.id, u.id)).data).toMatchObject({ read: false })
      const rules = (await api.request('GET', `/api/resource/${layer}`)).body.resource.permissions
      expect(rules.map((r: Rule) => r.identity)).toEqual(['', '', 'engine_style'])
    },
  },
  {
    name: 'routes that check in their handler: a user who reads a layer but not its data is refused its export, preview and identify; delete needs every descendant',
    async run(api, expect) {
      const u = await createUser(api, expect)
      const top = await readableGroup(api, expect, u.id)
      const layer = await resource(api, expect, 'vector_layer', top, [rule(u.id, 'resource', 'read', false)])
      await addFeatures(api, expect, layer, [{ geom: 'POINT(1 1)', fields: { name: 'secret' } }])
      expect((await api.request('GET', `/api/resource/${layer}`, { auth: u.auth })).status).toBe(200)
      const refusal = { resource: { id: layer }, permission: 'read', scope: 'data' }
      const exported = [
        await api.request('GET', `/api/component/feature_layer/export?resources=${layer}&format=GeoJSON`, { auth: u.auth }),
        await api.request('POST', '/api/component/feature_layer/export', { auth: u.auth, body: { format: 'CSV', resources: [{ id: layer }] } }),
      ]
      const preview = { layer: { id: layer }, extent: [0, 0, 2, 2], size: [8, 8],
        engine_style: { xml: '<map><layer><class><style><color red="255" green="0" blue="0"/></style></class></layer></map>' } }
      const previewed = await api.request('POST', '/api/component/outpost/render/preview', { auth: u.auth, body: preview })
      for (const res of [...exported, previewed]) {
        expectError(expect, res, 403, DENIED)
        expect(res.body.data).toEqual(refusal)
      }
      const identified = await api.request('POST', '/api/feature_layer/identify', { auth: u.auth,
        body: { geom: 'POLYGON((0 0,2 0,2 2,0 2,0 0))', srs: 3857, layers: [layer] } })
      expect(identified.body).toEqual({ [layer]: { error: 'Forbidden' }, featureCount: 0 })
      // With data.read the same requests answer (the refusals above were about the permission).
      await setRules(api, expect, layer, [rule(u.id, 'resource', 'read', false), rule(u.id, 'data', 'read', false)])
      expect((await api.request('GET', `/api/component/feature_layer/export?resources=${layer}&format=GeoJSON`, { auth: u.auth })).status).toBe(200)
      expect((await api.request('POST', '/api/component/outpost/render/preview', { auth: u.auth, body: preview })).status).toBe(200)
      const found = await api.request('POST', '/api/feature_layer/identify', { auth: u.auth,
        body: { geom: 'POLYGON((0 0,2 0,2 2,0 2,0 0))', srs: 3857, layers: [layer] } })
      expect(found.body.featureCount).toBe(1)
      // Delete: allowed on the group but not on the layer inside → 403 naming the layer, both kept.
      await setRules(api, expect, top, [rule(u.id, 'resource', 'read', false), rule(u.id, 'resource', 'delete', false)])
      const del = await api.request('DELETE', `/api/resource/${top}`, { auth: u.auth })
      expectError(expect, del, 403, DENIED)
      expect(del.body.data).toEqual({ resource: { id: layer }, permission: 'delete', scope: 'resource' })
      expect((await api.request('GET', `/api/resource/${layer}`)).status).toBe(200)
      expect((await api.request('GET', `/api/resource/${layer}/feature/`)).body).toHaveLength(1)
    },
  },
  {
    name: 'route-table sweep: every route declares a need; every protected route refuses a user without it and changes nothing',
    async run(api, expect) {
      const needs = await api.request('GET', '/api/component/outpost/route_needs')
      expect(needs.status).toBe(200)
      const declared = needs.body as Array<{ name: string; template: string; method: string; need: Record<string, string> }>
      expect(declared.length).toBeGreaterThan(60)
      for (const d of declared) expect(['public', 'user', 'scope'].some((k) => k in d.need)).toBe(true)
      expectError(expect, await api.request('GET', '/api/component/outpost/route_needs', { auth: 'guest' }), 403, FORBIDDEN)
      // A layer with a feature and an attachment-free row; the user reads the root and nothing else.
      const u = await createUser(api, expect)
      const layer = await createLayer(api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }])
      await addFeatures(api, expect, layer, [{ geom: 'POINT(1 1)', fields: { name: 'kept' } }])
      const before = [await api.request('GET', `/api/resource/${layer}`), await api.request('GET', `/api/resource/${layer}/feature/`)]
      const fill = (t: string) => t.replace('{id}', String(layer)).replace(/\{(fid|aid|vid|tid|cid|i)\}/g, '1')
        .replace('{z}/{x}/{y}', '0/0/0').replace('{z}', '0').replace('{x}', '0').replace('{file}', '0.mvt').replace('{name}', 'x')
      let checked = 0
      for (const d of declared) {
        const { need } = d
        const onLayer = 'scope' in need && need.from !== 'handler' && (d.template.includes('{id}') || need.from === 'query')
        if (!onLayer && !('user' in need)) continue
        if ('user' in need && need.user !== 'administrator') continue
        if (d.template.includes('{token}') || d.method === 'OPTIONS' || d.method === 'HEAD') continue
        const path = fill(d.template) + ('from' in need && need.from === 'query' ? `?resource=${layer}&extent=0,0,1,1&size=4,4&x=0&y=0&z=0` : '')
        const res = await api.request(d.method, path, { auth: u.auth, body: ['GET', 'DELETE'].includes(d.method) ? undefined : {} })
        expect({ route: `${d.method} ${d.template}`, status: res.status }).toEqual({ route: `${d.method} ${d.template}`, status: 403 })
        expect(res.body.exception).toBe(onLayer ? DENIED : FORBIDDEN)
        checked++
      }
      expect(checked).toBeGreaterThan(40)
      const after = [await api.request('GET', `/api/resource/${layer}`), await api.request('GET', `/api/resource/${layer}/feature/`)]
      expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body))
    },
  },
]
