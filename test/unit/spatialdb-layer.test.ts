/**
 * A table of a team's own PostGIS database as a feature layer (sw/postgres/external/layer.ts,
 * issue 24) on a real cluster (test/pg/shared.ts), its tables made by a plain SQL client as a
 * team would have them (a quoted name with a space, a geometry column named "the geom", a
 * serial id): the features contract (test/port/features.contract.ts, without descriptions and
 * attachments), the same answers as a SQLite layer for every filter, order and page of
 * test/port/feature-queries.ts, every geometry type and every column type of ngw-services.md
 * §4.3, writes seen at once by both sides, geometries transformed between the table's SRID and
 * the layer's SRS (the GiST index still used), and each error as the client gets it.
 */
import { afterAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import { nodePlatform } from '../../sw/host/node.ts'
import { Database } from '../../sw/store/database.ts'
import { migrateMain } from '../../sw/sqlite/migrate.ts'
import { openSqlitePort } from '../../sw/sqlite/port.ts'
import { remoteLayer } from '../../sw/postgres/external/layer.ts'
import type { FeatureLayer, FeatureWrite, Field, FieldType, LayerMeta } from '../../sw/feature/types.ts'
import type { SpatialDbTable } from '../../sw/port/spatialdb.ts'
import { bboxOf, type Geometry } from '../../sw/geo/geometry.ts'
import { decodeGpkg } from '../../sw/geo/gpkg.ts'
import { layerTile } from '../../sw/mvt/service.ts'
import type { DataOutServices } from '../../sw/feature/capability.ts'
import { cluster } from '../pg/shared.ts'
import { featuresContract } from '../port/features.contract.ts'
import {
  DATA, differingAnswers, everyFilter, everyOrder, field, FIELDS, filterAnswers, inputs, json, orderAnswers, point,
} from '../port/feature-queries.ts'

/** The team's database: one per file; a schema per case; `admin` is the team's own SQL client. */
let remote: Promise<{ url: string; admin: pg.Client; pool: pg.Pool }> | undefined
const pools: pg.Pool[] = []
function remoteDb() {
  return remote ??= (async () => {
    const url = await (await cluster()).separateDatabase('team')
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    const pool = new pg.Pool({ connectionString: url, max: 4 })
    pools.push(pool)
    return { url, admin, pool }
  })()
}
afterAll(async () => {
  for (const p of pools) await p.end()
  await (await remote)?.admin.end()
})

const TABLE = 'Roads & Ways'
let serial = 0

/** A new schema holding `"Roads & Ways"` (`id serial`, `"the geom"` of `geometry`, `columns`) with a GiST index. */
async function newTable(columns: string, geometry = 'geometry(Point, 3857)'): Promise<string> {
  const { admin } = await remoteDb()
  const schema = `team_${++serial}`
  await admin.query(`CREATE SCHEMA ${schema};
    CREATE TABLE ${schema}."${TABLE}" (id serial PRIMARY KEY, "the geom" ${geometry}${columns ? `, ${columns}` : ''});
    CREATE INDEX "${schema}_gist" ON ${schema}."${TABLE}" USING gist ("the geom")`)
  return schema
}

/** The published table: each field's column named as its keyname. */
const published = (schema: string, fields: Field[], geometryType = 'POINT', geometrySrid = 3857): SpatialDbTable => ({
  schema, table: TABLE, columnId: 'id', columnGeom: 'the geom', geometryType, geometrySrid,
  columns: new Map(fields.map((f) => [f.id, f.keyname])) })

const metaOf = (fields: Field[], geometryType = 'POINT', srs = 3857): LayerMeta => ({ resourceId: 5, srs, geometryType, fields })

/** A layer over a new table with `columns` for `fields`. */
async function layerOver(columns: string, fields: Field[], opts: { geometry?: string; type?: string; srid?: number; srs?: number;
  pool?: pg.Pool } = {}): Promise<{ layer: FeatureLayer; schema: string; sql: (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]> }> {
  const { admin, pool } = await remoteDb()
  const schema = await newTable(columns, opts.geometry)
  const layer = remoteLayer(opts.pool ?? pool, published(schema, fields, opts.type, opts.srid), metaOf(fields, opts.type, opts.srs))
  return { layer, schema, sql: async (text, params) => (await admin.query(text, params)).rows }
}

const FIELD_COLUMNS = 'i integer, b bigint, r double precision, s varchar, d date, t time, dt timestamp, ok boolean'

async function sqliteLayer(m: LayerMeta): Promise<FeatureLayer> {
  const platform = nodePlatform({ admin: { password: 'x', mustChange: false }, log: () => {} })
  const main = await Database.open(await platform.sqlite(), platform.store, 'main', migrateMain)
  return openSqlitePort({ main, store: platform.store }).features.open(m, () => new Date('2026-01-02T03:04:05Z'))
}

featuresContract("a table of a team's PostGIS (spatialdb_layer)", async () => {
  const fields = [field(1, 'name', 'STRING'), field(2, 'n', 'INTEGER')]
  return (await layerOver('name varchar, n integer', fields)).layer
}, undefined, { extensions: false })

describe('a table of a team\'s PostGIS answers as a SQLite layer', () => {
  /** Both layers with DATA written (the remote one without descriptions: it keeps none). */
  async function both() {
    const { layer: remote } = await layerOver(FIELD_COLUMNS, FIELDS)
    const sqlite = await sqliteLayer(metaOf(FIELDS))
    for (const l of [sqlite, remote]) await l.write((tx) => tx.createMany(inputs()))
    return { sqlite, remote }
  }

  it('lists every field type, geometries and labels alike, the values as they went in', async () => {
    const { sqlite, remote } = await both()
    const shape = { geom: true, fields: FIELDS, label: true, description: false }
    const [a, b] = [await sqlite.read((tx) => tx.list({}, shape)), await remote.read((tx) => tx.list({}, shape))]
    expect(json(b)).toBe(json(a))
    expect(b.map((r) => r.values)).toEqual(DATA.map(([, v]) => v))
    expect(b[1]!.values[1]).toBe(2n ** 60n)
    // No descriptions on a remote table: asked for, they read as null.
    expect((await remote.read((tx) => tx.list({ limit: 1 }, { ...shape, description: true })))[0]!.description).toBeNull()
  })

  it('filters with every operator on every field type, searches and intersects alike', async () => {
    const { sqlite, remote } = await both()
    const filters = everyFilter()
    const [a, b] = [await sqlite.read((tx) => filterAnswers(tx, filters)), await remote.read((tx) => filterAnswers(tx, filters))]
    expect(differingAnswers(filters, a, b, ['sqlite', 'remote'])).toEqual([])
  })

  it('orders by every field type both ways and pages alike', async () => {
    const { sqlite, remote } = await both()
    const queries = everyOrder()
    expect(await remote.read((tx) => orderAnswers(tx, queries))).toEqual(await sqlite.read((tx) => orderAnswers(tx, queries)))
  })
})

describe("a table of a team's PostGIS: types, both sides, SRIDs", () => {
  it('reads and writes every geometry type, Z kept, in a column of that type', async () => {
    const ring = [[0, 0], [4, 0], [4, 4], [0, 0]]
    const cases: [string, Geometry][] = [
      ['POINT', { type: 'Point', coordinates: [1, 2] }],
      ['LINESTRING', { type: 'LineString', coordinates: [[0, 0], [1.5, -2.25]] }],
      ['POLYGON', { type: 'Polygon', coordinates: [ring] }],
      ['MULTIPOINT', { type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] }],
      ['MULTILINESTRING', { type: 'MultiLineString', coordinates: [[[0, 0], [1, 1]], [[2, 2], [3, 5]]] }],
      ['MULTIPOLYGON', { type: 'MultiPolygon', coordinates: [[ring], [[[10, 10], [11, 10], [11, 11], [10, 10]]]] }],
      ['POINTZ', { type: 'Point', coordinates: [1, 2, 3] }],
      ['LINESTRINGZ', { type: 'LineString', coordinates: [[0, 0, 1], [1.5, -2.25, 2]] }],
      ['POLYGONZ', { type: 'Polygon', coordinates: [ring.map(([x, y]) => [x!, y!, 7])] }],
      ['MULTIPOINTZ', { type: 'MultiPoint', coordinates: [[1, 2, 3], [3, 4, 5]] }],
      ['MULTILINESTRINGZ', { type: 'MultiLineString', coordinates: [[[0, 0, 0], [1, 1, 1]], [[2, 2, 2], [3, 5, 8]]] }],
      ['MULTIPOLYGONZ', { type: 'MultiPolygon', coordinates: [[ring.map(([x, y]) => [x!, y!, 1])]] }],
    ]
    for (const [type, geom] of cases) {
      const { layer, schema, sql } = await layerOver('', [], { geometry: `geometry(${type}, 3857)`, type })
      const fid = await layer.write((tx) => tx.create({ geom, bbox: bboxOf(geom), fields: [], values: [] }))
      expect(await layer.read(async (tx) => [await tx.geometry(fid), await tx.extent(), await tx.count({ conditions: [],
        intersects: { type: 'Polygon', coordinates: [[[-1, -3], [5, -3], [5, 6], [-1, 6], [-1, -3]]] }, filtered: true })]))
        .toEqual([geom, bboxOf(geom), 1])
      const [row] = await sql(`SELECT GeometryType("the geom") AS t, ST_NDims("the geom") AS d, ST_SRID("the geom") AS srid
        FROM ${schema}."${TABLE}" WHERE id = $1`, [fid])
      expect([row!.t, row!.d, row!.srid]).toEqual([type.replace(/Z$/, ''), type.endsWith('Z') ? 3 : 2, 3857])
    }
  })

  it('reads and writes every column type of the reference (§4.3) in its canonical form', async () => {
    const specs: [string, string, FieldType | 'JSON', unknown][] = [
      ['c_bigint', 'bigint', 'BIGINT', 2n ** 62n], ['c_int', 'integer', 'INTEGER', -5], ['c_small', 'smallint', 'INTEGER', 300],
      ['c_numeric', 'numeric', 'REAL', 1.25], ['c_real', 'real', 'REAL', 0.1], ['c_double', 'double precision', 'REAL', 1 / 3],
      ['c_varchar', 'varchar(20)', 'STRING', 'Ärger'], ['c_char', 'char(3)', 'STRING', 'ab'], ['c_text', 'text', 'STRING', 'long text'],
      ['c_uuid', 'uuid', 'STRING', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'], ['c_date', 'date', 'DATE', '2024-02-29'],
      ['c_time', 'time', 'TIME', '23:59:58'], ['c_ts', 'timestamp', 'DATETIME', '2024-02-29T12:34:56'], ['c_bool', 'boolean', 'BOOLEAN', 1],
      ['c_json', 'json', 'JSON', '{"a": [1, 2]}'], ['c_jsonb', 'jsonb', 'JSON', '{"a": [1, 2]}'],
    ]
    const fields = specs.map(([name, , type], k) => field(k + 1, name, type as FieldType))
    const { layer, schema, sql } = await layerOver(specs.map(([n, t]) => `${n} ${t}`).join(', '), fields)
    const values = specs.map(([, , , v]) => v) as (string | number | bigint)[]
    const [a, b] = await layer.write((tx) => tx.createMany([{ geom: point(1, 2), fields, values }, { geom: null, fields, values }]))
    const shape = { geom: false, fields, label: false, description: false }
    const read = await layer.read((tx) => tx.list({}, shape))
    // Each as it went in (json keeps its text; jsonb's normal form is the same text here).
    expect(read.map((r) => r.values)).toEqual([values, values])
    // Stored in the columns' own types, as a plain client reads them.
    const [row] = await sql(`SELECT c_bigint::text, c_small, c_numeric::text, c_char, c_uuid::text, c_date::text, c_bool, c_json->'a' AS j,
      c_jsonb->'a' AS jb FROM ${schema}."${TABLE}" WHERE id = $1`, [a])
    expect(row).toEqual({ c_bigint: String(2n ** 62n), c_small: 300, c_numeric: '1.25', c_char: 'ab ', c_uuid: specs[9]![3],
      c_date: '2024-02-29', c_bool: true, j: [1, 2], jb: [1, 2] })
    // An update converts the same way; filters compare in the columns' types (a uuid as its text).
    await layer.write((tx) => tx.update(b!, { fields: [fields[6]!, fields[13]!, fields[9]!], values: ['neu', 0, 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'] }))
    expect(await layer.read(async (tx) => [
      await tx.count({ conditions: [{ field: fields[13]!, op: 'eq', value: 0 }], filtered: true }),
      await tx.count({ conditions: [{ field: fields[9]!, op: 'like', value: 'b0ee%' }], filtered: true }),
      await tx.count({ conditions: [{ field: fields[7]!, op: 'eq', value: 'ab' }], filtered: true }),
      await tx.count({ conditions: [{ field: fields[3]!, op: 'gt', value: 1.2 }], filtered: true }),
      (await tx.list({ fid: b }, shape))[0]!.values[6]])).toEqual([1, 1, 2, 2, 'neu'])
  })

  it("shows the layer's writes to a plain SQL client at once, and the client's writes to the layer", async () => {
    const fields = [field(1, 'name', 'STRING'), field(2, 'n', 'INTEGER')]
    const { layer, schema, sql } = await layerOver('name varchar, n integer', fields)
    const t = `${schema}."${TABLE}"`
    const fid = await layer.write((tx) => tx.create({ geom: point(1, 2), fields, values: ['ours', 1] }))
    expect(await sql(`SELECT id, name, n, ST_AsText("the geom") AS g FROM ${t}`)).toEqual([{ id: fid, name: 'ours', n: 1, g: 'POINT(1 2)' }])
    await sql(`INSERT INTO ${t} (name, n, "the geom") VALUES ('theirs', 2, ST_SetSRID(ST_MakePoint(5, 6), 3857))`)
    await sql(`UPDATE ${t} SET n = 10 WHERE id = $1`, [fid])
    const all = { geom: true, fields, label: false, description: false }
    expect((await layer.read((tx) => tx.list({}, all))).map((r) => [r.geom, ...r.values])).toEqual([[point(1, 2), 'ours', 10], [point(5, 6), 'theirs', 2]])
    await layer.write((tx) => tx.delete(fid))
    expect(await sql(`SELECT name FROM ${t}`)).toEqual([{ name: 'theirs' }])
    await layer.write((tx) => tx.deleteAll())
    expect(await sql(`SELECT count(*)::int AS n FROM ${t}`)).toEqual([{ n: 0 }])
  })

  it("transforms between the table's SRID (4326) and the layer's SRS (3857) both ways, filters on the GiST index", async () => {
    const { url } = await remoteDb()
    // A pool that logs each statement, for EXPLAIN below.
    const logged: { text: string; values: unknown[] }[] = []
    const pool = new pg.Pool({ connectionString: url, max: 2 })
    pools.push(pool)
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...a: unknown[]) => unknown
      ;(client as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
        // Statements come as a config object (conn.ts); a bare text and values from elsewhere.
        const c = typeof a[0] === 'string' ? { text: a[0], values: a[1] } : a[0] as { text?: unknown; values?: unknown }
        if (typeof c.text === 'string' && /^SELECT/.test(c.text.trim())) logged.push({ text: c.text, values: (c.values ?? []) as unknown[] })
        return query(...a)
      }
    })
    const fields = [field(1, 'name', 'STRING')]
    const { layer, schema, sql } = await layerOver('name text', fields, { geometry: 'geometry(Point, 4326)', srid: 4326, pool })
    const t = `${schema}."${TABLE}"`
    const ours: Geometry = point(1113194.9079327357, 6446275.841017158) // 10°E 50°N
    const fid = await layer.write((tx) => tx.create({ geom: ours, fields, values: ['ours'] }))
    const [stored] = await sql(`SELECT ST_X("the geom") AS x, ST_Y("the geom") AS y, ST_SRID("the geom") AS srid FROM ${t}`)
    expect(stored!.srid).toBe(4326)
    expect(stored!.x as number).toBeCloseTo(10, 9)
    expect(stored!.y as number).toBeCloseTo(50, 9)
    await sql(`INSERT INTO ${t} (name, "the geom") VALUES ('theirs', ST_SetSRID(ST_MakePoint(20, 60), 4326))`)
    const near = (x: number, y: number): Geometry => ({ type: 'Polygon', coordinates: [[[x - 10, y - 10], [x + 10, y - 10], [x + 10, y + 10],
      [x - 10, y + 10], [x - 10, y - 10]]] })
    const theirs = [2226389.8158654715, 8399737.889818357]
    const got = await layer.read(async (tx) => ({
      geom: (await tx.list({ order: [{ field: fields[0]!, desc: false }] }, { geom: true, fields: [], label: false, description: false }))
        .map((r) => r.geom),
      found: (await tx.list({ filter: { conditions: [], intersects: near(theirs[0]!, theirs[1]!), filtered: true } },
        { geom: false, fields, label: false, description: false })).map((r) => r.values[0]),
      box: (await tx.inBox!([theirs[0]! - 1, theirs[1]! - 1, theirs[0]! + 1, theirs[1]! + 1], fields)).map((r) => [r.fid, r.values[0]]),
      extent: await tx.extent(),
    }))
    const [o, th] = got.geom as { coordinates: number[] }[]
    expect(o!.coordinates[0]).toBeCloseTo(1113194.9079327357, 6)
    expect(th!.coordinates[0]).toBeCloseTo(theirs[0]!, 6)
    expect(th!.coordinates[1]).toBeCloseTo(theirs[1]!, 6)
    expect(got.found).toEqual(['theirs'])
    expect(got.box).toEqual([[fid + 1, 'theirs']])
    expect(got.extent![2]).toBeCloseTo(theirs[0]!, 6)
    // The filters' statements, explained without a sequential scan allowed: each reads the GiST index.
    const spatial = logged.filter((l) => /ST_Intersects|&&/.test(l.text))
    expect(spatial).toHaveLength(2)
    for (const l of spatial) {
      const { admin } = await remoteDb()
      await admin.query('SET enable_seqscan = off')
      try {
        const plan = JSON.stringify((await admin.query(`EXPLAIN (FORMAT JSON) ${l.text}`, l.values)).rows)
        expect(plan).toContain(`"Index Name":"${schema}_gist"`)
      } finally {
        await admin.query('RESET enable_seqscan')
      }
    }
  })

  it('answers inBox with GeoPackage blobs in the layer\'s SRS, in id order, only boxes that meet', async () => {
    const fields = [field(1, 'n', 'INTEGER')]
    // A column of any geometry type (a team's table may mix them).
    const { layer } = await layerOver('n integer', fields, { geometry: 'geometry(Geometry, 3857)', type: 'GEOMETRY' })
    const line: Geometry = { type: 'LineString', coordinates: [[0, 0], [10, 10]] }
    await layer.write((tx) => tx.createMany([{ geom: point(5, 5), fields, values: [1] }, { geom: point(50, 50), fields, values: [2] },
      { geom: null, fields, values: [3] }]))
    const rows = await layer.read((tx) => tx.inBox!([4, 4, 6, 6], fields))
    expect(rows.map((r) => [r.fid, decodeGpkg(r.geom), r.values])).toEqual([[1, point(5, 5), [1]]])
    // A line's box meets the box though the line does not: the index's answer, no exact test.
    await layer.write((tx) => tx.create({ geom: line, fields, values: [4] }))
    expect((await layer.read((tx) => tx.inBox!([6, 1, 9, 3], fields))).map((r) => r.values[0])).toEqual([4])
  })

  it('cuts a vector tile with ST_AsMVT (its engine; no token: never cached)', async () => {
    const fields = [field(1, 'n', 'INTEGER')]
    const { layer } = await layerOver('n integer', fields)
    await layer.write((tx) => tx.createMany([{ geom: point(100, 100), fields, values: [1] }]))
    const services = { platform: { host: 'node', log: () => {} } } as unknown as DataOutServices
    const opts = { extent: 4096, padding: 0.05, simplification: 8 }
    const tile = await layerTile(services, layer, { z: 0, x: 0, y: 0 }, opts)
    expect(tile.source).toBe('engine')
    expect(tile.bytes.length).toBeGreaterThan(10)
    expect((await layerTile(services, layer, { z: 0, x: 0, y: 0 }, opts)).cached).toBe(false)
  })
})

describe("a table of a team's PostGIS: errors as the client gets them, nothing written", () => {
  const fields = [field(1, 'name', 'STRING'), field(2, 'n', 'INTEGER')]
  const one = (values: unknown[]) => ({ geom: point(1, 2), fields, values: values as (string | number)[] })

  it('a dropped table or a missing column: a 422 naming it', async () => {
    const { layer, schema, sql } = await layerOver('name varchar, n integer', fields)
    await sql(`ALTER TABLE ${schema}."${TABLE}" DROP COLUMN n`)
    await expect(layer.read((tx) => tx.list({}, { geom: false, fields, label: false, description: false })))
      .rejects.toMatchObject({ status: 422, message: `Column 'n' not found in table '${schema}.${TABLE}'!` })
    await sql(`DROP TABLE ${schema}."${TABLE}"`)
    await expect(layer.read((tx) => tx.count())).rejects.toMatchObject({ status: 422, message: `Table '${schema}.${TABLE}' not found!` })
    await expect(layer.write((tx) => tx.create(one(['x', 1])))).rejects.toMatchObject({ status: 422 })
  })

  it('an unreachable database: 503 External database error', async () => {
    const pool = new pg.Pool({ host: '/nonexistent-socket-folder', port: 5432, user: 'x', database: 'x', max: 1 })
    pools.push(pool)
    const schema = await newTable('name varchar, n integer')
    const layer = remoteLayer(pool, published(schema, fields), metaOf(fields))
    const err = await layer.read((tx) => tx.count()).catch((e: unknown) => e)
    expect(err).toMatchObject({ status: 503, title: 'External database error' })
    expect((err as { toBody(): { detail: string; exception: string } }).toBody())
      .toMatchObject({ detail: expect.stringContaining('Cannot reach the database (ENOENT)'), exception: 'nextgisweb.core.exception.ExternalDatabaseError' })
  })

  it("another error of the database: 503 with the SQLSTATE in detail, the write rolled back", async () => {
    const { layer, schema, sql } = await layerOver('name varchar, n integer', fields)
    const t = `${schema}."${TABLE}"`
    await sql(`CREATE FUNCTION ${schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.n = 13 THEN RAISE EXCEPTION 'unlucky' USING ERRCODE = 'P0001'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER refuse BEFORE INSERT ON ${t} FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse()`)
    const err = await layer.write((tx) => tx.createMany([one(['a', 1]), one(['b', 13])])).catch((e: unknown) => e)
    expect(err).toMatchObject({ status: 503 })
    expect((err as { toBody(): { detail: string } }).toBody().detail).toBe('PostgreSQL error code: P0001.')
    expect(await sql(`SELECT count(*)::int AS n FROM ${t}`)).toEqual([{ n: 0 }])
  })

  it('values the table refuses (NOT NULL, a range, NUL, a malformed uuid): a 422, nothing written', async () => {
    const f = [...fields, field(3, 'u', 'STRING'), field(4, 's', 'INTEGER')]
    const { layer, schema, sql } = await layerOver('name varchar NOT NULL, n integer, u uuid, s smallint', f)
    const t = `${schema}."${TABLE}"`
    const row = (values: unknown[]) => ({ geom: null, fields: f, values: values as (string | number | null)[] })
    const first = await layer.write((tx) => tx.create(row(['ok', 1, null, 1])))
    for (const bad of [[null, 1, null, 1], ['x', 1, null, 40000], ['a\u0000b', 1, null, 1], ['x', 1, 'not-a-uuid', 1]]) {
      await expect(layer.write(async (tx) => {
        await tx.create(row(['fine', 2, null, 2]))
        return tx.create(row(bad))
      })).rejects.toMatchObject({ status: 422 })
      await expect(layer.write((tx) => tx.update(first, { fields: f, values: bad as (string | number | null)[] })))
        .rejects.toMatchObject({ status: 422 })
    }
    const notNull = await layer.write((tx) => tx.create(row([null, 1, null, 1]))).catch((e: { message: string }) => e.message)
    expect(notNull).toContain('"name"')
    expect(await sql(`SELECT name, n, s FROM ${t}`)).toEqual([{ name: 'ok', n: 1, s: 1 }])
  })

  it('a table the database user may only read, or a view: 403 on writes, reads work', async () => {
    const { url } = await remoteDb()
    const { schema, sql } = await layerOver('name varchar, n integer', fields)
    const t = `${schema}."${TABLE}"`
    await sql(`INSERT INTO ${t} (name, n) VALUES ('a', 1);
      CREATE VIEW ${schema}.distinct_names AS SELECT DISTINCT ON (name) id, "the geom", name, n FROM ${t};
      DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'reader') THEN CREATE ROLE reader LOGIN; END IF; END $$;
      GRANT USAGE ON SCHEMA ${schema} TO reader; GRANT SELECT ON ${t} TO reader`)
    const u = new URL(url)
    u.username = 'reader'
    const readerPool = new pg.Pool({ connectionString: u.toString(), max: 1 })
    pools.push(readerPool)
    const asReader = remoteLayer(readerPool, published(schema, fields), metaOf(fields))
    expect(await asReader.read((tx) => tx.count())).toBe(1)
    const writes: ((tx: FeatureWrite) => Promise<unknown>)[] = [(tx) => tx.create(one(['b', 2])), (tx) => tx.deleteAll()]
    for (const write of writes) {
      await expect(asReader.write(write)).rejects.toMatchObject({ status: 403, message: expect.stringContaining(`'${schema}.${TABLE}'`) })
    }
    const view = remoteLayer((await remoteDb()).pool, { ...published(schema, fields), table: 'distinct_names' }, metaOf(fields))
    expect(await view.read((tx) => tx.count())).toBe(1)
    await expect(view.write((tx) => tx.create(one(['b', 2])))).rejects.toMatchObject({ status: 403 })
    expect(await sql(`SELECT count(*)::int AS n FROM ${t}`)).toEqual([{ n: 1 }])
  })

  it('attachments: a 422; reads of them answer none; a feature id past the column is no feature', async () => {
    const { layer } = await layerOver('name varchar, n integer', fields)
    const fid = await layer.write((tx) => tx.create(one(['a', 1])))
    await expect(layer.write((tx) => tx.addAttachment(fid, { name: 'x' }, { blobId: 'b', size: 1, fileMeta: {} })))
      .rejects.toMatchObject({ status: 422, message: 'Attachments are not supported on a spatial database layer.' })
    expect(await layer.read(async (tx) => [(await tx.attachments()).size, await tx.attachment(fid, 1), await tx.exists(2 ** 60),
      await tx.geometry(2 ** 53 + 2), await tx.exists(fid)])).toEqual([0, undefined, false, undefined, true])
  })
})
