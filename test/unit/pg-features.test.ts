/**
 * The vector layers on PostGIS (sw/postgres/features) beside SQLite's (sw/sqlite/features): the
 * same features written to both answer every query alike (values of each field type, every
 * filter operator, the search, orders, paging, extents, descriptions, labels), and what only a
 * shared database shows: a second port sees a write after `tokens.refresh()`, field changes
 * reach the table on the next open, a drop takes the attachments' blobs, keyed writes are
 * recorded with their write. The features contract (features-port.test.ts) covers the rest.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { nodePlatform } from '../../sw/host/node.ts'
import { Database } from '../../sw/store/database.ts'
import { migrateMain } from '../../sw/sqlite/migrate.ts'
import { openSqlitePort } from '../../sw/sqlite/port.ts'
import { openPostgresData, type PostgresPort } from '../../sw/postgres/port.ts'
import type {
  Condition, FeatureFilter, FeatureInput, FeatureLayer, FeatureRead, FeatureQuery, Field, FieldType, FieldValue, LayerMeta, RowShape,
} from '../../sw/feature/types.ts'
import { bboxOf, type Geometry } from '../../sw/geo/geometry.ts'
import { cluster } from '../pg/shared.ts'

const field = (id: number, keyname: string, datatype: FieldType, more: Partial<Field> = {}): Field => ({ id, keyname,
  display_name: keyname, datatype, typemod: null, label_field: false, grid_visibility: true, text_search: true, required: false,
  lookup_table: null, ...more })

const FIELDS: Field[] = [
  field(1, 'i', 'INTEGER'), field(2, 'b', 'BIGINT'), field(3, 'r', 'REAL'), field(4, 's', 'STRING', { label_field: true }),
  field(5, 'd', 'DATE'), field(6, 't', 'TIME'), field(7, 'dt', 'DATETIME'), field(8, 'ok', 'BOOLEAN', { text_search: false }),
]
const meta = (id: number, fields = FIELDS): LayerMeta => ({ resourceId: id, srs: 3857, geometryType: 'POINT', fields })
const point = (x: number, y: number): Geometry => ({ type: 'Point', coordinates: [x, y] })

/** Rows of canonical values: one per feature, in field order; the geometry and description beside. */
const DATA: [Geometry | null, FieldValue[], string | null][] = [
  [point(1, 2), [1, 2, 1.5, 'Ärger', '2024-02-29', '23:59:58', '2024-02-29T12:34:56', 1], 'first'],
  [point(5, 6), [-7, 2n ** 60n, -0.25, 'apple', '1999-12-31', '00:00:00', '1999-12-31T23:59:59', 0], null],
  [null, [null, null, null, null, null, null, null, null], 'no geometry'],
  [point(-3, 4), [42, -(2 ** 40), 1e20, 'Zebra 100%_x', '2024-03-01', '12:00:00', '2024-03-01T00:00:00', 1], ''],
  [point(5, 6), [1, 2, 1.5, 'ärger', '2024-02-29', '08:30:00', '2024-02-29T12:34:56', 0], null],
  [point(7, 8), [0, 0, 0.1 + 0.2, 'x', '2024-01-01', '01:02:03', '2024-01-01T01:02:03', 0], null],
  [point(7, 8), [0, 0, 1 / 3, 'y', '2024-01-01', '01:02:03', '2024-01-01T01:02:03', 0], null],
  [point(7, 8), [0, 0, 2, 'z', '2024-01-01', '01:02:03', '2024-01-01T01:02:03', 0], null],
  [point(7, 8), [0, 0, 1.25e-7, 'w', '2024-01-01', '01:02:03', '2024-01-01T01:02:03', 0], null],
]

const inputs = (fields = FIELDS): FeatureInput[] => DATA.map(([geom, values, description]) =>
  ({ geom, bbox: geom && bboxOf(geom), fields, values, description }))

/** Numbers and bigints alike as JSON (bigint tagged, so 2^60 is not taken for a rounded number). */
const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x))

const opened: PostgresPort[] = []
afterAll(async () => { for (const d of opened) await d.close() })

async function sqliteLayer(m: LayerMeta): Promise<FeatureLayer> {
  const platform = nodePlatform({ admin: { password: 'x', mustChange: false }, log: () => {} })
  const main = await Database.open(await platform.sqlite(), platform.store, 'main', migrateMain)
  return openSqlitePort({ main, store: platform.store }).features.open(m, () => new Date('2026-01-02T03:04:05Z'))
}

async function pgPort(url?: string): Promise<PostgresPort> {
  const data = await openPostgresData(url ?? await (await cluster()).database('feat'), { maxConnections: 4 })
  opened.push(data)
  return data
}

/** Both layers with DATA written. */
async function both(): Promise<{ sqlite: FeatureLayer; pg: FeatureLayer }> {
  const data = await pgPort()
  const [sqlite, pg] = [await sqliteLayer(meta(11)), await data.features.open(meta(11), () => new Date('2026-01-02T03:04:05Z'))]
  for (const l of [sqlite, pg]) await l.write((tx) => tx.createMany(inputs()))
  return { sqlite, pg }
}

const SHAPE: RowShape = { geom: true, fields: FIELDS, label: true, description: true }

describe('vector layers on PostGIS answer as SQLite', () => {
  it('lists every field type, geometries, labels and descriptions alike', async () => {
    const { sqlite, pg } = await both()
    const [a, b] = await Promise.all([sqlite, pg].map((l) => l.read((tx) => tx.list({}, SHAPE))))
    expect(json(b)).toBe(json(a))
    // Not only alike: the canonical values as they went in (a BIGINT past 2^53 exactly).
    expect(b!.map((r) => r.values)).toEqual(DATA.map(([, v]) => v))
    expect(b![1]!.values[1]).toBe(2n ** 60n)
  })

  it('filters with every operator on every field type, and searches, alike', async () => {
    const { sqlite, pg } = await both()
    const filters: FeatureFilter[] = []
    for (const [k, f] of FIELDS.entries()) {
      const v = DATA[0]![1][k]!
      const c = (op: Condition['op'], value: Condition['value']): FeatureFilter => ({ conditions: [{ field: f, op, value }], filtered: true })
      for (const op of ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const) filters.push(c(op, v))
      filters.push(c('in', [v, DATA[1]![1][k]!]), c('notin', [v]), c('in', []), c('notin', []), c('isnull', true), c('isnull', false))
      filters.push(c('like', `${String(v).slice(0, 2)}%`), c('ilike', `%${String(v).slice(1, 3).toUpperCase()}%`),
        c('startswith', String(v).slice(0, 2)))
    }
    const s = FIELDS[3]!
    for (const pattern of ['ärger', 'ÄRGER', '%', '_', '100%_', 'e', '.0', 'e+', 'e-', '0.3', '333', '2.0', 'T12', 'true', '0004', '3333333333333333', '000000000000']) {
      filters.push({ conditions: [{ field: s, op: 'like', value: pattern }], filtered: true },
        { conditions: [{ field: s, op: 'ilike', value: pattern }], filtered: true },
        { conditions: [], search: { pattern, caseSensitive: true }, filtered: true },
        { conditions: [], search: { pattern, caseSensitive: false }, filtered: true })
    }
    filters.push({ conditions: [{ field: null, op: 'in', value: [1, 3, 99] }], filtered: true },
      { conditions: [{ field: null, op: 'gt', value: 2 }], filtered: true },
      { conditions: [{ field: null, op: 'like', value: '1%' }], filtered: true },
      { conditions: [], intersects: { type: 'Polygon', coordinates: [[[0, 0], [6, 0], [6, 7], [0, 7], [0, 0]]] }, filtered: true },
      { conditions: [{ field: FIELDS[0]!, op: 'eq', value: 1 }],
        intersects: { type: 'LineString', coordinates: [[4, 5], [6, 7]] }, filtered: true })
    const answers = async (l: FeatureLayer) => l.read(async (tx) => {
      const out: unknown[] = []
      for (const filter of filters) {
        out.push((await tx.list({ filter }, { geom: false, fields: [], label: false, description: false })).map((r) => r.fid),
          await tx.count(filter), await tx.extent(filter))
      }
      return out
    })
    const [a, b] = [await answers(sqlite), await answers(pg)]
    const differ = filters.map((f, i) => ({ f, sqlite: json(a.slice(3 * i, 3 * i + 3)), pg: json(b.slice(3 * i, 3 * i + 3)) }))
      .filter((d) => d.sqlite !== d.pg)
      .map(({ f, sqlite, pg }) => `${f.conditions.map((c) => `${c.field?.datatype ?? 'fid'} ${c.op} ${json(c.value)}`).join(', ')}${
        f.search ? ` search ${f.search.pattern} ${f.search.caseSensitive}` : ''}: sqlite ${sqlite}, pg ${pg}`)
    expect(differ).toEqual([])
    expect(filters.length).toBeGreaterThan(150)
  })

  it('orders by every field type both ways (NULLs last ascending, first descending) and pages, alike', async () => {
    const { sqlite, pg } = await both()
    const queries: FeatureQuery[] = FIELDS.flatMap((f) => [{ order: [{ field: f, desc: false }] }, { order: [{ field: f, desc: true }] }])
    queries.push({ order: [{ field: FIELDS[7]!, desc: false }, { field: FIELDS[3]!, desc: true }], limit: 3, offset: 1 },
      { limit: 2, offset: 3 }, { limit: 0 }, { limit: -1, offset: 2 }, { offset: 2 }, { fid: 4 }, { fid: 99 })
    const answers = async (l: FeatureLayer) => l.read(async (tx) => {
      const out: number[][] = []
      for (const q of queries) out.push((await tx.list(q, { geom: false, fields: [], label: false, description: false })).map((r) => r.fid))
      return out
    })
    expect(await answers(pg)).toEqual(await answers(sqlite))
  })

  it('keeps Z and multi-part geometries as they were sent, in a column of the layer\'s type', async () => {
    const data = await pgPort()
    const cases: [string, Geometry][] = [
      ['POINTZ', { type: 'Point', coordinates: [1, 2, 3] }],
      ['LINESTRING', { type: 'LineString', coordinates: [[0, 0], [1.5, -2.25]] }],
      ['MULTIPOLYGONZ', { type: 'MultiPolygon', coordinates: [[[[0, 0, 1], [4, 0, 1], [4, 4, 2], [0, 0, 1]]],
        [[[10, 10, 0], [11, 10, 0], [11, 11, 0], [10, 10, 0]], [[10.2, 10.1, 0], [10.8, 10.1, 0], [10.8, 10.7, 0], [10.2, 10.1, 0]]]] }],
    ]
    for (const [k, [type, geom]] of cases.entries()) {
      const layer = await data.features.open({ ...meta(70 + k, []), geometryType: type }, () => new Date())
      const fid = await layer.write((tx) => tx.create({ geom, bbox: bboxOf(geom), fields: [], values: [] }))
      expect(await layer.read(async (tx) => [await tx.geometry(fid), await tx.extent()])).toEqual([geom, bboxOf(geom)])
      expect((await data.pool.query(`SELECT type FROM geometry_columns WHERE f_table_name = $1`, [`layer_${70 + k}`])).rows[0].type)
        .toBe(type.replace(/Z$/, ''))
    }
  })

  it('creates features setting different fields in one call: fids in input order, the fields left out NULL', async () => {
    const data = await pgPort()
    const layer = await data.features.open(meta(12), () => new Date())
    const [i, s] = [FIELDS[0]!, FIELDS[3]!]
    const fids = await layer.write((tx) => tx.createMany([
      { geom: null, fields: [s], values: ['one'] }, { geom: point(0, 0), fields: [i], values: [2] },
      { geom: null, fields: [i, s], values: [3, 'three'] }, { geom: null, fields: [], values: [] }]))
    expect(fids).toEqual([1, 2, 3, 4])
    const rows = await layer.read((tx) => tx.list({}, { geom: false, fields: [i, s], label: false, description: false }))
    expect(rows.map((r) => r.values)).toEqual([[null, 'one'], [2, null], [3, 'three'], [null, null]])
    // After a delete of the last one its fid is not given again (as SQLite's AUTOINCREMENT).
    await layer.write((tx) => tx.delete(4))
    expect(await layer.write((tx) => tx.create({ geom: null, fields: [], values: [] }))).toBe(5)
  })
})

describe('vector layers on PostGIS: one database, several ports', () => {
  it('a write through one port is read by another after tokens.refresh(), and moves its token', async () => {
    const url = await (await cluster()).database('shared')
    const [p1, p2] = [await pgPort(url), await pgPort(url)]
    const [l1, l2] = [await p1.features.open(meta(21), () => new Date()), await p2.features.open(meta(21), () => new Date())]
    await p2.tokens.refresh()
    const before = l2.token!()
    await l1.write((tx) => tx.createMany(inputs()))
    expect(await l2.read((tx) => tx.count())).toBe(DATA.length)
    expect(l2.token!()).toBe(before)
    await p2.tokens.refresh()
    expect(l2.token!()).not.toBe(before)
  })

  it("writes of two ports on one layer run one at a time: each sees the other's commits (check-then-write holds)", async () => {
    const url = await (await cluster()).database('lock')
    const [p1, p2] = [await pgPort(url), await pgPort(url)]
    const [l1, l2] = [await p1.features.open(meta(24), () => new Date()), await p2.features.open(meta(24), () => new Date())]
    const i = FIELDS[0]!
    // Each write counts the features, then adds one carrying that count: without the layer's
    // lock two writes would count alike.
    const seen = await Promise.all(Array.from({ length: 16 }, (_, k) => (k % 2 ? l1 : l2).write(async (tx) => {
      const n = await tx.count()
      await tx.create({ geom: null, fields: [i], values: [n] })
      return n
    })))
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, k) => k))
  })

  it('brings the table up to the fields on the next open: a new field is a column, a deleted one goes', async () => {
    const url = await (await cluster()).database('fields')
    const [p1, p2] = [await pgPort(url), await pgPort(url)]
    const [i, s] = [FIELDS[0]!, FIELDS[3]!]
    const l1 = await p1.features.open(meta(22, [i, s]), () => new Date())
    await l1.write((tx) => tx.create({ geom: null, fields: [i, s], values: [1, 'a'] }))
    const added = field(9, 'added', 'DATE')
    // The other process opens the layer with the field list after a change: one field gone, one new.
    const l2 = await p2.features.open(meta(22, [s, added]), () => new Date())
    await l2.write((tx) => tx.update(1, { fields: [added], values: ['2024-01-01'] }))
    expect(await l2.read((tx) => tx.list({}, { geom: false, fields: [s, added], label: false, description: false })))
      .toEqual([{ fid: 1, geom: null, values: ['a', '2024-01-01'] }])
    const cols = (await p1.pool.query(`SELECT attname FROM pg_attribute WHERE attrelid = 'layer_22'::regclass AND attnum > 0
      AND NOT attisdropped ORDER BY attnum`)).rows.map((r) => r.attname)
    expect(cols).toEqual(['fid', 'geom', 'fld_4', 'fld_9'])
  })

  it("makes the original's column types, a typed geometry column and its GiST index", async () => {
    const data = await pgPort()
    await data.features.open(meta(23), () => new Date())
    const types = (await data.pool.query(`SELECT attname, format_type(atttypid, atttypmod) AS t FROM pg_attribute
      WHERE attrelid = 'layer_23'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`)).rows.map((r) => `${r.attname} ${r.t}`)
    expect(types).toEqual(['fid bigint', 'geom geometry(Point,3857)', 'fld_1 integer', 'fld_2 bigint', 'fld_3 double precision',
      'fld_4 character varying', 'fld_5 date', 'fld_6 time without time zone', 'fld_7 timestamp without time zone', 'fld_8 boolean'])
    expect((await data.pool.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'layer_23' AND indexdef LIKE '%gist%'`)).rows)
      .toHaveLength(1)
  })

  it('drops the tables and the blobs of the attachments; stored lists the layers with tables', async () => {
    const data = await pgPort()
    const [a, b] = [await data.features.open(meta(31), () => new Date()), await data.features.open(meta(32), () => new Date())]
    await data.blobs.putBlob('att-1', new Uint8Array([1, 2, 3]))
    await data.blobs.putBlob('att-2', new Uint8Array([4]))
    await a.write(async (tx) => {
      const [fid] = await tx.createMany(inputs())
      await tx.addAttachment(fid!, { name: 'x', mime_type: 'text/plain' }, { blobId: 'att-1', size: 3, fileMeta: {} })
    })
    await b.write(async (tx) => {
      const [fid] = await tx.createMany(inputs())
      await tx.addAttachment(fid!, { name: 'y', mime_type: 'text/plain' }, { blobId: 'att-2', size: 1, fileMeta: {} })
    })
    expect(await data.features.stored()).toEqual([31, 32])
    await data.features.drop(31)
    expect(await data.features.stored()).toEqual([32])
    expect(await data.blobs.getBlob('att-1')).toBeUndefined()
    expect(await data.blobs.getBlob('att-2')).toEqual(new Uint8Array([4]))
    await data.features.drop(31) // again: nothing left to do
    // Opened again, the layer starts empty.
    expect(await (await data.features.open(meta(31), () => new Date())).read((tx) => tx.count())).toBe(0)
  })

  it('records a keyed write with it, and nothing of a write that throws', async () => {
    const data = await pgPort()
    const layer = await data.features.open(meta(41), () => new Date())
    await layer.write(async (tx) => {
      await tx.create(inputs()[0]!)
      tx.recordRequest!('key-1', 'fp', () => '{"id":1}')
    })
    await expect(layer.write(async (tx) => {
      await tx.create(inputs()[0]!)
      tx.recordRequest!('key-2', 'fp', () => '{"id":2}')
      throw new Error('no')
    })).rejects.toThrow('no')
    expect(await layer.read(async (tx) => [await tx.pastRequest!('key-1'), await tx.pastRequest!('key-2'), await tx.count()]))
      .toEqual([{ fingerprint: 'fp', body: '{"id":1}' }, undefined, 1])
  })

  it('refuses text with U+0000 (which PostgreSQL cannot hold) with a 422, writing nothing', async () => {
    const data = await pgPort()
    const layer = await data.features.open(meta(42), () => new Date())
    const s = FIELDS[3]!
    const refused = { status: 422, title: 'Validation error' }
    await expect(layer.write((tx) => tx.createMany([{ geom: null, fields: [s], values: ['fine'] }, { geom: null, fields: [s], values: ['a\u0000b'] }])))
      .rejects.toMatchObject(refused)
    await expect(layer.write((tx) => tx.create({ geom: null, fields: [], values: [], description: 'x\u0000' }))).rejects.toMatchObject(refused)
    await expect(layer.read((tx) => tx.count({ conditions: [{ field: s, op: 'eq', value: '\u0000' }], filtered: true })))
      .rejects.toMatchObject(refused)
    await expect(layer.read((tx) => tx.count({ conditions: [], search: { pattern: '\u0000', caseSensitive: false }, filtered: true })))
      .rejects.toMatchObject(refused)
    expect(await layer.read((tx) => tx.count())).toBe(0)
  })
})

describe('vector layers on PostGIS: a database whose collation is not by code point', () => {
  it('orders and compares strings by code point (as SQLite), whatever the database collation', async () => {
    const c = await cluster()
    const admin = await c.client()
    try {
      await admin.query(`CREATE DATABASE feat_icu TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`)
    } finally {
      await admin.end()
    }
    const db = await c.client('feat_icu')
    try {
      await db.query('CREATE EXTENSION postgis')
      // The database itself orders 'apple' before 'Zebra': what a client of SQLite never sees.
      expect((await db.query(`SELECT x FROM unnest(ARRAY['Zebra', 'apple']) x ORDER BY x`)).rows.map((r) => r.x)).toEqual(['apple', 'Zebra'])
    } finally {
      await db.end()
    }
    const data = await pgPort(c.url('feat_icu'))
    const pg = await data.features.open(meta(61), () => new Date())
    const sqlite = await sqliteLayer(meta(61))
    const s = FIELDS[3]!
    const answers = async (l: FeatureLayer) => {
      await l.write((tx) => tx.createMany(inputs()))
      return l.read(async (tx) => answersIn(tx))
    }
    const answersIn = async (tx: FeatureRead) => {
      const none: RowShape = { geom: false, fields: [], label: false, description: false }
      return [(await tx.list({ order: [{ field: s, desc: false }] }, none)).map((r) => r.fid),
        (await tx.list({ filter: { conditions: [{ field: s, op: 'gt', value: 'Zebra' }], filtered: true } }, none)).map((r) => r.fid)]
    }
    expect(await answers(pg)).toEqual(await answers(sqlite))
  })
})
