import type { Api, ApiCase, Expect } from '../harness.ts'
import { expectError, uniq } from '../harness.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const NOT_FOUND = 'nextgisweb.feature_layer.exception.FeatureNotFound'
const RES_NOT_FOUND = 'nextgisweb.resource.exception.ResourceNotFound'

const ALL_FIELDS = [
  { keyname: 'name', datatype: 'STRING', label_field: true },
  { keyname: 'count', datatype: 'INTEGER' },
  { keyname: 'big', datatype: 'BIGINT' },
  { keyname: 'depth', datatype: 'REAL' },
  { keyname: 'day', datatype: 'DATE' },
  { keyname: 'at', datatype: 'TIME' },
  { keyname: 'stamp', datatype: 'DATETIME' },
  { keyname: 'ok', datatype: 'BOOLEAN' },
]

/**
 * A new layer; without versioning unless `versioned` (these cases check the plain feature
 * API, whose answers carry `vid`/`version` on versioned layers: see versioning.ts).
 */
export async function createLayer(api: Api, expect: Expect, geometryType = 'POINT', fields: unknown[] = ALL_FIELDS, srs = 3857,
  versioned = false) {
  const res = await api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: uniq('Features') },
    vector_layer: { srs: { id: srs }, geometry_type: geometryType, fields },
    feature_layer: { versioning: { enabled: versioned } } } })
  expect(res.status).toBe(201)
  return res.body.id as number
}

/** Adds `features` to layer `id` in one batch PATCH; returns their new ids in order. */
export async function addFeatures(api: Api, expect: Expect, id: number, features: unknown[], query = '') {
  const res = await api.request('PATCH', `/api/resource/${id}/feature/${query}`, { body: features })
  expect(res.status).toBe(200)
  return (res.body as { id: number }[]).map((f) => f.id)
}

async function post(api: Api, expect: Expect, layer: number, body: unknown, query = '') {
  const res = await api.request('POST', `/api/resource/${layer}/feature/${query}`, { body })
  expect(res.status).toBe(200)
  return res.body.id as number
}

async function count(api: Api, layer: number, query = '') {
  return (await api.request('GET', `/api/resource/${layer}/feature_count${query}`)).body
}

const ids = (res: { body: { id: number }[] }) => res.body.map((f) => f.id)

/** Five named points on a line for the listing cases. */
async function seed(api: Api, expect: Expect) {
  const layer = await createLayer(api, expect)
  const rows = [
    { name: 'Alpha', count: 5, depth: 1.5, day: '2020-01-01', ok: true },
    { name: 'beta', count: 3, depth: null, day: '2021-06-15', ok: false },
    { name: 'Gamma', count: 9, depth: 7.25, day: '2019-12-31', ok: true },
    { name: 'Ärger', count: 3, depth: 2, day: null, ok: null },
    { name: null, count: null, depth: 4, day: '2022-02-02', ok: false },
  ]
  const res = await api.request('PATCH', `/api/resource/${layer}/feature/?dt_format=iso`, {
    body: rows.map((fields, i) => ({ geom: `POINT(${i * 10} ${i * 10})`, fields })) })
  expect(res.status).toBe(200)
  return { layer, fids: ids(res) }
}

export const featureCases: ApiCase[] = [
  {
    name: 'a refused field list answers 422 and changes nothing; an accepted one keeps ids across renames',
    async run(api, expect) {
      const V = 'nextgisweb.core.exception.ValidationError'
      const layer = await createLayer(api, expect, 'POINT', [{ keyname: 'a', datatype: 'STRING' }, { keyname: 'b', datatype: 'INTEGER' }])
      const fieldsOf = async (id: number) => (await api.request('GET', `/api/resource/${id}`)).body.feature_layer.fields as
        Array<{ id: number; keyname: string; display_name: string; datatype: string }>
      const before = await fieldsOf(layer)
      const [a, b] = before
      const put = (fields: unknown[]) => api.request('PUT', `/api/resource/${layer}`, { body: { feature_layer: { fields } } })
      // A rename that collides with a field kept: refused after the rename was written in the same unit of work.
      const dup = await put([{ id: a!.id, keyname: 'b' }])
      expectError(expect, dup, 422, V)
      expect(dup.body.message).toContain("Field keyname 'b' is not unique within the layer.")
      const other = await createLayer(api, expect, 'POINT', [{ keyname: 'x', datatype: 'STRING' }])
      const foreign = (await fieldsOf(other))[0]!.id
      expect((await put([{ id: foreign, keyname: 'y' }])).body.message).toContain(`Field id = ${foreign} does not belong to this layer`)
      expect((await put([{ id: b!.id, datatype: 'STRING' }])).body.message).toContain('The data type of an existing field cannot be changed')
      expect((await put([{ keyname: 'c', datatype: 'STRING', lookup_table: { id: other } }])).body.message)
        .toContain(`Lookup table id = ${other} was not found`)
      // Refused in the middle of a list: the delete and the new field before it are not kept either.
      expectError(expect, await put([{ id: b!.id, delete: true }, { keyname: 'c', datatype: 'REAL' }, { keyname: 'a', datatype: 'REAL' }]), 422, V)
      expect(await fieldsOf(layer)).toEqual(before)
      const ok = await put([{ id: a!.id, keyname: 'a2', display_name: 'A two' }, { id: b!.id, delete: true }, { keyname: 'c', datatype: 'REAL' }])
      expect(ok.status).toBe(200)
      const after = await fieldsOf(layer)
      expect(after.map((f) => [f.keyname, f.display_name, f.datatype])).toEqual([['a2', 'A two', 'STRING'], ['c', 'c', 'REAL']])
      expect(after[0]!.id).toBe(a!.id)
      expect(after[1]!.id).toBeGreaterThan(b!.id)
    },
  },
  {
    name: 'creates a feature (POST → {id}) and reads it back with every field type in the default formats',
    async run(api, expect) {
      const layer = await createLayer(api, expect)
      const fid = await post(api, expect, layer, { geom: 'POINT (10 20)', fields: {
        name: 'Well #7', count: '42', big: '9007199254740993', depth: 12.5, day: { year: 2019, month: 6, day: 1 },
        at: { hour: 16, minute: 20, second: 0 }, stamp: '2019-06-01T16:20:05', ok: 'true' } })
      expect(fid).toBeGreaterThan(0)
      const res = await api.request('GET', `/api/resource/${layer}/feature/${fid}`)
      expect(res.status).toBe(200)
      expect(res.headers['content-type']).toBe('application/json')
      expect(Object.keys(res.body)).toEqual(['id', 'geom', 'fields', 'extensions'])
      expect(res.body).toEqual({ id: fid, geom: 'POINT(10 20)', fields: {
        name: 'Well #7', count: 42, big: '9007199254740993', depth: 12.5, day: { year: 2019, month: 6, day: 1 },
        at: { hour: 16, minute: 20, second: 0 }, stamp: { year: 2019, month: 6, day: 1, hour: 16, minute: 20, second: 5 }, ok: true },
        extensions: { attachment: null, description: null } })
    },
  },
  {
    name: 'serializes with dt_format, bigint_format, geom_format, geom, fields, extensions and label',
    async run(api, expect) {
      const layer = await createLayer(api, expect)
      const fid = await post(api, expect, layer, { geom: 'POINT(1 2)', fields: { name: 'A', big: 5, day: '2020-02-29',
        at: '07:08:09', stamp: '2020-02-29T07:08:09' } })
      const base = `/api/resource/${layer}/feature/${fid}`
      const iso = await api.request('GET', `${base}?dt_format=iso`)
      expect(iso.body.fields).toMatchObject({ day: '2020-02-29', at: '07:08:09', stamp: '2020-02-29T07:08:09', big: 5 })
      expect((await api.request('GET', `${base}?bigint_format=string`)).body.fields.big).toBe('5')
      expect((await api.request('GET', `${base}?bigint_format=number`)).body.fields.big).toBe(5)
      const gj = await api.request('GET', `${base}?geom_format=geojson`)
      expect(gj.body.geom).toEqual({ type: 'Point', coordinates: [1, 2] })
      const bare = await api.request('GET', `${base}?geom=no&fields=&extensions=`)
      expect(bare.body).toEqual({ id: fid, fields: {} })
      const some = await api.request('GET', `${base}?fields=name,day&extensions=description&label=true`)
      expect(Object.keys(some.body)).toEqual(['id', 'label', 'geom', 'fields', 'extensions'])
      expect(some.body).toMatchObject({ label: 'A', fields: { name: 'A', day: { year: 2020, month: 2, day: 29 } }, extensions: { description: null } })
      expect(Object.keys(some.body.fields)).toEqual(['name', 'day'])
      expect(Object.keys(some.body.extensions)).toEqual(['description'])
      const ll = await api.request('GET', `${base}?srs=4326`)
      expect(ll.body.geom).toMatch(/^POINT\(0\.0000089\d* 0\.0000179\d*\)$/)
      expectError(expect, await api.request('GET', `${base}?srs=999999`), 422, VALIDATION)
      expectError(expect, await api.request('GET', `${base}?dt_format=weird`), 422, VALIDATION)
    },
  },
  {
    name: 'changes a feature (PUT): only sent fields, geometry reprojected from ?srs=, extensions.description',
    async run(api, expect) {
      const layer = await createLayer(api, expect)
      const fid = await post(api, expect, layer, { geom: 'POINT(1 2)', fields: { name: 'A', count: 1 } })
      const put = await api.request('PUT', `/api/resource/${layer}/feature/${fid}?srs=4326`, {
        body: { id: 999, geom: 'POINT(10 20)', fields: { count: 2, nosuch: 1 }, extensions: { description: '<p>Hi</p>' } } })
      expect(put.status).toBe(200)
      expect(put.body).toEqual({ id: fid })
      const got = await api.request('GET', `/api/resource/${layer}/feature/${fid}`)
      const [x, y] = got.body.geom.slice(6, -1).split(' ').map(Number)
      expect(x).toBeCloseTo(1113194.9079, 3)
      expect(y).toBeCloseTo(2273030.9269, 3)
      expect(got.body.fields).toMatchObject({ name: 'A', count: 2 })
      expect(got.body.extensions.description).toBe('<p>Hi</p>')
      // geom omitted or null: unchanged; geom_null=true clears it.
      await api.request('PUT', `/api/resource/${layer}/feature/${fid}`, { body: { geom: null, extensions: { description: null } } })
      const same = await api.request('GET', `/api/resource/${layer}/feature/${fid}`)
      expect(same.body.geom).toBe(got.body.geom)
      expect(same.body.extensions.description).toBeNull()
      await api.request('PUT', `/api/resource/${layer}/feature/${fid}?geom_null=true`, { body: { geom: null } })
      expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}`)).body.geom).toBeNull()
      expectError(expect, await api.request('PUT', `/api/resource/${layer}/feature/${fid + 1000}`, { body: { fields: {} } }), 404, NOT_FOUND)
      // A description sent on create, in a batch with features without one.
      const batch = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [
        { geom: 'POINT(1 1)' }, { geom: 'POINT(2 2)', extensions: { description: 'second' } }] })
      const [plain, described] = ids(batch)
      expect((await api.request('GET', `/api/resource/${layer}/feature/${described}`)).body.extensions).toEqual({ attachment: null, description: 'second' })
      expect((await api.request('GET', `/api/resource/${layer}/feature/${plain}`)).body.extensions).toEqual({ attachment: null, description: null })
    },
  },
  {
    name: '?srs= takes any EPSG code of the index (2056, 3035, 32632) for reads, writes and geometry_info; grid-bound and unknown codes are 422',
    async run(api, expect) {
      const layer = await createLayer(api, expect)
      // Zürich (8.5417 47.3769) in CH1903+ / LV95, as PROJ computes it.
      const fid = await post(api, expect, layer, { geom: 'POINT(2683303.894 1247925.628)' }, '?srs=2056')
      const base = `/api/resource/${layer}/feature/${fid}`
      const coords = async (srs: number) => (await api.request('GET', `${base}?srs=${srs}&geom_format=geojson`)).body.geom.coordinates as number[]
      const [lon, lat] = await coords(4326)
      expect(lon).toBeCloseTo(8.5417, 5)
      expect(lat).toBeCloseTo(47.3769, 5)
      const [x, y] = await coords(3035)
      expect(x).toBeCloseTo(4210798.05, -1)
      expect(y).toBeCloseTo(2697006.94, -1)
      const utm = (await api.request('GET', `${base}/geometry_info?srs=32632`)).body
      expect(utm.type).toBe('Point')
      expect(utm.extent.minX).toBeCloseTo(465403.28, -1)
      const put = await api.request('PUT', `${base}?srs=2056`, { body: { geom: 'POINT(2600000 1200000)' } })
      expect(put.status).toBe(200)
      const [lon2, lat2] = await coords(4326)
      expect(lon2).toBeCloseTo(7.43864, 4)
      expect(lat2).toBeCloseTo(46.95108, 4)
      // OSGB 1936 needs an NTv2 grid that is not shipped: refused rather than guessed.
      expectError(expect, await api.request('GET', `${base}?srs=27700`), 422, VALIDATION)
      expectError(expect, await api.request('POST', `/api/resource/${layer}/feature/?srs=27700`, { body: { geom: 'POINT(1 2)' } }), 422, VALIDATION)
      expectError(expect, await api.request('GET', `${base}?srs=4000000`), 422, VALIDATION)
    },
  },
  {
    name: 'batch PATCH creates, changes and deletes in request order, all or nothing',
    async run(api, expect) {
      const layer = await createLayer(api, expect)
      const a = await post(api, expect, layer, { geom: 'POINT(0 0)', fields: { name: 'a' } })
      const b = await post(api, expect, layer, { geom: 'POINT(1 1)', fields: { name: 'b' } })
      const res = await api.request('PATCH', `/api/resource/${layer}/feature`, { body: [
        { geom: 'POINT(5 5)', fields: { name: 'new' } },
        { id: a, fields: { name: 'a2' } },
        { id: b, delete: true },
        { fields: { name: 'new2' } },
      ] })
      expect(res.status).toBe(200)
      expect(res.body).toEqual([{ id: expect.any(Number) }, { id: a }, { id: b }, { id: expect.any(Number) }])
      const list = await api.request('GET', `/api/resource/${layer}/feature/?fields=name&geom=no&extensions=`)
      expect(list.body.map((f: { fields: { name: string } }) => f.fields.name)).toEqual(['a2', 'new', 'new2'])
      // One bad item (a wrong value, or an unknown id) fails the whole batch; nothing is stored.
      const bad = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [
        { geom: 'POINT(7 7)', fields: { name: 'x' } }, { id: a, fields: { count: 'many' } }] })
      expectError(expect, bad, 422, VALIDATION)
      expect(bad.body.message).toContain('count')
      const missing = await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [
        { geom: 'POINT(7 7)', fields: { name: 'x' } }, { id: 999999, fields: { name: 'y' } }] })
      expectError(expect, missing, 404, NOT_FOUND)
      expect(await count(api, layer)).toEqual({ total_count: 3 })
      expectError(expect, await api.request('PATCH', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 1)' } }), 422, VALIDATION)
    },
  },
  {
    name: 'deletes one feature, a list, and all with an empty body',
    async run(api, expect) {
      const layer = await createLayer(api, expect)
      const created = await api.request('PATCH', `/api/resource/${layer}/feature/`, {
        body: [1, 2, 3, 4, 5].map((i) => ({ geom: `POINT(${i} ${i})` })) })
      const [f1, f2, f3] = ids(created)
      const one = await api.request('DELETE', `/api/resource/${layer}/feature/${f1}`)
      expect(one.status).toBe(200)
      expect(one.body).toEqual({ id: f1 })
      expectError(expect, await api.request('DELETE', `/api/resource/${layer}/feature/${f1}`), 404, NOT_FOUND)
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/${f1}`), 404, NOT_FOUND)
      const list = await api.request('DELETE', `/api/resource/${layer}/feature/`, { body: [{ id: f2 }, { id: f3 }] })
      expect(list.body).toEqual([f2, f3])
      expectError(expect, await api.request('DELETE', `/api/resource/${layer}/feature/`, { body: [{ id: f1 }] }), 404, NOT_FOUND)
      expect(await count(api, layer)).toEqual({ total_count: 2 })
      const all = await api.request('DELETE', `/api/resource/${layer}/feature/`)
      expect(all.status).toBe(200)
      expect(all.body).toBe(true)
      expect(await count(api, layer)).toEqual({ total_count: 0 })
      // fids are not reused after a delete.
      const next = await post(api, expect, layer, { geom: 'POINT(1 1)' })
      expect(next).toBeGreaterThan(Math.max(...ids(created)))
    },
  },
  {
    name: 'lists with limit/offset and order_by; offset alone is ignored',
    async run(api, expect) {
      const { layer, fids } = await seed(api, expect)
      const base = `/api/resource/${layer}/feature/`
      expect(ids(await api.request('GET', base))).toEqual(fids)
      expect(ids(await api.request('GET', `${base}?limit=2&offset=1`))).toEqual(fids.slice(1, 3))
      expect(ids(await api.request('GET', `${base}?offset=3`))).toEqual(fids)
      expect(ids(await api.request('GET', `${base}?limit=0`))).toEqual([])
      // count ascending with nulls last, ties by fid; descending puts nulls first.
      expect(ids(await api.request('GET', `${base}?order_by=count`))).toEqual([fids[1], fids[3], fids[0], fids[2], fids[4]])
      expect(ids(await api.request('GET', `${base}?order_by=-count,name`))).toEqual([fids[4], fids[2], fids[0], fids[1], fids[3]])
      // A page of that order (PostgreSQL picks a page's rows first, then reads their values: the order must hold through both).
      expect(ids(await api.request('GET', `${base}?order_by=-count,name&limit=3&offset=1`))).toEqual([fids[2], fids[0], fids[1]])
      expectError(expect, await api.request('GET', `${base}?order_by=nosuch`), 422, VALIDATION)
      expectError(expect, await api.request('GET', `${base}?limit=-1`), 422, VALIDATION)
    },
  },
  {
    name: 'filters with fld_<name>__<op> and id__<op>, and counts filtered features',
    async run(api, expect) {
      const { layer, fids } = await seed(api, expect)
      const q = async (query: string) => ids(await api.request('GET', `/api/resource/${layer}/feature/?${query}`))
      const [a, b, c, d, e] = fids as [number, number, number, number, number]
      expect(await q('fld_count=3')).toEqual([b, d])
      expect(await q('fld_count__eq=3')).toEqual([b, d])
      expect(await q('fld_count__ne=3')).toEqual([a, c])
      expect(await q('fld_count__gt=3')).toEqual([a, c])
      expect(await q('fld_count__ge=5')).toEqual([a, c])
      expect(await q('fld_count__lt=5')).toEqual([b, d])
      expect(await q('fld_count__le=5')).toEqual([a, b, d])
      expect(await q('fld_count__in=3,9')).toEqual([b, c, d])
      expect(await q('fld_count__notin=3,9')).toEqual([a])
      expect(await q('fld_depth__isnull=yes')).toEqual([b])
      expect(await q('fld_depth__isnull=no')).toEqual([a, c, d, e])
      expect(await q('fld_name__like=%a')).toEqual([a, b, c])
      expect(await q('fld_name__like=A%')).toEqual([a])
      expect(await q('fld_name__ilike=a%')).toEqual([a])
      expect(await q('fld_name__ilike=%GER')).toEqual([d])
      expect(await q('fld_name__ilike=ä%')).toEqual([d])
      expect(await q('fld_name__startswith=G')).toEqual([c])
      expect(await q('fld_day__ge=2020-01-01')).toEqual([a, b, e])
      expect(await q('fld_ok=true')).toEqual([a, c])
      expect(await q(`id=${c}`)).toEqual([c])
      expect(await q(`id__gt=${c}`)).toEqual([d, e])
      expect(await q(`id__in=${a},${e}`)).toEqual([a, e])
      expect(await q('fld_count=3&fld_name__ilike=b%')).toEqual([b])
      // Full-text: like is case-sensitive, ilike is not; like wins when both are given.
      expect(await q('like=amm')).toEqual([c])
      expect(await q('like=ALPHA')).toEqual([])
      expect(await q('ilike=ALPHA')).toEqual([a])
      expect(await q('like=Alp&ilike=gamma')).toEqual([a])
      expect(await count(api, layer, '?fld_count=3')).toEqual({ total_count: 5, filtered_count: 2 })
      expect(await count(api, layer)).toEqual({ total_count: 5 })
      const unknown = await api.request('GET', `/api/resource/${layer}/feature/?fld_nosuch=1`)
      expectError(expect, unknown, 422, VALIDATION)
      expect(unknown.body.message).toContain("Unknown field 'nosuch'")
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/?fld_count__regex=1`), 422, VALIDATION)
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/?fld_count=abc`), 422, VALIDATION)
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature_count?fld_nosuch=1`), 422, VALIDATION)
    },
  },
  {
    name: 'filters by intersects (WKT in the layer SRS) and reports extents in EPSG:4326',
    async run(api, expect) {
      const { layer, fids } = await seed(api, expect)
      const base = `/api/resource/${layer}/feature/`
      const box = encodeURIComponent('POLYGON((5 5, 25 5, 25 25, 5 25, 5 5))')
      expect(ids(await api.request('GET', `${base}?intersects=${box}`))).toEqual([fids[1], fids[2]])
      expect(ids(await api.request('GET', `${base}?intersects=${encodeURIComponent('LINESTRING(0 40, 40 0)')}`))).toEqual([fids[2]])
      expect(await count(api, layer, `?intersects=${box}`)).toEqual({ total_count: 5, filtered_count: 2 })
      expectError(expect, await api.request('GET', `${base}?intersects=POLYGON((1 2`), 422, VALIDATION)
      const ext = await api.request('GET', `/api/resource/${layer}/feature_extent`)
      expect(Object.keys(ext.body)).toEqual(['minLon', 'minLat', 'maxLon', 'maxLat'])
      expect(ext.body.minLon).toBe(0)
      expect(ext.body.maxLon).toBeCloseTo(40 / 111319.49079327357, 9)
      const filtered = await api.request('GET', `/api/resource/${layer}/feature_extent?fld_count=9`)
      expect(filtered.body.minLon).toBeCloseTo(20 / 111319.49079327357, 9)
      expect(filtered.body.minLon).toBe(filtered.body.maxLon)
      const whole = await api.request('GET', `/api/resource/${layer}/extent`)
      expect(whole.body).toEqual({ extent: ext.body })
      const empty = await createLayer(api, expect)
      expect((await api.request('GET', `/api/resource/${empty}/extent`)).body).toEqual({ extent: { minLon: null, minLat: null, maxLon: null, maxLat: null } })
      expect((await api.request('GET', `/api/resource/${empty}/feature_extent`)).body).toEqual({ minLon: null, minLat: null, maxLon: null, maxLat: null })
    },
  },
  {
    name: 'a feature extent and geometry_info (area, length, bounds in ?srs=)',
    async run(api, expect) {
      const layer = await createLayer(api, expect, 'POLYGON', [])
      const fid = await post(api, expect, layer, { geom: 'POLYGON((0 0, 30 0, 30 20, 0 20, 0 0),(1 1, 2 1, 2 2, 1 1))' })
      const ext = await api.request('GET', `/api/resource/${layer}/feature/${fid}/extent`)
      expect(ext.body.extent.minLon).toBe(0)
      expect(ext.body.extent.maxLon).toBeCloseTo(30 / 111319.49079327357, 9)
      const info = await api.request('GET', `/api/resource/${layer}/feature/${fid}/geometry_info?srs=3857`)
      expect(info.body).toEqual({ type: 'Polygon', area: 599.5, length: 100 + 2 + Math.SQRT2, extent: { minX: 0, minY: 0, maxX: 30, maxY: 20 } })
      const geo = await api.request('GET', `/api/resource/${layer}/feature/${fid}/geometry_info?srs=4326`)
      expect(geo.body.extent.maxX).toBeCloseTo(30 / 111319.49079327357, 9)
      expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}/geometry_info`)).body.area).toBe(599.5)
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/${fid + 99}/extent`), 404, NOT_FOUND)
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/${fid}/geometry_info?srs=12`), 422, VALIDATION)
      const points = await createLayer(api, expect, 'POINT', [])
      const pf = await post(api, expect, points, { geom: 'POINT(3 4)' })
      expect((await api.request('GET', `/api/resource/${points}/feature/${pf}/geometry_info`)).body)
        .toEqual({ type: 'Point', area: null, length: null, extent: { minX: 3, minY: 4, maxX: 3, maxY: 4 } })
      const nogeom = await post(api, expect, points, { fields: {} })
      expect((await api.request('GET', `/api/resource/${points}/feature/${nogeom}/extent`)).body).toEqual({ extent: null })
      expect((await api.request('GET', `/api/resource/${points}/feature/${nogeom}/geometry_info`)).body).toBeNull()
    },
  },
  {
    name: 'writes WKT as PostGIS ST_AsText does for multi and 3D geometries',
    async run(api, expect) {
      const cases: [string, string, string][] = [
        ['POINTZ', 'POINT Z (1 2 3)', 'POINT Z (1 2 3)'],
        ['LINESTRING', 'LINESTRING (0 0, 1 1.5)', 'LINESTRING(0 0,1 1.5)'],
        ['MULTIPOINT', 'MULTIPOINT ((1 2), (3 4))', 'MULTIPOINT(1 2,3 4)'],
        ['MULTILINESTRING', 'MULTILINESTRING ((0 0, 1 1), (2 2, 3 3))', 'MULTILINESTRING((0 0,1 1),(2 2,3 3))'],
        ['MULTIPOLYGONZ', 'MULTIPOLYGON Z (((0 0 1, 1 0 1, 1 1 1, 0 0 1)))', 'MULTIPOLYGON Z (((0 0 1,1 0 1,1 1 1,0 0 1)))'],
      ]
      for (const [type, input, output] of cases) {
        const layer = await createLayer(api, expect, type, [])
        const fid = await post(api, expect, layer, { geom: input })
        expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}`)).body.geom).toBe(output)
      }
      const layer = await createLayer(api, expect, 'LINESTRING', [])
      const fid = await post(api, expect, layer, { geom: { type: 'LineString', coordinates: [[0, 0], [2, 2]] } }, '?geom_format=geojson')
      expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}?geom_format=geojson`)).body.geom)
        .toEqual({ type: 'LineString', coordinates: [[0, 0], [2, 2]] })
    },
  },
  {
    name: 'rejects invalid geometry, another geometry type, wrong values and unknown SRS with 422, storing nothing',
    async run(api, expect) {
      const layer = await createLayer(api, expect)
      const bad = async (body: unknown, query = '', text?: string) => {
        const res = await api.request('POST', `/api/resource/${layer}/feature/${query}`, { body })
        expectError(expect, res, 422, VALIDATION)
        if (text) expect(res.body.message).toContain(text)
      }
      await bad({ geom: 'POINT(1' }, '', 'Geometry is not valid')
      await bad({ geom: 'BANANA(1 2)' }, '', 'Geometry is not valid')
      await bad({ geom: 42 })
      await bad({ geom: 'LINESTRING(0 0, 1 1)' }, '', 'LINESTRING')
      await bad({ geom: 'POINT Z (1 2 3)' }, '', 'POINTZ')
      await bad({ geom: 'POINT(1 2)', fields: { count: 'abc' } }, '', 'count')
      await bad({ geom: 'POINT(1 2)', fields: { count: 2 ** 31 } }, '', 'int32')
      await bad({ geom: 'POINT(1 2)', fields: { big: '9223372036854775808' } }, '', 'int64')
      await bad({ geom: 'POINT(1 2)', fields: { depth: 'deep' } }, '', 'depth')
      await bad({ geom: 'POINT(1 2)', fields: { name: 5 } }, '', 'name')
      await bad({ geom: 'POINT(1 2)', fields: { day: '2021-02-29' } }, '', 'day')
      await bad({ geom: 'POINT(1 2)', fields: { day: { year: 2021, month: 1 } } }, '', 'day')
      await bad({ geom: 'POINT(1 2)', fields: { day: { year: 2021, month: 1, day: 1, hour: 5 } } }, '', 'day')
      await bad({ geom: 'POINT(1 2)', fields: { at: '24:00:00' } }, '', 'at')
      await bad({ geom: 'POINT(1 2)', fields: { stamp: '2020-01-01T10:00:00Z' } }, '', 'stamp')
      await bad({ geom: 'POINT(1 2)', fields: { ok: 'maybe' } }, '', 'ok')
      await bad({ geom: 'POINT(1 2)' }, '?srs=999999', '999999')
      await bad({ geom: 'POLYGON((0 0, 1 0, 1 1))' })
      await bad([1, 2])
      expect(await count(api, layer)).toEqual({ total_count: 0 })
      const malformed = await api.request('POST', `/api/resource/${layer}/feature/`, { raw: '{nope' })
      expectError(expect, malformed, 400, 'nextgisweb.pyramid.tomb.exception.MalformedJSONBody')
      // The alternative spellings of values are accepted, and a date at midnight as GDAL's NGW driver sends it;
      // a fraction is not rounded but refused.
      await bad({ geom: 'POINT(1 2)', fields: { count: 2.6 } }, '', 'count')
      const fid = await post(api, expect, layer, { geom: 'POINT(1 2)', fields: { count: '3', ok: 1, big: -5,
        day: { year: 2021, month: 1, day: 2, hour: 0, minute: 0, second: 0 } } })
      expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}`)).body.fields).toMatchObject({ count: 3, ok: true, big: -5,
        day: { year: 2021, month: 1, day: 2 } })
    },
  },
  {
    name: 'reads are open to guests; writes need an administrator (403); unknown layers are 404',
    async run(api, expect) {
      const layer = await createLayer(api, expect)
      const fid = await post(api, expect, layer, { geom: 'POINT(1 2)' })
      const PERM = 'nextgisweb.core.exception.InsufficientPermissions'
      expect((await api.request('GET', `/api/resource/${layer}/feature/`)).status).toBe(200)
      expectError(expect, await api.request('POST', `/api/resource/${layer}/feature/`, { auth: 'guest', body: { geom: 'POINT(1 1)' } }), 403, PERM)
      expectError(expect, await api.request('PUT', `/api/resource/${layer}/feature/${fid}`, { auth: 'guest', body: { fields: {} } }), 403, PERM)
      expectError(expect, await api.request('PATCH', `/api/resource/${layer}/feature/`, { auth: 'guest', body: [] }), 403, PERM)
      expectError(expect, await api.request('DELETE', `/api/resource/${layer}/feature/${fid}`, { auth: 'guest' }), 403, PERM)
      expectError(expect, await api.request('DELETE', `/api/resource/${layer}/feature/`, { auth: 'guest' }), 403, PERM)
      expect(await count(api, layer)).toEqual({ total_count: 1 })
      expectError(expect, await api.request('GET', '/api/resource/999999/feature/'), 404, RES_NOT_FOUND)
      expectError(expect, await api.request('GET', '/api/resource/0/feature/'), 404, RES_NOT_FOUND)
      expectError(expect, await api.request('GET', '/api/resource/0/feature_count'), 404, RES_NOT_FOUND)
      expectError(expect, await api.request('POST', '/api/resource/999999/feature/', { body: { geom: 'POINT(1 1)' } }), 404, RES_NOT_FOUND)
      const routes = (await api.request('GET', '/api/component/pyramid/route')).body
      expect(routes['feature_layer.feature.collection']).toEqual(['/api/resource/{0}/feature/', 'id'])
      expect(routes['feature_layer.feature.item']).toEqual(['/api/resource/{0}/feature/{1}', 'id', 'fid'])
      for (const name of ['feature_layer.feature.item_extent', 'feature_layer.feature.count', 'feature_layer.feature.extent',
        'feature_layer.feature.geometry_info', 'layer.extent']) expect(routes[name]).toBeDefined()
    },
  },
  {
    name: 'adding, renaming and deleting fields keeps the stored features in step',
    async run(api, expect) {
      const layer = await createLayer(api, expect, 'POINT', [{ keyname: 'a', datatype: 'STRING' }, { keyname: 'b', datatype: 'INTEGER' }])
      const fid = await post(api, expect, layer, { geom: 'POINT(1 1)', fields: { a: 'x', b: 1 } })
      const fields = (await api.request('GET', `/api/resource/${layer}`)).body.feature_layer.fields
      const [fa, fb] = fields as { id: number }[]
      const put = await api.request('PUT', `/api/resource/${layer}`, { body: { feature_layer: { fields: [
        { id: fa!.id, keyname: 'renamed' }, { id: fb!.id, delete: true }, { keyname: 'c', datatype: 'REAL' }] } } })
      expect(put.status).toBe(200)
      const got = await api.request('GET', `/api/resource/${layer}/feature/${fid}`)
      expect(got.body.fields).toEqual({ renamed: 'x', c: null })
      await api.request('PUT', `/api/resource/${layer}/feature/${fid}`, { body: { fields: { c: 2.5, b: 7 } } })
      expect((await api.request('GET', `/api/resource/${layer}/feature/${fid}`)).body.fields).toEqual({ renamed: 'x', c: 2.5 })
      expect((await api.request('GET', `/api/resource/${layer}/feature/?fld_renamed=x`)).body).toHaveLength(1)
      // A deleted layer's features are gone with it.
      expect((await api.request('DELETE', `/api/resource/${layer}`)).status).toBe(200)
      expectError(expect, await api.request('GET', `/api/resource/${layer}/feature/`), 404, RES_NOT_FOUND)
    },
  },
]
