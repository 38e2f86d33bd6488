import type { Api, ApiCase, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'

const RES = 'nextgisweb.resource.exception'
const VALIDATION = 'nextgisweb.core.exception.ValidationError'

async function createGroup(api: Api, expect: Expect, parent = 0, name = uniq('Group'), extra: Record<string, unknown> = {}) {
  const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: parent }, display_name: name, ...extra } } })
  expect(res.status).toBe(201)
  return res.body.id as number
}

function vectorBody(parent: number, name: string, fields: unknown[] = [{ keyname: 'name', datatype: 'STRING' }]) {
  return { resource: { cls: 'vector_layer', parent: { id: parent }, display_name: name },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields } }
}

export const resourceCases: ApiCase[] = [
  {
    name: 'the root is a resource group with the composite members',
    async run(api, expect) {
      const res = await api.request('GET', '/api/resource/0')
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/json')
      expect(Object.keys(res.body.resource)).toEqual(['id', 'cls', 'creation_date', 'parent', 'owner_user', 'permissions',
        'keyname', 'display_name', 'description', 'children', 'interfaces', 'scopes'])
      expect(res.body.resource).toMatchObject({ id: 0, cls: 'resource_group', parent: null, display_name: 'Main resource group' })
      expect(res.body.resource.creation_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
      expect(res.body.resmeta).toEqual({ items: expect.any(Object) })
      expect(res.body.social).toEqual({ image_exists: false, description: null })
    },
  },
  {
    name: 'creates a group (201), reads it back and lists it among the children',
    async run(api, expect) {
      const name = uniq('Survey')
      const res = await api.request('POST', '/api/resource/', {
        body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: name, description: '<p>Field</p>' } } })
      expect(res.status).toBe(201)
      expect(res.body).toEqual({ id: expect.any(Number), parent: { id: 0 } })
      const got = await api.request('GET', `/api/resource/${res.body.id}`)
      expect(got.body.resource).toMatchObject({ id: res.body.id, cls: 'resource_group', display_name: name,
        description: '<p>Field</p>', keyname: null, parent: { id: 0, parent: { id: null } }, children: false, owner_user: { id: expect.any(Number) } })
      const kids = await api.request('GET', '/api/resource/?parent=0')
      expect(kids.body.map((r: { resource: { id: number } }) => r.resource.id)).toContain(res.body.id)
      const root = await api.request('GET', '/api/resource/0')
      expect(root.body.resource.children).toBe(true)
    },
  },
  {
    name: 'POST without the trailing slash is accepted too, and a text/plain body is parsed as JSON',
    async run(api, expect) {
      const res = await api.request('POST', '/api/resource', { headers: { 'content-type': 'text/plain;charset=UTF-8' },
        body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: uniq('Plain') } } })
      expect(res.status).toBe(201)
    },
  },
  {
    name: 'listing without parent returns the root; a missing parent lists nothing',
    async run(api, expect) {
      const res = await api.request('GET', '/api/resource/')
      expect(res.body.map((r: { resource: { id: number } }) => r.resource.id)).toEqual([0])
      const none = await api.request('GET', '/api/resource/?parent=987654')
      expect(none.body).toEqual([])
    },
  },
  {
    name: 'children are ordered by class, then display name',
    async run(api, expect) {
      const g = await createGroup(api, expect)
      await api.request('POST', '/api/resource/', { body: vectorBody(g, 'A layer') })
      await createGroup(api, expect, g, 'Zulu')
      await createGroup(api, expect, g, 'Alpha')
      await api.request('POST', '/api/resource/', { body: { resource: { cls: 'lookup_table', parent: { id: g }, display_name: 'B table' }, lookup_table: { items: {} } } })
      const kids = await api.request('GET', `/api/resource/?parent=${g}`)
      expect(kids.body.map((r: { resource: { display_name: string } }) => r.resource.display_name)).toEqual(['Alpha', 'Zulu', 'A layer', 'B table'])
    },
  },
  {
    name: 'a listing shows each child as GET of the child does, names with quotes, control characters and emoji, metadata and class members included',
    async run(api, expect) {
      const g = await createGroup(api, expect)
      const odd = 'Quote " back \\ slash\ttab\nline\u0001ctl \u2028 🗺 ʼ </script>'
      await createGroup(api, expect, g, odd, { description: 'Desc "x"\n', keyname: uniq('key') })
      const meta = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: g }, display_name: 'Meta' },
        resmeta: { items: { zeta: 1, alpha: 'x"y', none: null, yes: true, half: 1.5 } } } })
      expect(meta.status).toBe(201)
      expect((await api.request('POST', '/api/resource/', { body: vectorBody(g, 'A layer') })).status).toBe(201)
      expect((await api.request('POST', '/api/resource/', { body: { resource: { cls: 'lookup_table', parent: { id: g }, display_name: 'B table' }, lookup_table: { items: { k: 'v' } } } })).status).toBe(201)
      const kids = await api.request('GET', `/api/resource/?parent=${g}`)
      expect(kids.status).toBe(200)
      // The text is as JSON.stringify writes it (compact, same escapes), whoever builds it.
      expect(kids.text).toBe(JSON.stringify(kids.body))
      expect(kids.body.map((r: { resource: { display_name: string } }) => r.resource.display_name)).toEqual(['Meta', odd, 'A layer', 'B table'])
      for (const item of kids.body as Array<{ resource: { id: number } }>) {
        const one = await api.request('GET', `/api/resource/${item.resource.id}`)
        expect(one.text).toBe(JSON.stringify(item))
      }
      expect(kids.body[0].resmeta).toEqual({ items: { alpha: 'x"y', half: 1.5, none: null, yes: true, zeta: 1 } })
      expect(kids.body[2].vector_layer).toMatchObject({ geometry_type: 'POINT' })
      expect(kids.body[3].lookup_table.items).toEqual({ k: 'v' })
      const found = await api.request('GET', `/api/resource/search/?parent_id=${g}&serialization=full`)
      expect(found.status).toBe(200)
      expect(found.text).toBe(JSON.stringify(found.body))
      expect(new Set(found.body.map((r: unknown) => JSON.stringify(r)))).toEqual(new Set(kids.body.map((r: unknown) => JSON.stringify(r))))
    },
  },
  {
    name: 'an empty vector layer keeps its srs, geometry type and fields',
    async run(api, expect) {
      const g = await createGroup(api, expect)
      const res = await api.request('POST', '/api/resource/', { body: vectorBody(g, 'Wells', [
        { keyname: 'name', datatype: 'STRING', display_name: 'Name' },
        { keyname: 'depth', datatype: 'REAL' },
        { keyname: 'drilled', datatype: 'DATE' },
        { keyname: 'big', datatype: 'BIGINT' },
        { keyname: 'ok', datatype: 'BOOLEAN' },
      ]) })
      expect(res.status).toBe(201)
      const got = await api.request('GET', `/api/resource/${res.body.id}`)
      expect(got.body.vector_layer).toEqual({ srs: { id: 3857 }, geometry_type: 'POINT' })
      // New layers keep versions (the original's default since 5.4): version 1 is the empty start.
      expect(got.body.feature_layer).toMatchObject({ srs: { id: 3857 }, geometry_type: 'POINT',
        versioning: { enabled: true, epoch: expect.any(Number), latest: 1 } })
      expect(got.body.feature_layer.fields.map((f: { keyname: string; datatype: string; display_name: string }) =>
        [f.keyname, f.datatype, f.display_name])).toEqual([['name', 'STRING', 'Name'], ['depth', 'REAL', 'depth'],
        ['drilled', 'DATE', 'drilled'], ['big', 'BIGINT', 'big'], ['ok', 'BOOLEAN', 'ok']])
      expect(got.body.feature_layer.fields[0]).toEqual({ id: expect.any(Number), keyname: 'name', display_name: 'Name',
        datatype: 'STRING', typemod: null, label_field: false, grid_visibility: true, text_search: true, required: false, lookup_table: null })
      expect(got.body.resource.interfaces).toContain('IFeatureLayer')
      expect(got.body.resource.scopes).toEqual(expect.arrayContaining(['data', 'resource']))
    },
  },
  {
    name: 'fields are added, renamed and deleted through feature_layer.fields, ids kept',
    async run(api, expect) {
      const g = await createGroup(api, expect)
      const id = (await api.request('POST', '/api/resource/', { body: vectorBody(g, 'L', [
        { keyname: 'a', datatype: 'STRING' }, { keyname: 'b', datatype: 'INTEGER' }]) })).body.id
      const before = (await api.request('GET', `/api/resource/${id}`)).body.feature_layer.fields
      const put = await api.request('PUT', `/api/resource/${id}`, { body: { feature_layer: { fields: [
        { id: before[0].id, keyname: 'a2', display_name: 'A two' }, { id: before[1].id, delete: true },
        { keyname: 'c', datatype: 'TIME' }] } } })
      expect(put.status).toBe(200)
      expect(put.body).toEqual({})
      const after = (await api.request('GET', `/api/resource/${id}`)).body.feature_layer.fields
      expect(after.map((f: { id: number; keyname: string }) => [f.id, f.keyname])).toEqual([[before[0].id, 'a2'], [expect.any(Number), 'c']])
      const dup = await api.request('PUT', `/api/resource/${id}`, { body: { feature_layer: { fields: [{ keyname: 'a2', datatype: 'STRING' }] } } })
      expectError(expect, dup, 422, VALIDATION)
      const again = (await api.request('GET', `/api/resource/${id}`)).body.feature_layer.fields
      expect(again).toEqual(after)
    },
  },
  {
    name: 'vector layer input errors are 422 and store nothing',
    async run(api, expect) {
      const g = await createGroup(api, expect)
      const bad = [
        { resource: { cls: 'vector_layer', parent: { id: g }, display_name: 'x' } },
        { ...vectorBody(g, 'x'), vector_layer: { srs: { id: 999999 }, geometry_type: 'POINT', fields: [] } },
        { ...vectorBody(g, 'x'), vector_layer: { srs: { id: 3857 }, geometry_type: 'CIRCLE', fields: [] } },
        vectorBody(g, 'x', [{ keyname: 'a', datatype: 'COMPLEX' }]),
        vectorBody(g, 'x', [{ keyname: 'a', datatype: 'STRING' }, { keyname: 'a', datatype: 'REAL' }]),
        vectorBody(g, 'x', [{ keyname: '', datatype: 'STRING' }]),
      ]
      for (const body of bad) expectError(expect, await api.request('POST', '/api/resource/', { body }), 422, VALIDATION)
      const kids = await api.request('GET', `/api/resource/?parent=${g}`)
      expect(kids.body).toEqual([])
    },
  },
  {
    name: 'a lookup table keeps its items and sort',
    async run(api, expect) {
      const g = await createGroup(api, expect)
      const res = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'lookup_table', parent: { id: g }, display_name: 'Kinds' },
        lookup_table: { items: { a: 'Apple', b: 'Banana' }, sort: 'VALUE_DESC' } } })
      expect(res.status).toBe(201)
      const got = await api.request('GET', `/api/resource/${res.body.id}`)
      expect(got.body.lookup_table).toEqual({ sort: 'VALUE_DESC', items: { a: 'Apple', b: 'Banana' }, order: ['a', 'b'] })
      await api.request('PUT', `/api/resource/${res.body.id}`, { body: { lookup_table: { items: { c: 'Cherry' } } } })
      expect((await api.request('GET', `/api/resource/${res.body.id}`)).body.lookup_table.items).toEqual({ c: 'Cherry' })
      const bad = await api.request('PUT', `/api/resource/${res.body.id}`, { body: { lookup_table: { items: { c: 1 } } } })
      expectError(expect, bad, 422, VALIDATION)
    },
  },
  {
    name: 'renames, changes keyname and description with partial bodies',
    async run(api, expect) {
      const id = await createGroup(api, expect)
      const name = uniq('Renamed')
      const key = uniq('key').replace(/\W/g, '_')
      expect((await api.request('PUT', `/api/resource/${id}`, { body: { resource: { display_name: name } } })).body).toEqual({})
      await api.request('PUT', `/api/resource/${id}`, { body: { resource: { keyname: key, description: 'About' } } })
      const got = await api.request('GET', `/api/resource/${id}`)
      expect(got.body.resource).toMatchObject({ display_name: name, keyname: key, description: 'About' })
    },
  },
  {
    name: 'display names are unique among siblings, keynames system-wide',
    async run(api, expect) {
      const g1 = await createGroup(api, expect)
      const g2 = await createGroup(api, expect)
      const a = await createGroup(api, expect, g1, 'Same')
      const clash = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: g1 }, display_name: 'Same' } } })
      expectError(expect, clash, 422, `${RES}.DisplayNameNotUnique`)
      expect(clash.body.data.resource_id).toBe(a)
      expect((await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: g2 }, display_name: 'Same' } } })).status).toBe(201)
      const key = uniq('k').replace(/\W/g, '_')
      await createGroup(api, expect, g1, uniq('K1'), { keyname: key })
      const dupKey = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: g2 }, display_name: uniq('K2'), keyname: key } } })
      expectError(expect, dupKey, 422, VALIDATION)
      const b = await createGroup(api, expect, g1, 'Other')
      const renameClash = await api.request('PUT', `/api/resource/${b}`, { body: { resource: { display_name: 'Same' } } })
      expectError(expect, renameClash, 422, `${RES}.DisplayNameNotUnique`)
    },
  },
  {
    name: 'moves a resource; cycles and bad parents are HierarchyError',
    async run(api, expect) {
      const a = await createGroup(api, expect)
      const b = await createGroup(api, expect, a)
      const c = await createGroup(api, expect, b)
      const other = await createGroup(api, expect)
      expect((await api.request('PUT', `/api/resource/${b}`, { body: { resource: { parent: { id: other } } } })).status).toBe(200)
      expect((await api.request('GET', `/api/resource/${b}`)).body.resource.parent).toEqual({ id: other, parent: { id: 0 } })
      expectError(expect, await api.request('PUT', `/api/resource/${b}`, { body: { resource: { parent: { id: c } } } }), 422, `${RES}.HierarchyError`)
      expectError(expect, await api.request('PUT', `/api/resource/${b}`, { body: { resource: { parent: { id: b } } } }), 422, `${RES}.HierarchyError`)
      expectError(expect, await api.request('PUT', `/api/resource/${b}`, { body: { resource: { parent: { id: 987654 } } } }), 422, `${RES}.HierarchyError`)
      expectError(expect, await api.request('PUT', '/api/resource/0', { body: { resource: { parent: { id: a } } } }), 422, `${RES}.HierarchyError`)
      const layer = (await api.request('POST', '/api/resource/', { body: vectorBody(a, 'Layer') })).body.id
      const under = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: layer }, display_name: 'x' } } })
      expectError(expect, under, 422, `${RES}.HierarchyError`)
      const noParent = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 987654 }, display_name: 'x' } } })
      expectError(expect, noParent, 422, `${RES}.HierarchyError`)
      expect((await api.request('GET', `/api/resource/${b}`)).body.resource.parent.id).toBe(other)
    },
  },
  {
    name: 'deletes recursively and answers {}; the root cannot be deleted',
    async run(api, expect) {
      const a = await createGroup(api, expect)
      const b = await createGroup(api, expect, a)
      const layer = (await api.request('POST', '/api/resource/', { body: vectorBody(b, 'Layer') })).body.id
      const del = await api.request('DELETE', `/api/resource/${a}`)
      expect(del.status).toBe(200)
      expect(del.body).toEqual({})
      for (const id of [a, b, layer]) {
        expectError(expect, await api.request('GET', `/api/resource/${id}`), 404, `${RES}.ResourceNotFound`)
      }
      expectError(expect, await api.request('DELETE', '/api/resource/0'), 422, `${RES}.ResourceRootDeleteError`)
      expectError(expect, await api.request('DELETE', `/api/resource/${a}`), 404, `${RES}.ResourceNotFound`)
    },
  },
  {
    name: 'a missing resource is 404 ResourceNotFound with its id',
    async run(api, expect) {
      const res = await api.request('GET', '/api/resource/987654')
      expectError(expect, res, 404, `${RES}.ResourceNotFound`)
      expect(res.body.data).toEqual({ resource_id: 987654 })
      expect(res.body.message).toBe('Resource with id = 987654 was not found.')
      expectError(expect, await api.request('PUT', '/api/resource/987654', { body: { resource: { display_name: 'x' } } }), 404, `${RES}.ResourceNotFound`)
    },
  },
  {
    name: 'bad bodies: malformed JSON is 400, wrong shapes and unknown classes are 422, nothing is stored',
    async run(api, expect) {
      const g = await createGroup(api, expect)
      expectError(expect, await api.request('POST', '/api/resource/', { raw: '{"resource": ' }), 400, 'nextgisweb.pyramid.tomb.exception.MalformedJSONBody')
      expectError(expect, await api.request('PUT', `/api/resource/${g}`, { raw: 'nope' }), 400, 'nextgisweb.pyramid.tomb.exception.MalformedJSONBody')
      const cases: unknown[] = [
        [], 'text', {}, { resource: { cls: 'resource_group', parent: { id: 'x' }, display_name: 'x' } },
        { resource: { cls: 'resource_group', display_name: 'x' } },
        { resource: { cls: 'resource_group', parent: { id: g } } },
        { resource: { cls: 'resource_group', parent: { id: g }, display_name: '' } },
        { resource: { cls: 'resource_group', parent: { id: g }, display_name: 5 } },
        { resource: { cls: 'no_such_class', parent: { id: g }, display_name: 'x' } },
        { resource: { cls: 'resource_group', parent: { id: g }, display_name: 'x' }, resmeta: { items: { a: [1] } } },
      ]
      for (const body of cases) {
        const res = await api.request('POST', '/api/resource/', { body })
        expectError(expect, res, 422, expect.stringMatching(/ValidationError$/) as unknown as string)
      }
      const badMessage = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 'x' }, display_name: 'x' } } })
      expect(badMessage.body.message).toBe('Expected `int`, got `str` - at `$.resource.parent.id`')
      expect((await api.request('GET', `/api/resource/?parent=${g}`)).body).toEqual([])
      const cls = await api.request('PUT', `/api/resource/${g}`, { body: { resource: { cls: 'vector_layer' } } })
      expectError(expect, cls, 422, VALIDATION)
    },
  },
  {
    name: 'resmeta items are stored, replaced and typed',
    async run(api, expect) {
      const id = (await api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: uniq('Meta') },
        resmeta: { items: { source: 'survey', year: 2024, ratio: 0.5, ok: true, none: null } } } })).body.id
      expect((await api.request('GET', `/api/resource/${id}`)).body.resmeta).toEqual({ items: { none: null, ok: true, ratio: 0.5, source: 'survey', year: 2024 } })
      await api.request('PUT', `/api/resource/${id}`, { body: { resmeta: { items: { source: 'office' } } } })
      expect((await api.request('GET', `/api/resource/${id}`)).body.resmeta).toEqual({ items: { source: 'office' } })
    },
  },
  {
    name: 'search filters by class, parent, names, subtree and resmeta; legacy array vs paged envelope',
    async run(api, expect) {
      const top = await createGroup(api, expect, 0, uniq('SearchTop'))
      const sub = await createGroup(api, expect, top, 'Sub')
      const layer = (await api.request('POST', '/api/resource/', { body: vectorBody(sub, 'Roads main') })).body.id
      const key = uniq('kn').replace(/\W/g, '_')
      const table = (await api.request('POST', '/api/resource/', { body: { resource: { cls: 'lookup_table', parent: { id: top }, display_name: 'roads table', keyname: key },
        lookup_table: { items: {} }, resmeta: { items: { theme: 'transport' } } } })).body.id
      const ids = (res: { body: Array<{ resource: { id: number } }> }) => res.body.map((r) => r.resource.id)
      const all = await api.request('GET', `/api/resource/search/?root=${top}`)
      expect(Array.isArray(all.body)).toBe(true)
      expect(ids(all).sort()).toEqual([top, sub, layer, table].sort())
      expect(Object.keys(all.body[0])).toEqual(['resource'])
      expect(ids(await api.request('GET', `/api/resource/search/?root=${top}&cls=vector_layer`))).toEqual([layer])
      expect(ids(await api.request('GET', `/api/resource/search/?parent=${top}`)).sort()).toEqual([sub, table].sort())
      expect(ids(await api.request('GET', `/api/resource/search/?parent_id=${top}&cls=lookup_table`))).toEqual([table])
      expect(ids(await api.request('GET', `/api/resource/search/?root=${top}&display_name__ilike=ROADS%25`)).sort()).toEqual([layer, table].sort())
      expect(ids(await api.request('GET', `/api/resource/search/?root=${top}&display_name__like=Roads%25`))).toEqual([layer])
      expect(ids(await api.request('GET', `/api/resource/search/?keyname=${key}`))).toEqual([table])
      expect(ids(await api.request('GET', `/api/resource/search/?root=${top}&resmeta__has[theme]=true`))).toEqual([table])
      expect(ids(await api.request('GET', `/api/resource/search/?root=${top}&resmeta__json[theme]=%22transport%22`))).toEqual([table])
      expect(ids(await api.request('GET', `/api/resource/search/?id__in=${layer},${table}`)).sort()).toEqual([layer, table].sort())
      const full = await api.request('GET', `/api/resource/search/?id=${layer}&serialization=full`)
      expect(full.body[0].feature_layer.geometry_type).toBe('POINT')
      const paged = await api.request('GET', `/api/resource/search/?root=${top}&limit=2&order=-name`)
      expect(paged.body).toMatchObject({ total_count: 4, limit: 2, offset: 0, order: ['-name'] })
      expect(paged.body.items.map((r: { resource: { display_name: string } }) => r.resource.display_name)).toEqual(['roads table', 'Sub'])
      const crumbs = await api.request('GET', `/api/resource/search/?id=${layer}&breadcrumb=true`)
      expect(crumbs.body.breadcrumb[String(layer)].map((b: { id: number }) => b.id)).toEqual([0, top, sub])
      expectError(expect, await api.request('GET', '/api/resource/search/?order=bogus'), 422, VALIDATION)
      expectError(expect, await api.request('GET', '/api/resource/search/?id=x'), 422, VALIDATION)
    },
  },
  {
    name: 'effective permissions: the administrator may do everything; the guest may not even read the root (the original\'s default ACL)',
    async run(api, expect) {
      const admin = await api.request('GET', '/api/resource/0/permission')
      expect(admin.body.resource).toEqual({ read: true, create: true, update: true, delete: true, manage_children: true, change_permissions: true })
      const guest = await api.request('GET', '/api/resource/0/permission', { auth: 'guest' })
      expect(guest.status).toBe(403)
      expect(guest.body).toMatchObject({ exception: 'nextgisweb.core.exception.InsufficientPermissions',
        data: { resource: { id: 0 }, permission: 'read', scope: 'resource' } })
      expect(guest.headers['www-authenticate']).toBeUndefined()
    },
  },
]
