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
import type { FeatureLayer, FeatureRead, LayerMeta, RowShape } from '../../sw/feature/types.ts'
import { bboxOf, type Geometry } from '../../sw/geo/geometry.ts'
import { cluster } from '../pg/shared.ts'
import { DATA, differingAnswers, everyFilter, everyOrder, field, FIELDS, filterAnswers, inputs, json, orderAnswers, point } from '../port/feature-queries.ts'

const meta = (id: number, fields = FIELDS): LayerMeta => ({ resourceId: id, srs: 3857, geometryType: 'POINT', fields })

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
    const filters = everyFilter()
    const answers = (l: FeatureLayer) => l.read((tx) => filterAnswers(tx, filters))
    const [a, b] = [await answers(sqlite), await answers(pg)]
    const differ = differingAnswers(filters, a, b, ['sqlite', 'pg'])
    expect(differ).toEqual([])
    expect(filters.length).toBeGreaterThan(150)
  })

  it('orders by every field type both ways (NULLs last ascending, first descending) and pages, alike', async () => {
    const { sqlite, pg } = await both()
    const queries = everyOrder()
    const answers = (l: FeatureLayer) => l.read((tx) => orderAnswers(tx, queries))
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
