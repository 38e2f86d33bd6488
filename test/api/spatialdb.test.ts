/**
 * Layers from a team's own PostGIS database (issue 24; reference ngw-services §4) on the Node
 * host, against a throwaway PostgreSQL + PostGIS (test/pg): the connection and its password,
 * inspection, `fields: "update"` over every geometry and column type, the 4xx of wrong input,
 * connect failures with their reasons, the diagnostics, the permissions of §4.5, versioning
 * refused, and the feature API through HTTP on the remote table. What the service worker
 * answers (a 422) is the shared case test/api/cases/spatialdb.ts.
 */
import { readFileSync } from 'node:fs'
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net'
import type { Server } from 'node:http'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Api } from './harness.ts'
import { expectError, uniq } from './harness.ts'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import { connect, link, sync, type SyncEnv } from './sync-cases.ts'
import { createUser, rule, setRules } from './cases/permissions.ts'
import { createLayer } from './cases/feature.ts'
import { attachmentCasesOn, type PointLayerMaker } from './cases/attachment.ts'
import { cluster } from '../pg/shared.ts'
import type { Cluster } from '../pg/cluster.ts'
import { openSpatialDb } from '../../sw/postgres/external/index.ts'
import { outboundGuard, parseCidrs } from '../../sw/host/node-outbound.ts'
import type { OutpostApp } from '../../sw/app.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'
const DENIED = 'nextgisweb.core.exception.InsufficientPermissions'
const FORBIDDEN = 'nextgisweb.core.exception.ForbiddenError'
const EXTERNAL = 'nextgisweb.core.exception.ExternalDatabaseError'

/** Until helper sdbtable's layer.ts is merged, the feature API on the remote table answers 503 (a placeholder). */
const LAYER_BUILT = !readFileSync(new URL('../../sw/postgres/external/layer.ts', import.meta.url), 'utf8').includes('PLACEHOLDER')

/** PostGIS's names of the twelve geometry types, by NGW's. */
const TYPES: Record<string, string> = {
  POINT: 'Point', LINESTRING: 'LineString', POLYGON: 'Polygon', MULTIPOINT: 'MultiPoint', MULTILINESTRING: 'MultiLineString',
  MULTIPOLYGON: 'MultiPolygon', POINTZ: 'PointZ', LINESTRINGZ: 'LineStringZ', POLYGONZ: 'PolygonZ', MULTIPOINTZ: 'MultiPointZ',
  MULTILINESTRINGZ: 'MultiLineStringZ', MULTIPOLYGONZ: 'MultiPolygonZ',
}

const SETUP = `
  CREATE TABLE roads (id serial PRIMARY KEY, name text, lanes integer, small smallint, big bigint, ratio double precision,
    weight real, price numeric(10,2), code varchar(10), ch char(3), uid uuid, d date, t time, ts timestamp, tstz timestamptz,
    ok boolean, j json, jb jsonb, arr integer[], geom geometry(MultiLineString, 4326));
  INSERT INTO roads (name, lanes, geom) VALUES ('A1', 2, 'SRID=4326;MULTILINESTRING((0 0,1 1))'), ('B2', 1, 'SRID=4326;MULTILINESTRING((1 1,2 2))');
  CREATE VIEW roads_view AS SELECT * FROM roads;
  CREATE SCHEMA other;
  CREATE TABLE other.places (gid bigint PRIMARY KEY, label text, geom geometry(Point, 3857));
  CREATE TABLE untyped (id integer PRIMARY KEY, geom geometry);
  CREATE TABLE nopk (id integer, geom geometry(Point, 4326));
  CREATE TABLE textid (id text PRIMARY KEY, geom geometry(Point, 4326));
  CREATE TABLE nogeom (id integer PRIMARY KEY, name text);
  ${Object.entries(TYPES).map(([ngw, pgis]) => `CREATE TABLE g_${ngw.toLowerCase()} (id integer PRIMARY KEY, geom geometry(${pgis}, 3857));`).join('\n')}
`

let c: Cluster
let db: pg.Client
let database: string
let api: Api
let server: Server
let app: OutpostApp
let base: string

beforeAll(async () => {
  c = await cluster()
  database = new URL(await c.separateDatabase('team')).pathname.slice(1)
  db = new pg.Client({ host: c.host, port: c.port, user: 'postgres', database })
  await db.connect()
  await db.query(SETUP)
  // Short timeouts, so that the timeout case takes a second and a half, not the original's 15 s.
  ;({ api, server, app, base } = await startNodeApi({ app: { spatialDb: async () => openSpatialDb({ connectTimeoutMs: 1500, statementTimeoutMs: 2000 }) } }))
}, 60_000)

afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()))
  await (await app?.services())?.close()
  await db?.end()
})

/** The test database's parameters (over its Unix socket, where every role but `passwordRole`'s is trusted). */
const params = (extra: Record<string, unknown> = {}) => ({ hostname: c.host, port: c.port, database, username: 'postgres', password: 'unused', ...extra })

async function createConnection(extra: Record<string, unknown> = {}, permissions?: unknown[]): Promise<number> {
  const res = await api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'spatialdb_connection', parent: { id: 0 }, display_name: uniq('PostGIS'), ...(permissions ? { permissions } : {}) },
    spatialdb_connection: params(extra) } })
  expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined })
  return res.body.id
}

const postLayer = (connection: number, member: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'spatialdb_layer', parent: { id: 0 }, display_name: uniq('Layer') },
    spatialdb_layer: { connection: { id: connection }, column_id: 'id', column_geom: 'geom', srs: { id: 3857 }, fields: 'update', ...member }, ...extra } })

async function createTableLayer(connection: number, member: Record<string, unknown>): Promise<number> {
  const res = await postLayer(connection, member)
  expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined })
  return res.body.id
}

/** A 422 whose message contains `text`. */
function expect422(res: { status: number; body: any }, text: string) {
  expect({ status: res.status, exception: res.body?.exception, message: res.body?.message })
    .toMatchObject({ status: 422, exception: VALIDATION, message: expect.stringContaining(text) })
}

/** A 503 External database error whose detail contains `text`. */
function expect503(res: { status: number; body: any }, text: string) {
  expect({ status: res.status, exception: res.body?.exception, detail: res.body?.detail })
    .toMatchObject({ status: 503, exception: EXTERNAL, detail: expect.stringContaining(text) })
}

/** A TCP port nothing listens on (taken and given back). */
async function freePort(): Promise<number> {
  const s = createNetServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const port = (s.address() as { port: number }).port
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

describe('PostGIS connections (spatialdb_connection)', () => {
  it('keep their parameters, the password encrypted at rest and in clear to whoever may read the connection, and refuse bad ones', async () => {
    const id = await createConnection({ password: 'not-in-the-row' })
    const got = await api.request('GET', `/api/resource/${id}`)
    expect(got.body.resource.cls).toBe('spatialdb_connection')
    expect(got.body.spatialdb_connection).toEqual({ ...params({ password: 'not-in-the-row' }), port: String(c.port), sslmode: null })
    const row = await (await app.services()).data.read((tx) => tx.resources.get(id))
    expect(row!.data).not.toContain('not-in-the-row')
    // A port as digits or null; anything else is refused, as a missing required field or an unknown sslmode.
    expect((await api.request('PUT', `/api/resource/${id}`, { body: { spatialdb_connection: { port: '5433', sslmode: 'require' } } })).status).toBe(200)
    expect((await api.request('GET', `/api/resource/${id}`)).body.spatialdb_connection).toMatchObject({ port: '5433', sslmode: 'require' })
    for (const [member, text] of [[{ port: 'abc' }, 'Port must be'], [{ port: 70000 }, 'Port must be'], [{ sslmode: 'sometimes' }, 'Invalid sslmode'],
      [{ hostname: '' }, 'Must not be empty'], [{ nope: 1 }, 'unknown field']] as const) {
      expect422(await api.request('PUT', `/api/resource/${id}`, { body: { spatialdb_connection: member } }), text)
    }
    const noPassword = await api.request('POST', '/api/resource/', { body: {
      resource: { cls: 'spatialdb_connection', parent: { id: 0 }, display_name: uniq('PostGIS') },
      spatialdb_connection: { hostname: 'db', database: 'gis', username: 'ngw' } } })
    expect422(noPassword, 'missing required field `password`')

    // Someone who may read the resource but not the connection sees an empty member, and may not change it.
    const u = await createUser(api, expect)
    await setRules(api, expect, id, [rule(u.id, 'resource', 'read'), rule(u.id, 'resource', 'update')])
    expect((await api.request('GET', `/api/resource/${id}`, { auth: u.auth })).body.spatialdb_connection).toEqual({})
    const changed = await api.request('PUT', `/api/resource/${id}`, { auth: u.auth, body: { spatialdb_connection: { password: 'mine' } } })
    expectError(expect, changed, 403, FORBIDDEN)
    await setRules(api, expect, id, [rule(u.id, 'resource', 'read'), rule(u.id, 'resource', 'update'), rule(u.id, 'connection', 'read')])
    expect((await api.request('GET', `/api/resource/${id}`, { auth: u.auth })).body.spatialdb_connection.password).toBe('not-in-the-row')
    // connection.write needs connection.read (§5.4), as the original's scope says.
    await setRules(api, expect, id, [rule(u.id, 'resource', 'read'), rule(u.id, 'resource', 'update'), rule(u.id, 'connection', 'read'), rule(u.id, 'connection', 'write')])
    expect((await api.request('PUT', `/api/resource/${id}`, { auth: u.auth, body: { spatialdb_connection: { password: 'mine' } } })).status).toBe(200)
    expect((await api.request('GET', `/api/resource/${id}`)).body.spatialdb_connection.password).toBe('mine')
  })

  it('inspection lists schemas with their tables and views, and a table\'s columns with their types; an unknown table is a 422', async () => {
    const id = await createConnection()
    const res = await api.request('GET', `/api/resource/${id}/inspect/`)
    expect(res.status).toBe(200)
    const byName = new Map((res.body as { schema: string; tables: string[]; views: string[] }[]).map((s) => [s.schema, s]))
    expect(byName.get('public')!.tables).toEqual(expect.arrayContaining(['roads', 'untyped', 'nopk', 'textid', 'g_point', 'g_multipolygonz']))
    expect(byName.get('public')!.views).toEqual(['roads_view'])
    expect(byName.get('public')!.tables).not.toContain('spatial_ref_sys')
    expect(byName.get('other')).toEqual({ schema: 'other', tables: ['places'], views: [] })
    expect([...byName.keys()].filter((s) => s.startsWith('pg_') || s === 'information_schema')).toEqual([])

    const cols = await api.request('GET', `/api/resource/${id}/inspect/roads/`)
    expect(cols.status).toBe(200)
    expect(cols.body).toEqual(expect.arrayContaining([{ name: 'id', type: 'INTEGER' }, { name: 'code', type: 'VARCHAR(10)' },
      { name: 'ch', type: 'CHAR(3)' }, { name: 'price', type: 'NUMERIC(10, 2)' }, { name: 'big', type: 'BIGINT' },
      { name: 'ts', type: 'TIMESTAMP WITHOUT TIME ZONE' }, { name: 'geom', type: 'GEOMETRY(MULTILINESTRING, 4326)' }]))
    expect((cols.body as { name: string }[]).map((c) => c.name)).toEqual(['id', 'name', 'lanes', 'small', 'big', 'ratio', 'weight', 'price',
      'code', 'ch', 'uid', 'd', 't', 'ts', 'tstz', 'ok', 'j', 'jb', 'arr', 'geom'])
    expect((await api.request('GET', `/api/resource/${id}/inspect/places/?schema=other`)).body)
      .toEqual([{ name: 'gid', type: 'BIGINT' }, { name: 'label', type: 'TEXT' }, { name: 'geom', type: 'GEOMETRY(POINT, 3857)' }])
    expect((await api.request('GET', `/api/resource/${id}/inspect/untyped/`)).body[1]).toEqual({ name: 'geom', type: 'GEOMETRY(GEOMETRY, 0)' })
    expect422(await api.request('GET', `/api/resource/${id}/inspect/nope/`), 'Table (nope) not found in schema (public).')
    expect422(await api.request('GET', `/api/resource/${id}/inspect/roads/?schema=other`), 'Table (roads) not found in schema (other).')
  })

  it('connect failures say why: a refused connection, no socket, a wrong password, an unknown user, a missing database, a timeout', async () => {
    await c.passwordRole('scram_user', 'right-password')
    const inspect = async (extra: Record<string, unknown>) => api.request('GET', `/api/resource/${await createConnection(extra)}/inspect/`)
    const port = await freePort()
    expect503(await inspect({ hostname: '127.0.0.1', port }), `The database server at 127.0.0.1:${port} refused the connection`)
    expect503(await inspect({ port: port }), `There is no PostgreSQL socket in ${c.host}`)
    expect503(await inspect({ username: 'scram_user', password: 'wrong' }), "The database refused the password of user 'scram_user'.")
    expect((await inspect({ username: 'scram_user', password: 'right-password' })).status).toBe(200)
    expect503(await inspect({ username: 'nobody' }), "The database refused user 'nobody'")
    expect503(await inspect({ database: 'no_such_db' }), `Database 'no_such_db' does not exist on ${c.host}:${c.port}.`)
    // A server that accepts and never answers: the connect timeout (1.5 s here) ends the wait.
    const sockets: Socket[] = []
    const silent: NetServer = createNetServer((s) => { sockets.push(s) })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const started = Date.now()
      expect503(await inspect({ hostname: '127.0.0.1', port: (silent.address() as { port: number }).port }), 'did not answer within 1.5 s')
      expect(Date.now() - started).toBeLessThan(5000)
    } finally {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
    // Reading a table for a layer (fields: "update") is the client's to fix: a 422, as the original's "Cannot connect to the database!".
    const refused = await createConnection({ username: 'scram_user', password: 'wrong' })
    expect422(await postLayer(refused, { table: 'roads' }), "Cannot connect to the database! The database refused the password of user 'scram_user'.")
    // Serving a layer's features, the same failures are the 503 with the same reasons.
    const features = async (extra: Record<string, unknown>) => {
      const layer = await postLayer(await createConnection(extra), { table: 'roads', fields: 'keep', geometry_type: 'MULTILINESTRING', geometry_srid: 4326 })
      expect(layer.status).toBe(201)
      return api.request('GET', `/api/resource/${layer.body.id}/feature/`)
    }
    expect503(await features({ hostname: '127.0.0.1', port }), `The database server at 127.0.0.1:${port} refused the connection`)
    expect503(await features({ port }), `There is no PostgreSQL socket in ${c.host}`)
    expect503(await features({ username: 'scram_user', password: 'wrong' }), "The database refused the password of user 'scram_user'.")
    expect503(await features({ database: 'no_such_db' }), `Database 'no_such_db' does not exist on ${c.host}:${c.port}.`)
  })

  it('a changed connection is used at once (its pool made again); a deleted one goes', async () => {
    const id = await createConnection()
    expect((await api.request('GET', `/api/resource/${id}/inspect/`)).status).toBe(200)
    expect((await api.request('PUT', `/api/resource/${id}`, { body: { spatialdb_connection: { database: 'no_such_db' } } })).status).toBe(200)
    expect503(await api.request('GET', `/api/resource/${id}/inspect/`), "Database 'no_such_db' does not exist")
    expect((await api.request('PUT', `/api/resource/${id}`, { body: { spatialdb_connection: { database } } })).status).toBe(200)
    expect((await api.request('GET', `/api/resource/${id}/inspect/`)).status).toBe(200)
    expect((await api.request('DELETE', `/api/resource/${id}`)).status).toBe(200)
    expect((await api.request('GET', `/api/resource/${id}/inspect/`)).status).toBe(404)
  })

  it('the diagnostics check a stored or draft connection and layer (POST /api/component/postgis/check, and the spec\'s spatialdb spelling)', async () => {
    const id = await createConnection()
    for (const component of ['postgis', 'spatialdb']) {
      const res = await api.request('POST', `/api/component/${component}/check`, { body: { connection: { id } } })
      expect(res.status).toBe(200)
      // Over a Unix socket there is no TLS: a warning, not an error.
      expect(res.body.status).toBe('warning')
      expect(res.body.checks.map((g: { title: string; status: string }) => [g.title, g.status]))
        .toEqual([['PostgreSQL connection', 'warning'], ['PostGIS extension', 'success']])
      expect(res.body.checks[0].messages).toEqual(expect.arrayContaining([{ status: 'success', text: 'statement_timeout is 2s.' }]))
    }
    const layer = { schema: 'public', table: 'roads', column_id: 'id', column_geom: 'geom' }
    const draft = await api.request('POST', '/api/component/postgis/check', { body: { connection: params(), layer } })
    expect(draft.body.checks.map((g: { title: string; status: string }) => [g.title, g.status])).toEqual([['PostgreSQL connection', 'warning'],
      ['PostGIS extension', 'success'], ['Layer table', 'success'], ['ID column', 'success'], ['Geometry column', 'success'], ['Field columns', 'warning']])
    expect(draft.body.checks[5].messages).toContainEqual({ status: 'warning', text: "Column 'arr' (integer[]) has a type no field has: it is left out." })
    const stored = await createTableLayer(id, { table: 'roads' })
    const byId = await api.request('POST', '/api/component/postgis/check', { body: { layer: { id: stored } } })
    expect(byId.body.checks.map((g: { title: string }) => g.title)).toContain('Field columns')
    const missing = await api.request('POST', '/api/component/postgis/check', { body: { connection: { id }, layer: { ...layer, column_id: 'nope' } } })
    expect(missing.body.status).toBe('error')
    expect(missing.body.checks.find((g: { title: string }) => g.title === 'ID column')).toEqual({ group: 'layer', title: 'ID column', status: 'error',
      messages: [{ status: 'error', text: "Column 'nope' not found." }] })
    const bad = await api.request('POST', '/api/component/postgis/check', { body: { connection: params({ database: 'no_such_db' }) } })
    expect(bad.body).toEqual({ status: 'error', checks: [{ group: 'connection', title: 'PostgreSQL connection', status: 'error',
      messages: [{ status: 'error', text: `Database 'no_such_db' does not exist on ${c.host}:${c.port}.` }] }] })
    expectError(expect, await api.request('POST', '/api/component/postgis/check', { auth: 'guest', body: { connection: { id } } }), 403, FORBIDDEN)
    const u = await createUser(api, expect)
    expectError(expect, await api.request('POST', '/api/component/postgis/check', { auth: u.auth, body: { connection: { id } } }), 403, DENIED)
    expect422(await api.request('POST', '/api/component/postgis/check', { body: { connection: { hostname: 'x' } } }), 'missing required field `database`')
  })
})

describe('PostGIS layers (spatialdb_layer)', () => {
  it('fields: "update" reads every column type as the original maps it (§4.3) and leaves the others out; renamed fields keep their column', async () => {
    const conn = await createConnection()
    const id = await createTableLayer(conn, { table: 'roads' })
    const got = await api.request('GET', `/api/resource/${id}`)
    expect(got.body.spatialdb_layer).toEqual({ connection: { id: conn }, schema: 'public', table: 'roads', column_id: 'id', column_geom: 'geom',
      geometry_type: 'MULTILINESTRING', geometry_srid: 4326, srs: { id: 3857 } })
    const fields = got.body.feature_layer.fields as { id: number; keyname: string; datatype: string; text_search: boolean; display_name: string }[]
    expect(Object.fromEntries(fields.map((f) => [f.keyname, f.datatype]))).toEqual({ name: 'STRING', lanes: 'INTEGER', small: 'INTEGER',
      big: 'BIGINT', ratio: 'REAL', weight: 'REAL', price: 'REAL', code: 'STRING', ch: 'STRING', uid: 'STRING', d: 'DATE', t: 'TIME',
      ts: 'DATETIME', tstz: 'DATETIME', ok: 'BOOLEAN', j: 'STRING', jb: 'STRING' })
    expect(fields.filter((f) => !f.text_search).map((f) => f.keyname)).toEqual(['j', 'jb'])
    expect(got.body.feature_layer).toMatchObject({ geometry_type: 'MULTILINESTRING', srs: { id: 3857 }, versioning: null })
    expect(got.body.resource.interfaces).toContain('IFeatureLayer')

    // A field renamed here still reads its column, and stays (with its id) when the table's columns are read again.
    await db.query('CREATE TABLE evolving (id serial PRIMARY KEY, name text, lanes integer, small smallint, geom geometry(Point, 3857))')
    const ev = await createTableLayer(conn, { table: 'evolving' })
    const evFields = (await api.request('GET', `/api/resource/${ev}`)).body.feature_layer.fields as typeof fields
    const name = evFields.find((f) => f.keyname === 'name')!
    expect((await api.request('PUT', `/api/resource/${ev}`, { body: { feature_layer: { fields: [{ id: name.id, keyname: 'title', display_name: 'Title' }] } } })).status).toBe(200)
    await db.query('ALTER TABLE evolving ADD COLUMN extra text; ALTER TABLE evolving DROP COLUMN small')
    expect((await api.request('PUT', `/api/resource/${ev}`, { body: { spatialdb_layer: { fields: 'update' } } })).status).toBe(200)
    const again = (await api.request('GET', `/api/resource/${ev}`)).body.feature_layer.fields as typeof fields
    expect(again.map((f) => [f.id, f.keyname, f.display_name])).toEqual([[name.id, 'title', 'Title'],
      [evFields.find((f) => f.keyname === 'lanes')!.id, 'lanes', 'lanes'], [expect.any(Number), 'extra', 'extra']])
    await db.query("INSERT INTO evolving (name, lanes, extra, geom) VALUES ('n', 1, 'e', 'SRID=3857;POINT(0 0)')")
    const feature = (await api.request('GET', `/api/resource/${ev}/feature/`)).body[0]
    expect(feature.fields).toEqual({ title: 'n', lanes: 1, extra: 'e' })
    // A field added by hand has no column: refused, the layer unchanged.
    const before = (await api.request('GET', `/api/resource/${id}`)).body
    expect422(await api.request('PUT', `/api/resource/${id}`, { body: { feature_layer: { fields: [{ keyname: 'x', datatype: 'STRING' }] } } }),
      "Field 'x' has no column in the table")
    expect((await api.request('GET', `/api/resource/${id}`)).body).toEqual(before)
    // `fields` is write-only.
    expect(before.spatialdb_layer.fields).toBeUndefined()
  })

  it('reads every geometry type from geometry_columns, Z included', async () => {
    const conn = await createConnection()
    for (const ngw of Object.keys(TYPES)) {
      const id = await createTableLayer(conn, { table: `g_${ngw.toLowerCase()}` })
      const got = (await api.request('GET', `/api/resource/${id}`)).body
      expect([ngw, got.spatialdb_layer.geometry_type, got.spatialdb_layer.geometry_srid, got.feature_layer.fields]).toEqual([ngw, ngw, 3857, []])
    }
    // Another schema, a bigint id.
    const places = await createTableLayer(conn, { schema: 'other', table: 'places', column_id: 'gid' })
    expect((await api.request('GET', `/api/resource/${places}`)).body.feature_layer.fields.map((f: { keyname: string }) => f.keyname)).toEqual(['label'])
  })

  it('wrong input is a 422 naming what is wrong, and nothing is created', async () => {
    const conn = await createConnection()
    const vector = await createLayer(api, expect)
    const count = async () => ((await api.request('GET', '/api/resource/?parent=0')).body as { resource: { cls: string } }[])
      .filter((r) => r.resource.cls === 'spatialdb_layer').length
    const before = await count()
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ table: 'nope' }, "Table 'public.nope' not found!"],
      [{ table: 'roads', column_id: 'nope' }, "Column 'nope' not found!"],
      [{ table: 'roads', column_geom: 'nope' }, "Column 'nope' not found!"],
      [{ table: 'textid' }, 'To use column as ID it should have integer type!'],
      [{ table: 'nopk' }, "Column 'id' of table 'public.nopk' is neither its primary key nor unique"],
      [{ table: 'roads', geometry_srid: 3857 }, 'SRID in geometry_columns table does not match specified!'],
      [{ table: 'roads', geometry_type: 'POINT' }, 'Geometry type in geometry_columns table does not match specified!'],
      [{ table: 'untyped' }, 'SRID missing in geometry_columns table! You should specify it manually.'],
      [{ table: 'untyped', geometry_srid: 4326 }, 'Geometry type missing in geometry_columns table! You should specify it manually.'],
      [{ table: 'roads', geometry_srid: 0 }, '0 is an invalid SRID.'],
      [{ table: 'roads', geometry_type: 'CIRCLE' }, "Invalid geometry type 'CIRCLE'"],
      [{ table: 'nogeom', column_geom: 'name' }, "Column 'name' is not a geometry column"],
      [{ table: 'roads', fields: 'sometimes' }, 'Invalid value of fields'],
      [{ table: 'roads', fields: 'keep' }, 'give geometry_type and geometry_srid'],
      [{ table: 'roads', connection: { id: vector } }, `Resource id = ${vector} is not a PostGIS connection`],
      [{ table: undefined }, 'missing required field `table`'],
      [{ table: 'roads', srs: { id: 999999 } }, 'Spatial reference system id = 999999 is not known'],
    ]
    for (const [member, text] of cases) expect422(await postLayer(conn, member), text)
    expect(await count()).toBe(before)
    // Given both, an untyped column is published.
    expect((await postLayer(conn, { table: 'untyped', geometry_srid: 4326, geometry_type: 'POINT' })).status).toBe(201)
  })

  it('a dropped table: reading its columns again and its features name it (422)', async () => {
    await db.query('CREATE TABLE dropme (id integer PRIMARY KEY, v text, geom geometry(Point, 3857))')
    const id = await createTableLayer(await createConnection(), { table: 'dropme' })
    await db.query('DROP TABLE dropme')
    expect422(await api.request('PUT', `/api/resource/${id}`, { body: { spatialdb_layer: { fields: 'update' } } }), "Table 'public.dropme' not found!")
    expect422(await api.request('GET', `/api/resource/${id}/feature/`), "Table 'public.dropme' not found!")
  })

  it('a layer whose connection was deleted says so (422) until it is pointed at another', async () => {
    const conn = await createConnection()
    const id = await createTableLayer(conn, { table: 'roads' })
    expect((await api.request('DELETE', `/api/resource/${conn}`)).status).toBe(200)
    expect422(await api.request('GET', `/api/resource/${id}/feature/`), `The connection of layer ${id} (resource id = ${conn}) is gone`)
    const other = await createConnection()
    expect((await api.request('PUT', `/api/resource/${id}`, { body: { spatialdb_layer: { connection: { id: other } } } })).status).toBe(200)
    expect((await api.request('GET', `/api/resource/${id}`)).body.spatialdb_layer.connection).toEqual({ id: other })
    expect((await api.request('GET', `/api/resource/${id}/feature/`)).status).not.toBe(422)
  })

  it('versioning is refused as the original refuses it', async () => {
    const conn = await createConnection()
    expect422(await postLayer(conn, { table: 'roads' }, { feature_layer: { versioning: { enabled: true } } }), 'Versioning not supported')
    const id = await createTableLayer(conn, { table: 'roads' })
    expect422(await api.request('PUT', `/api/resource/${id}`, { body: { feature_layer: { versioning: { enabled: true } } } }), 'Versioning not supported')
    expect((await api.request('PUT', `/api/resource/${id}`, { body: { feature_layer: { versioning: { enabled: false } } } })).status).toBe(200)
    expect((await api.request('GET', `/api/resource/${id}`)).body.feature_layer.versioning).toBeNull()
  })

  it('inspecting, reading the table (fields: "update") and reading the layer\'s data need connection.connect (§4.5)', async () => {
    const u = await createUser(api, expect)
    const conn = await createConnection({}, [rule(u.id, 'resource', 'read')])
    const layer = await createTableLayer(conn, { table: 'roads' })
    await setRules(api, expect, layer, [rule(u.id, 'resource', 'read'), rule(u.id, 'resource', 'update'), rule(u.id, 'data', 'read'), rule(u.id, 'data', 'write')])
    expectError(expect, await api.request('GET', `/api/resource/${conn}/inspect/`, { auth: u.auth }), 403, DENIED)
    expectError(expect, await api.request('GET', `/api/resource/${conn}/inspect/roads/`, { auth: u.auth }), 403, DENIED)
    const fields = await api.request('PUT', `/api/resource/${layer}`, { auth: u.auth, body: { spatialdb_layer: { fields: 'update' } } })
    expectError(expect, fields, 403, FORBIDDEN)
    expect(fields.body.message).toContain(`'connect' permission in scope 'connection' on resource id = ${conn}`)
    // Every read of the layer's data: refused as lacking data.read on the layer, although the rule grants it (the original's words).
    const refusal = { resource: { id: layer }, permission: 'read', scope: 'data' }
    for (const path of [`/api/resource/${layer}/feature/`, `/api/resource/${layer}/feature_count`, `/api/resource/${layer}/export?format=GeoJSON`,
      `/api/component/feature_layer/mvt?resource=${layer}&z=0&x=0&y=0`, `/api/resource/${layer}/geojson`]) {
      const res = await api.request('GET', path, { auth: u.auth })
      expectError(expect, res, 403, DENIED)
      expect([path, res.body.data]).toEqual([path, refusal])
    }
    // The effective permissions say so too.
    expect((await api.request('GET', `/api/resource/${layer}/permission?user=${u.id}`)).body.data).toEqual({ read: false, write: false })
    expect((await api.request('GET', `/api/resource/${layer}/permission`, { auth: u.auth })).body.data).toEqual({ read: false, write: false })
    const identified = await api.request('POST', '/api/feature_layer/identify', { auth: u.auth,
      body: { geom: 'POLYGON((0 0,2 0,2 2,0 2,0 0))', srs: 3857, layers: [layer] } })
    expect(identified.body[layer]).toEqual({ error: 'Forbidden' })
    // A style draws its layer's data: the same need, although the style's own rules grant data.read.
    const style = await api.request('POST', '/api/resource/', { body: { resource: { cls: 'qgis_vector_style', parent: { id: layer }, display_name: uniq('Style') } } })
    expect(style.status).toBe(201)
    await setRules(api, expect, style.body.id, [rule(u.id, 'resource', 'read'), rule(u.id, 'data', 'read')])
    const tile = `/api/component/render/tile?resource=${style.body.id}&z=0&x=0&y=0`
    const drawn = await api.request('GET', tile, { auth: u.auth })
    expectError(expect, drawn, 403, DENIED)
    expect(drawn.body.data).toEqual({ resource: { id: style.body.id }, permission: 'read', scope: 'data' })
    // With connect on the connection every one of them passes the check.
    await setRules(api, expect, conn, [rule(u.id, 'resource', 'read'), rule(u.id, 'connection', 'connect')])
    expect((await api.request('GET', `/api/resource/${conn}/inspect/`, { auth: u.auth })).status).toBe(200)
    expect((await api.request('GET', `/api/resource/${layer}/permission?user=${u.id}`)).body.data).toEqual({ read: true, write: true })
    expect((await api.request('PUT', `/api/resource/${layer}`, { auth: u.auth, body: { spatialdb_layer: { fields: 'update' } } })).status).toBe(200)
    expect((await api.request('GET', `/api/resource/${layer}/feature/`, { auth: u.auth })).status).not.toBe(403)
    expect((await api.request('GET', tile, { auth: u.auth })).status).not.toBe(403)
  })
})

describe.runIf(LAYER_BUILT)('the feature API on a PostGIS layer (through sw/postgres/external/layer.ts)', () => {
  let layer: number
  beforeAll(async () => {
    await db.query(`CREATE TABLE api_points (id serial PRIMARY KEY, name text, n integer, geom geometry(Point, 3857));
      INSERT INTO api_points (name, n, geom) VALUES ('a', 1, 'SRID=3857;POINT(1 1)'), ('b', 2, 'SRID=3857;POINT(2 2)'), ('c', 3, 'SRID=3857;POINT(3 3)')`)
    layer = await createTableLayer(await createConnection(), { table: 'api_points' })
  })

  it('reads, filters, orders and pages the remote table, and writes from both sides are seen at once', async () => {
    const all = await api.request('GET', `/api/resource/${layer}/feature/?order_by=-n`)
    expect(all.status).toBe(200)
    expect(all.body.map((f: { fields: { name: string } }) => f.fields.name)).toEqual(['c', 'b', 'a'])
    expect(all.body[0].geom).toBe('POINT(3 3)')
    const filtered = await api.request('GET', `/api/resource/${layer}/feature/?fld_n__ge=2&limit=1&order_by=n`)
    expect(filtered.body.map((f: { fields: { name: string } }) => f.fields.name)).toEqual(['b'])
    expect((await api.request('GET', `/api/resource/${layer}/feature_count`)).body).toMatchObject({ total_count: 3 })
    const extent = await api.request('GET', `/api/resource/${layer}/extent`)
    expect(extent.status).toBe(200)
    expect(Object.keys(extent.body.extent).sort()).toEqual(['maxLat', 'maxLon', 'minLat', 'minLon'])
    const created = await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT (4 4)', fields: { name: 'd', n: 4 } } })
    expect(created.status).toBe(200)
    expect((await db.query('SELECT name FROM api_points WHERE id = $1', [created.body.id])).rows).toEqual([{ name: 'd' }])
    await db.query("INSERT INTO api_points (name, n, geom) VALUES ('e', 5, 'SRID=3857;POINT(5 5)')")
    expect((await api.request('GET', `/api/resource/${layer}/feature/?fld_name=e`)).body).toHaveLength(1)
    expect((await api.request('PUT', `/api/resource/${layer}/feature/${created.body.id}`, { body: { fields: { n: 40 } } })).status).toBe(200)
    expect((await db.query('SELECT n FROM api_points WHERE id = $1', [created.body.id])).rows).toEqual([{ n: 40 }])
    expect((await api.request('DELETE', `/api/resource/${layer}/feature/${created.body.id}`)).status).toBe(200)
    expect((await db.query('SELECT count(*)::int AS n FROM api_points WHERE id = $1', [created.body.id])).rows).toEqual([{ n: 0 }])
  })

  it('serves a vector tile and an export of the remote table', async () => {
    const tile = await api.request('GET', `/api/component/feature_layer/mvt?resource=${layer}&z=0&x=0&y=0`)
    expect(tile.status).toBe(200)
    expect(tile.headers['content-type']).toContain('application/vnd.mapbox-vector-tile')
    const geojson = await api.request('GET', `/api/resource/${layer}/geojson`)
    expect(geojson.status).toBe(200)
    expect(geojson.text).toContain('"name":"a"')
  })
})

/** Uploads `text` as a file; its upload record. */
async function uploadText(text: string, name: string) {
  const res = await api.request('POST', '/api/component/file_upload/', { form: [{ name: 'file', filename: name, type: 'text/plain',
    base64: Buffer.from(text).toString('base64') }] })
  expect(res.status).toBe(200)
  return res.body.upload_meta[0]
}

describe('PostGIS connections of a host listening beyond loopback (the outbound rule, --allow-remote)', () => {
  /** An in-process host with the rule of `--host 0.0.0.0` and `--allow-remote` ranges `allow`. */
  const exposedHost = (allow: string[]) => startNodeApi({ app: {
    spatialDb: async () => openSpatialDb({ connectTimeoutMs: 1500, guard: outboundGuard(parseCidrs(allow)) }) } })

  it('refuses a Unix socket, loopback and private addresses in any spelling and names resolving to them, before connecting (403 naming the rule)', async () => {
    const host = await exposedHost([])
    // A listener on loopback that counts who reaches it: nothing may.
    let arrived = 0
    const listener = createNetServer((s) => { arrived++; s.destroy() })
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    const port = (listener.address() as { port: number }).port
    try {
      const on = host.api
      for (const hostname of [c.host, '127.0.0.1', 'localhost', '2130706433', '::ffff:127.0.0.1', '10.0.0.1', '169.254.169.254']) {
        const conn = await on.request('POST', '/api/resource/', { body: {
          resource: { cls: 'spatialdb_connection', parent: { id: 0 }, display_name: uniq('PostGIS') },
          spatialdb_connection: { ...params(), hostname, port: hostname === c.host ? c.port : port } } })
        expect(conn.status, hostname).toBe(201)
        const inspect = await on.request('GET', `/api/resource/${conn.body.id}/inspect/`)
        expect({ hostname, status: inspect.status, exception: inspect.body.exception }).toEqual({ hostname, status: 403, exception: FORBIDDEN })
        expect(inspect.body.message).toContain('not allowed from this server')
        expect(inspect.body.message).toContain('--allow-remote')
        if (hostname === c.host) expect(inspect.body.message).toContain('Unix socket')
        // The table is not read either (fields: "update"), and a layer given its geometry serves no features.
        const layer = await on.request('POST', '/api/resource/', { body: {
          resource: { cls: 'spatialdb_layer', parent: { id: 0 }, display_name: uniq('Layer') },
          spatialdb_layer: { connection: { id: conn.body.id }, table: 'roads', column_id: 'id', column_geom: 'geom', srs: { id: 3857 }, fields: 'update' } } })
        expect(layer.status, hostname).toBe(403)
        const kept = await on.request('POST', '/api/resource/', { body: {
          resource: { cls: 'spatialdb_layer', parent: { id: 0 }, display_name: uniq('Layer') },
          spatialdb_layer: { connection: { id: conn.body.id }, table: 'roads', column_id: 'id', column_geom: 'geom', srs: { id: 3857 },
            geometry_type: 'MULTILINESTRING', geometry_srid: 4326 } } })
        expect(kept.status).toBe(201)
        const features = await on.request('GET', `/api/resource/${kept.body.id}/feature/`)
        expect({ hostname, status: features.status, message: features.body.message })
          .toMatchObject({ hostname, status: 403, message: expect.stringContaining('not allowed from this server') })
      }
      // The diagnostics say it as their connection check's error.
      const check = await on.request('POST', '/api/component/postgis/check', { body: { connection: params({ hostname: 'localhost', port }) } })
      expect(check.status).toBe(200)
      expect(check.body.checks[0]).toMatchObject({ status: 'error', messages: [{ status: 'error', text: expect.stringContaining('not allowed from this server') }] })
      expect(arrived).toBe(0)
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()))
      await new Promise<void>((resolve) => host.server.close(() => resolve()))
      await (await host.app.services()).close()
    }
  })

  it('--allow-remote 127.0.0.1 lets the Unix socket and loopback through', async () => {
    const host = await exposedHost(['127.0.0.1/32'])
    try {
      const conn = await host.api.request('POST', '/api/resource/', { body: {
        resource: { cls: 'spatialdb_connection', parent: { id: 0 }, display_name: uniq('PostGIS') }, spatialdb_connection: params() } })
      const inspect = await host.api.request('GET', `/api/resource/${conn.body.id}/inspect/`)
      expect(inspect.status).toBe(200)
      expect(inspect.body.map((s: { schema: string }) => s.schema)).toContain('public')
    } finally {
      await new Promise<void>((resolve) => host.server.close(() => resolve()))
      await (await host.app.services()).close()
    }
  })
})

describe.runIf(LAYER_BUILT)('attachments and descriptions of a PostGIS layer\'s features (kept by us, keyed by fid)', () => {
  let tables = 0
  /** A layer over a new table of points with a `name` column, as the vector layers' attachment cases make theirs. */
  const pgPoints: PointLayerMaker = async () => {
    const table = `att_points_${++tables}`
    await db.query(`CREATE TABLE ${table} (id serial PRIMARY KEY, name text, geom geometry(Point, 3857))`)
    return createTableLayer(await createConnection(), { table })
  }
  for (const c of attachmentCasesOn(pgPoints)) it(c.name, () => c.run(api, expect))

  it('descriptions are read and written through the feature API, the table untouched; a row deleted outside the API leaves none to its id\'s next row', async () => {
    await db.query(`CREATE TABLE described (id serial PRIMARY KEY, name text, geom geometry(Point, 3857));
      INSERT INTO described (name, geom) VALUES ('a', 'SRID=3857;POINT(1 1)'), ('b', 'SRID=3857;POINT(2 2)')`)
    const layer = await createTableLayer(await createConnection(), { table: 'described' })
    const feature = `/api/resource/${layer}/feature/`
    expect((await api.request('PUT', `${feature}1`, { body: { fields: { name: 'a2' }, extensions: { description: '<p>One</p>' } } })).status).toBe(200)
    expect((await api.request('GET', `${feature}1`)).body).toMatchObject({ fields: { name: 'a2' }, extensions: { description: '<p>One</p>', attachment: null } })
    const listed = await api.request('GET', `${feature}?order_by=name&extensions=description`)
    expect(listed.body.map((f: { extensions: { description: string | null } }) => f.extensions.description)).toEqual(['<p>One</p>', null])
    // A new feature with its description; the table has no column for it.
    const created = await api.request('POST', feature, { body: { geom: 'POINT(3 3)', fields: { name: 'c' }, extensions: { description: 'Three' } } })
    expect(created.status).toBe(200)
    expect((await api.request('GET', `${feature}${created.body.id}`)).body.extensions.description).toBe('Three')
    expect((await db.query('SELECT id, name FROM described ORDER BY id')).rows).toEqual([{ id: 1, name: 'a2' }, { id: 2, name: 'b' }, { id: 3, name: 'c' }])
    // A PUT without extensions keeps it; null clears it.
    expect((await api.request('PUT', `${feature}1`, { body: { fields: { name: 'a3' } } })).status).toBe(200)
    expect((await api.request('GET', `${feature}1`)).body.extensions.description).toBe('<p>One</p>')
    expect((await api.request('PUT', `${feature}1`, { body: { extensions: { description: null } } })).status).toBe(200)
    expect((await api.request('GET', `${feature}1`)).body.extensions.description).toBeNull()
    // A batch PATCH of changed features (one updateMany) sets and clears descriptions as the PUTs do.
    expect((await api.request('PUT', `${feature}3`, { body: { extensions: { description: 'Three' } } })).status).toBe(200)
    expect((await api.request('PATCH', feature, { body: [{ id: 1, fields: { name: 'a4' }, extensions: { description: 'batch one' } },
      { id: 3, extensions: { description: null } }] })).status).toBe(200)
    const batch = await api.request('GET', `${feature}?order_by=name&extensions=description`)
    expect(batch.body.map((f: { fields: { name: string }; extensions: { description: string | null } }) => [f.fields.name, f.extensions.description]))
      .toEqual([['a4', 'batch one'], ['b', null], ['c', null]])
    // Row 2 gets an attachment and a description, is deleted by another client, and the next feature made through
    // the API takes id 2 again: it starts without either.
    expect((await api.request('POST', `${feature}2/attachment/`, { body: { file_upload: await uploadText('x', 'x.txt') } })).status).toBe(200)
    expect((await api.request('PUT', `${feature}2`, { body: { extensions: { description: 'old' } } })).status).toBe(200)
    await db.query("DELETE FROM described WHERE id = 2; SELECT setval('described_id_seq', 1)")
    const reused = await api.request('POST', feature, { body: { geom: 'POINT(2 2)', fields: { name: 'b2' } } })
    expect(reused.body).toEqual({ id: 2 })
    expect((await api.request('GET', `${feature}2`)).body.extensions).toEqual({ attachment: null, description: null })
  })

  it('deleting the layer deletes its attachments\' files and its features\' extras; deleting all features deletes them too', async () => {
    const layer = await pgPoints(api, expect)
    const services = await app.services()
    const col = (fid: number) => `/api/resource/${layer}/feature/${fid}/attachment/`
    const fids: number[] = []
    for (const name of ['a', 'b']) {
      const res = await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 1)', fields: { name },
        extensions: { description: name, attachment: [{ file_upload: await uploadText(name, `${name}.txt`) }] } } })
      expect(res.status).toBe(200)
      fids.push(res.body.id)
    }
    expect((await api.request('GET', col(fids[0]!))).body).toHaveLength(1)
    expect(await services.data.blobs.listBlobs(`attachment-${layer}-`)).toHaveLength(2)
    expect(await services.data.features.stored()).toContain(layer)
    // DELETE of the collection: the table's rows and our extras.
    expect((await api.request('DELETE', `/api/resource/${layer}/feature/`)).status).toBe(200)
    expect(await services.data.blobs.listBlobs(`attachment-${layer}-`)).toEqual([])
    const again = await api.request('POST', `/api/resource/${layer}/feature/`, { body: { geom: 'POINT(1 1)', fields: { name: 'c' },
      extensions: { attachment: [{ file_upload: await uploadText('c', 'c.txt') }] } } })
    expect(await services.data.blobs.listBlobs(`attachment-${layer}-`)).toHaveLength(1)
    expect((await api.request('GET', col(again.body.id))).body).toHaveLength(1)
    expect((await api.request('DELETE', `/api/resource/${layer}`)).status).toBe(200)
    expect(await services.data.blobs.listBlobs(`attachment-${layer}-`)).toEqual([])
    expect(await services.data.features.stored()).not.toContain(layer)
  })
})

describe.runIf(LAYER_BUILT)('a PostGIS layer taken offline by sync (a plain remote without versions)', () => {
  it('is linked from another host, pulled whole, and local edits reach the table', async () => {
    await db.query(`CREATE TABLE offline_points (id serial PRIMARY KEY, name text, geom geometry(Point, 3857));
      INSERT INTO offline_points (name, geom) VALUES ('x', 'SRID=3857;POINT(1 1)'), ('y', 'SRID=3857;POINT(2 2)')`)
    const remote = await createTableLayer(await createConnection(), { table: 'offline_points' })
    const local = await startNodeApi()
    try {
      const env = { local: local.api, remote: api, remoteUrl: base, remotePassword: NODE_ADMIN_PASSWORD } as unknown as SyncEnv
      const layer = await link(env, expect, await connect(env, expect), remote)
      const pulled = await local.api.request('GET', `/api/resource/${layer}/feature/?order_by=name`)
      expect(pulled.body.map((f: { fields: { name: string } }) => f.fields.name)).toEqual(['x', 'y'])
      const id = pulled.body[0].id
      expect((await local.api.request('PUT', `/api/resource/${layer}/feature/${id}`, { body: { fields: { name: 'x2' } } })).status).toBe(200)
      await sync(env, expect, layer)
      expect((await db.query('SELECT name FROM offline_points ORDER BY name')).rows.map((r) => r.name)).toEqual(['x2', 'y'])
      await db.query("INSERT INTO offline_points (name, geom) VALUES ('z', 'SRID=3857;POINT(3 3)')")
      await sync(env, expect, layer)
      expect((await local.api.request('GET', `/api/resource/${layer}/feature/?fld_name=z`)).body).toHaveLength(1)
    } finally {
      await new Promise<void>((resolve) => local.server.close(() => resolve()))
    }
  })
})
