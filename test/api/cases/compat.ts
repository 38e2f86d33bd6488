/**
 * Answers shaped as the original's (NextGIS Web 5.4.0), where a client can tell the
 * difference: each expectation here was read from the original's own answer to the same
 * request (`npm run compare`, docs/sync.md "Syncing with the original").
 */
import type { ApiCase } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'
import { createLayer } from './feature.ts'
import { versionedLayer } from './versioning.ts'
import { readWithGdal } from '../export-read.ts'
import { bytesOf } from '../mvt-decode.ts'

const V = 'nextgisweb.feature_layer.versioning.exception'
const T = 'nextgisweb.feature_layer.transaction.exception'

/** The original's interfaces of a vector layer, in its order. */
const VECTOR_INTERFACES = ['IBboxLayer', 'IFilterableFeatureLayer', 'IFeatureLayer', 'IFieldEditableFeatureLayer',
  'IGeometryEditableFeatureLayer', 'IWritableFeatureLayer', 'IVersionableFeatureLayer']

export const compatCases: ApiCase[] = [
  {
    name: 'batch PATCH on a versioned layer answers {id, version} per item, deletes too; unversioned: {id}',
    async run(api, expect) {
      const { layer } = await versionedLayer(api, expect)
      const first = await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 1)', fields: { name: 'a' } } })
      expect(first.body).toEqual({ id: first.body.id, version: 2 })
      const other = (await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(2 2)' } })).body.id
      const batch = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [
        { geom: 'POINT(3 3)', fields: { name: 'new' } }, { id: first.body.id, fields: { name: 'b' } }, { id: other, delete: true }] })
      expect(batch.status).toBe(200)
      expect(batch.body).toEqual([{ id: expect.any(Number), version: 4 }, { id: first.body.id, version: 4 }, { id: other, version: 4 }])
      const plain = await createLayer(api, expect, 'POINT', [{ keyname: 'name', datatype: 'STRING' }], 3857, false)
      const unversioned = await api.request('PATCH', `/api/resource/${plain}/feature/`, { body: [{ geom: 'POINT(1 1)' }] })
      expect(unversioned.body).toEqual([{ id: expect.any(Number) }])
    },
  },
  {
    name: 'feature/version/ items carry type version or group; version 1 is the creator\'s',
    async run(api, expect) {
      const { layer, epoch } = await versionedLayer(api, expect)
      await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 1)' } })
      const me = (await api.request('GET', '/api/component/auth/current_user')).body
      const list = await api.request('GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=asc`)
      expect(list.body.items.map((i: Record<string, unknown>) => Object.keys(i))).toEqual([
        ['type', 'id', 'tstamp', 'user', 'feature'], ['type', 'id', 'tstamp', 'user', 'feature']])
      expect(list.body.items.map((i: Record<string, unknown>) => [i.type, i.id, i.user])).toEqual([
        ['version', 1, { id: me.id }], ['version', 2, { id: me.id }]])
      // One user's versions within two minutes are one group, the layer's creation among them.
      const grouped = await api.request('GET', `/api/resource/${layer}/feature/version/?epoch=${epoch}&order=asc&group=true`)
      expect(grouped.body.items.map((i: Record<string, unknown>) => [i.type, i.id, i.user])).toEqual([['group', [1, 2], { id: me.id }]])
      const one = await api.request('GET', `/api/resource/${layer}/feature/version/1`)
      expect(one.body.user).toMatchObject({ id: me.id, keyname: me.keyname })
      // Turned off and on again: version 1 of the new epoch is whoever turned it on.
      await api.request('PUT', `/api/resource/${layer}`, { body: { feature_layer: { versioning: { enabled: false } } } })
      await api.request('PUT', `/api/resource/${layer}`, { body: { feature_layer: { versioning: { enabled: true } } } })
      const again = (await api.request('GET', `/api/resource/${layer}`)).body.feature_layer.versioning
      const relisted = await api.request('GET', `/api/resource/${layer}/feature/version/?epoch=${again.epoch}&order=asc`)
      expect(relisted.body.items.map((i: Record<string, unknown>) => [i.type, i.id, i.user])).toEqual([['version', 1, { id: me.id }]])
    },
  },
  {
    name: 'a vector layer\'s interfaces are the original\'s, IVersionableFeatureLayer included, versioned or not',
    async run(api, expect) {
      const { layer } = await versionedLayer(api, expect)
      const plain = await createLayer(api, expect, 'POINT', [], 3857, false)
      for (const id of [layer, plain]) {
        expect((await api.request('GET', `/api/resource/${id}`)).body.resource.interfaces).toEqual(VECTOR_INTERFACES)
      }
      const blueprint = await api.request('GET', '/api/component/resource/blueprint', { auth: 'guest' })
      expect(blueprint.body.resources.vector_layer.interfaces).toEqual(VECTOR_INTERFACES)
    },
  },
  {
    name: 'auth, epoch, range and transaction errors carry no message and no data; a guest where a user is required gets Unauthorized; as the original\'s',
    async run(api, expect) {
      const bare = (res: { body: Record<string, unknown> }, title: string) => {
        expect(res.body.title).toBe(title)
        expect(res.body.message).toBeUndefined()
        expect(res.body.data).toEqual({})
      }
      const wrong = await api.request('GET', '/api/component/auth/current_user', { auth: { login: 'administrator', password: 'wrong' } })
      expectError(expect, wrong, 401, 'nextgisweb.auth.exception.InvalidCredentialsException')
      bare(wrong, 'Invalid credentials')
      const login = await api.request('POST', '/api/component/auth/login', { auth: 'guest', body: { login: 'administrator', password: 'nope' } })
      expectError(expect, login, 401, 'nextgisweb.auth.exception.InvalidCredentialsException')
      bare(login, 'Invalid credentials')
      // A guest where a user is required: Pyramid's HTTPUnauthorized in the original, with its message.
      for (const path of ['/api/component/auth/current_user?require_authenticated=true', '/api/component/auth/profile']) {
        const guest = await api.request('GET', path, { auth: 'guest' })
        expectError(expect, guest, 401, 'nextgisweb.pyramid.exception.PyramidHTTPError')
        expect(guest.body).toMatchObject({ title: 'Unauthorized', message: 'Unauthorized', data: {} })
      }
      const garbled = await api.request('GET', '/api/resource/0', { headers: { authorization: 'Basic !!!' }, auth: 'guest' })
      expectError(expect, garbled, 400, 'nextgisweb.auth.exception.InvalidAuthorizationHeader')
      bare(garbled, 'Invalid authorization header')

      const { layer, epoch } = await versionedLayer(api, expect)
      const base = `/api/resource/${layer}/feature`
      const cases: [string, number, string, string][] = [
        [`${base}/changes/check?initial=1`, 422, `${V}.FVersioningEpochRequired`, 'Epoch required'],
        [`${base}/version/?epoch=${epoch + 7}&order=asc`, 422, `${V}.FVersioningEpochMismatch`, 'Epoch mismatch'],
        [`${base}/changes/check?epoch=${epoch}&initial=9`, 422, `${V}.FVersioningOutOfRange`, 'Version out of range'],
        [`${base}/transaction/99999`, 404, `${T}.TransactionNotFound`, 'Transaction not found'],
      ]
      for (const [path, status, exception, title] of cases) {
        const res = await api.request('GET', path)
        expectError(expect, res, status, exception)
        bare(res, title)
      }
      await api.request('POST', `${base}/`, { body: { geom: 'POINT(1 1)' } })
      const range = await api.request('GET', `${base}/changes/check?epoch=${epoch}&initial=2&target=1`)
      expectError(expect, range, 422, `${V}.FVersioningInvalidRange`)
      bare(range, 'Invalid range')
      const required = await api.request('POST', `${base}/transaction/`, { body: {} })
      expectError(expect, required, 422, `${V}.FVersioningEpochRequired`)
      bare(required, 'Epoch required')
      const tid = (await api.request('POST', `${base}/transaction/`, { body: { epoch } })).body.id
      const open = await api.request('GET', `${base}/transaction/${tid}`)
      expectError(expect, open, 422, `${T}.TransactionNotCommitted`)
      bare(open, 'Transaction not committed')
    },
  },
  {
    name: 'a guest creating a resource gets ForbiddenError on the parent attribute; nothing is created',
    async run(api, expect) {
      const name = uniq('Guest group')
      const res = await api.request('POST', '/api/resource/', { auth: 'guest',
        body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: name } } })
      expectError(expect, res, 403, 'nextgisweb.core.exception.ForbiddenError')
      expect(res.body).toMatchObject({ title: 'Forbidden', contact: 'administrator',
        message: 'You are not allowed to create or move a resource of type \'resource_group\' here.',
        data: { attribute: 'parent', serializer: 'resource' } })
      const found = await api.request('GET', `/api/resource/search/?display_name=${encodeURIComponent(name)}`)
      expect(found.body).toEqual([])
    },
  },
  {
    name: 'DisplayNameNotUnique and ResourceRootDeleteError have the original\'s titles; the root is refused to a guest too',
    async run(api, expect) {
      const name = uniq('Twice')
      const body = { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: name } }
      const first = await api.request('POST', '/api/resource/', { body })
      const clash = await api.request('POST', '/api/resource/', { body })
      expectError(expect, clash, 422, 'nextgisweb.resource.exception.DisplayNameNotUnique')
      expect(clash.body).toMatchObject({ title: 'Resource display name is not unique',
        message: `Resource with same display name already exists (id = ${first.body.id}).`,
        detail: 'Within a single parent resource, each resource must have unique display name. Give the resource a different display name or rename existing.',
        data: { resource_id: first.body.id, serializer: 'resource' } })
      for (const auth of ['admin', 'guest'] as const) {
        const root = await api.request('DELETE', '/api/resource/0', { auth })
        expectError(expect, root, 422, 'nextgisweb.resource.exception.ResourceRootDeleteError')
        expect(root.body).toMatchObject({ title: 'Hierarchy error', message: 'Root resource could not be deleted.', data: {} })
      }
    },
  },
  {
    name: 'exports as the original\'s: GeoJSON leaves null properties out; GPKG ngw_id is Integer and datetimes have no zone',
    async run(api, expect) {
      const layer = await createLayer(api, expect, 'POINT', [{ keyname: 'r', datatype: 'REAL' }, { keyname: 't', datatype: 'DATETIME' },
        { keyname: 's', datatype: 'STRING' }], 3857, false)
      await api.request('POST', `/api/resource/${layer}/feature/?dt_format=iso`, { body: { geom: 'POINT(1 2)',
        fields: { r: null, t: '2024-01-02T03:04:05', s: 'b' } } })
      const geojson = await api.request('GET', `/api/resource/${layer}/export?format=GeoJSON&srs=4326&zipped=false`)
      expect(JSON.parse(geojson.text).features[0].properties).toEqual({ t: '2024-01-02T03:04:05', s: 'b' })
      const gpkg = await api.request('GET', `/api/resource/${layer}/export?format=GPKG&srs=4326&zipped=false&fid=ngw_id`)
      expect(gpkg.status).toBe(200)
      const [read] = await readWithGdal(bytesOf(gpkg.bodyBase64), 'compat.gpkg')
      expect(read!.fields).toEqual([{ name: 'r', type: 'Real' }, { name: 't', type: 'DateTime' }, { name: 's', type: 'String' },
        { name: 'ngw_id', type: 'Integer' }])
      // GDAL writes a datetime with a zone with it (…Z or +00:00); a naive one as it is.
      expect(read!.features[0]!.properties).toEqual({ r: null, t: '2024-01-02T03:04:05', s: 'b', ngw_id: expect.any(Number) })
    },
  },
]
