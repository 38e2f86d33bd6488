/**
 * Remote connections and the sync endpoints without a reachable team's server (the sync
 * itself runs in sync.test.ts and sync-sw.spec.ts, against a real one).
 */
import type { ApiCase } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { createLayer } from './feature.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
/** Nothing listens here: the port is reserved for services nobody runs in tests (TCP port 9, "discard"). */
const NOWHERE = 'http://127.0.0.1:9'

export const remoteCases: ApiCase[] = [
  {
    name: 'a remote connection keeps its URL and login; the password is never returned, only whether there is one',
    async run(api, expect) {
      const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'remote_connection', parent: { id: 0 },
        display_name: uniq('Team') }, remote_connection: { url: 'https://team.example.org/ngw/', username: 'field', password: 's3cret!' } } })
      expect(res.status).toBe(201)
      const got = await api.request('GET', `/api/resource/${res.body.id}`)
      expect(got.body.remote_connection).toEqual({ url: 'https://team.example.org/ngw', username: 'field', password_set: true })
      expect(got.text).not.toContain('s3cret!')
      expect(got.body.resource).toMatchObject({ cls: 'remote_connection', scopes: ['connection', 'resource'] })
      // Changing the login keeps the password; null removes it.
      await api.request('PUT', `/api/resource/${res.body.id}`, { body: { remote_connection: { username: 'other' } } })
      expect((await api.request('GET', `/api/resource/${res.body.id}`)).body.remote_connection).toMatchObject({ username: 'other', password_set: true })
      await api.request('PUT', `/api/resource/${res.body.id}`, { body: { remote_connection: { password: null } } })
      expect((await api.request('GET', `/api/resource/${res.body.id}`)).body.remote_connection.password_set).toBe(false)
      const blueprint = (await api.request('GET', '/api/component/resource/blueprint')).body.resources
      expect(blueprint.remote_connection).toMatchObject({ label: 'Remote connection' })
    },
  },
  {
    name: 'remote connection errors: no URL, a URL that is not http(s), unknown keys, a guest (422/403, nothing made)',
    async run(api, expect) {
      const post = (member: unknown, auth?: 'guest') => api.request('POST', '/api/resource/', { auth, body: {
        resource: { cls: 'remote_connection', parent: { id: 0 }, display_name: uniq('Bad') }, remote_connection: member } })
      expectError(expect, await post({ username: 'x' }), 422, VALIDATION)
      expectError(expect, await post({ url: 'ftp://example.org' }), 422, VALIDATION)
      expectError(expect, await post({ url: 'https://example.org/?token=1' }), 422, VALIDATION)
      expectError(expect, await post({ url: 'https://example.org', token: 'x' }), 422, VALIDATION)
      expectError(expect, await post({ url: 'https://example.org', password: 5 }), 422, VALIDATION)
      expectError(expect, await post({ url: 'https://example.org' }, 'guest'), 403, 'nextgisweb.core.exception.ForbiddenError')
    },
  },
  {
    name: 'a server that cannot be reached: linking is a 502 and makes nothing; its tree is a 502',
    async run(api, expect) {
      const conn = (await api.request('POST', '/api/resource/', { body: { resource: { cls: 'remote_connection', parent: { id: 0 },
        display_name: uniq('Nowhere') }, remote_connection: { url: NOWHERE, username: 'administrator', password: 'x' } } })).body.id
      const name = uniq('Never')
      const linked = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
        vector_layer: { remote: { connection: { id: conn }, resource: { id: 1 } } } } })
      expectError(expect, linked, 502, 'nextgisweb.core.exception.ExternalServiceError')
      expect(linked.body.title).toBe('Remote server unreachable')
      const children = (await api.request('GET', '/api/resource/?parent=0')).body as { resource: { display_name: string } }[]
      expect(children.map((c) => c.resource.display_name)).not.toContain(name)
      expectError(expect, await api.request('GET', `/api/resource/${conn}/remote/?parent=0`), 502, 'nextgisweb.core.exception.ExternalServiceError')
      // A link through something that is not a connection is refused before anything is asked.
      const layer = await createLayer(api, expect)
      expectError(expect, await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 },
        display_name: uniq('Bad link') }, vector_layer: { remote: { connection: { id: layer }, resource: { id: 1 } } } } }), 422, VALIDATION)
    },
  },
  {
    name: 'sync endpoints of a layer that is not linked are 404; the list of linked layers answers',
    async run(api, expect) {
      const layer = await createLayer(api, expect)
      const NL = 'outpost.sync.exception.NotLinked'
      expectError(expect, await api.request('GET', `/api/resource/${layer}/sync`), 404, NL)
      expectError(expect, await api.request('POST', `/api/resource/${layer}/sync`), 404, NL)
      expectError(expect, await api.request('GET', `/api/resource/${layer}/sync/conflict/`), 404, NL)
      const list = await api.request('GET', '/api/component/outpost/sync/')
      expect(list.status).toBe(200)
      expect(Array.isArray(list.body)).toBe(true)
      const team = await api.request('GET', '/api/component/outpost/sync/team')
      expect(team.status).toBe(200)
      expect(team.body).toHaveProperty('url')
    },
  },
]
