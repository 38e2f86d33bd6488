/**
 * A client cannot tell which engine cut a vector tile (issue 23 item 3): the same features in a
 * vector layer on the SQLite host (its R*Tree and our encoder, sw/mvt), in a vector layer on the
 * PostgreSQL host and in a team's PostGIS table published as a `spatialdb_layer` (both one
 * `ST_AsMVT` statement: sw/postgres/features/tile.ts), each tile decoded by `@mapbox/vector-tile`
 * and compared: feature ids, attributes (every field type), geometry types, positions within one
 * tile unit. And a full tile on PostGIS is thinned, as our R*Tree thins (mvt/select.ts).
 */
import type { Server } from 'node:http'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Api } from './harness.ts'
import { startNodeApi } from './node-client.ts'
import { addFeatures, createLayer } from './cases/feature.ts'
import { bytesOf, decodeTile, type DecodedFeature, type DecodedLayer } from './mvt-decode.ts'
import { cluster } from '../pg/shared.ts'
import type { Cluster } from '../pg/cluster.ts'
import { postgresData } from '../../sw/host/node.ts'
import { openSpatialDb } from '../../sw/postgres/external/index.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { GRID } from '../../sw/mvt/select.ts'

interface Host { api: Api; server: Server; app: OutpostApp }

const FIELDS = [
  { keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }, { keyname: 'big', datatype: 'BIGINT' },
  { keyname: 'v', datatype: 'REAL' }, { keyname: 'ok', datatype: 'BOOLEAN' }, { keyname: 'day', datatype: 'DATE' },
  { keyname: 'at', datatype: 'TIME' }, { keyname: 'ts', datatype: 'DATETIME' },
]
const NULLS = { name: null, n: null, big: null, v: null, ok: null, day: null, at: null, ts: null }

/** Points in and around z10 tile 512/511 (x and y 0…39,136 m): in it, in its padding, outside it; every kind of value. */
const POINTS: [number, number, Record<string, unknown>][] = [
  [1000, 2000, { name: 'Well #1', n: 7, big: '9007199254740993', v: 2.5, ok: true, day: '2020-02-29', at: '12:34:56', ts: '2020-02-29T12:34:56' }],
  [5000, 7000, { name: 'Ärger "quoted"', n: -3, big: -42, v: null, ok: false }],
  [39000, 100, { name: '', n: 0, big: 0, v: -0.125, day: '1999-12-31', at: '00:00:00', ts: '1970-01-01T00:00:00' }],
  [-1500, 20000, { name: 'in the padding', n: 2147483647, big: '-9007199254740995', v: 1e-7 }],
  [20000, 20000, {}],
  [3000000, 3000000, { name: 'far' }],
]

const ring = (cx: number, cy: number, r: number, n: number) =>
  Array.from({ length: n + 1 }, (_, i) => `${cx + r * Math.cos((2 * Math.PI * i) / n)} ${cy + r * Math.sin((2 * Math.PI * i) / n)}`).join(',')

const LINES = [
  'MULTILINESTRING((-100000 1000,100000 1000))',
  'MULTILINESTRING((1000 20000,30000 25000,30000 35000,2000 38000))',
  `MULTILINESTRING((${Array.from({ length: 60 }, (_, i) => `${500 + i * 600} ${30000 + 400 * Math.sin(i / 3)}`).join(',')}))`,
  'MULTILINESTRING((1000 1000,2000 3000),(35000 30000,45000 30000))',
]

/** Polygons in EPSG:4326 (degrees): a square with a hole, a 48-gon, a triangle crossing tile edges. */
const POLYGONS = [
  'POLYGON((10 10,20 10,20 20,10 20,10 10),(12 12,14 12,14 14,12 14,12 12))',
  `POLYGON((${ring(15, 15, 3, 48)}))`,
  'POLYGON((11.25 16,22 17,12 19.5,11.25 16))',
]

/**
 * Tiles compared, each with the default options, without padding at extent 512, and
 * unsimplified; with how far apart the two paths may be in tile units. Unsimplified, within
 * rounding (a unit each way, √2 across). Simplified, a ring's Douglas–Peucker depends on where
 * the ring starts, which the clip decides (ours keeps its start, GEOS's `ST_ClipByBox2D` its
 * own): a vertex one keeps and the other drops lies within the tolerance of the other's path.
 */
const POINT_TILES: [number, number, number][] = [[10, 512, 511], [10, 511, 511], [9, 256, 255], [4, 8, 7], [0, 0, 0]]
const LINE_TILES: [number, number, number][] = [[10, 512, 511], [11, 1024, 1022], [8, 128, 127]]
const POLYGON_TILES: [number, number, number][] = [[4, 8, 7], [6, 34, 29], [5, 17, 14], [7, 67, 58]]
const VARIANTS: [string, number][] = [['', 1.5 + 8], ['&extent=512&padding=0', 1.5 + 1], ['&simplification=0', 1.5]]

let c: Cluster
let sqlite: Host
let postgres: Host
let team: pg.Client
let teamDb: string

beforeAll(async () => {
  c = await cluster()
  sqlite = await startNodeApi()
  postgres = await startNodeApi({ app: { data: postgresData(await c.database('mvt_engines'), { maxConnections: 4 }),
    spatialDb: async () => openSpatialDb() } })
  teamDb = new URL(await c.separateDatabase('team')).pathname.slice(1)
  team = new pg.Client({ host: c.host, port: c.port, user: 'postgres', database: teamDb })
  await team.connect()
}, 60_000)

afterAll(async () => {
  for (const h of [sqlite, postgres]) {
    if (!h) continue
    await new Promise<void>((resolve) => h.server.close(() => resolve()))
    await (await h.app.services()).close()
  }
  await team?.end()
})

/** The one MVT layer of `id`'s tile (its name checked), or `undefined` when the tile is empty (204). */
async function tileOf(api: Api, id: number, [z, x, y]: [number, number, number], extra = ''): Promise<DecodedLayer | undefined> {
  const res = await api.request('GET', `/api/component/feature_layer/mvt?resource=${id}&z=${z}&x=${x}&y=${y}${extra}`)
  if (res.status === 204) return undefined
  expect(res.status).toBe(200)
  expect(res.headers['content-type']).toBe('application/vnd.mapbox-vector-tile')
  const layers = decodeTile(bytesOf(res.bodyBase64))
  expect(Object.keys(layers)).toEqual([`svc:${id}`])
  return layers[`svc:${id}`]
}

/** Squared distance from p to segment a–b. */
function segDist2(p: [number, number], a: [number, number], b: [number, number]): number {
  const dx = b[0] - a[0], dy = b[1] - a[1]
  const t = dx || dy ? Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy))) : 0
  return (p[0] - a[0] - t * dx) ** 2 + (p[1] - a[1] - t * dy) ** 2
}

/** Every vertex of `part` lies within `tol` tile units of the path of `other` (closed when a ring). */
function onPath(part: [number, number][], other: [number, number][], tol: number): boolean {
  return part.every((p) => other.length === 1 ? segDist2(p, other[0]!, other[0]!) <= tol * tol
    : other.some((a, i) => i + 1 < other.length && segDist2(p, a, other[i + 1]!) <= tol * tol))
}

/**
 * Feature `b` (PostGIS) as feature `a` (SQLite): id, type, attributes; points within a tile
 * unit, each line or ring within `tolerance` of the other's path (and the other way round).
 */
function expectSameFeature(a: DecodedFeature, b: DecodedFeature, where: string, tolerance: number): void {
  expect({ where, id: b.id, type: b.type, properties: b.properties }).toEqual({ where, id: a.id, type: a.type, properties: a.properties })
  if (a.type === 1) {
    const flat = (f: DecodedFeature) => f.geometry.flat().sort((p, q) => p[0] - q[0] || p[1] - q[1])
    const [pa, pb] = [flat(a), flat(b)]
    expect(pb.length, where).toBe(pa.length)
    pa.forEach((p, i) => expect(Math.max(Math.abs(p[0] - pb[i]![0]), Math.abs(p[1] - pb[i]![1])), where).toBeLessThanOrEqual(1))
    return
  }
  expect(b.geometry.length, `${where}: parts`).toBe(a.geometry.length)
  // Rings may start elsewhere and keep a collinear vertex more or less: each path lies on the other.
  const close = (r: [number, number][]) => (a.type === 3 ? [...r, r[0]!] : r)
  a.geometry.forEach((part, i) => {
    const other = b.geometry[i]!
    expect(onPath(part, close(other), tolerance) && onPath(other, close(part), tolerance), `${where}: part ${i} ${JSON.stringify(part)} vs ${JSON.stringify(other)}`)
      .toBe(true)
  })
}

async function expectSameTiles(pairs: [Api, number][], tiles: [number, number, number][]): Promise<number> {
  let compared = 0
  const [first, ...others] = pairs
  const [refApi, refId] = first!
  for (const t of tiles) {
    for (const [extra, tolerance] of VARIANTS) {
      const ref = await tileOf(refApi, refId, t, extra)
      for (const [api, id] of others) {
        const got = await tileOf(api, id, t, extra)
        const where = `tile ${t.join('/')}${extra}`
        expect(got === undefined, `${where}: empty`).toBe(ref === undefined)
        if (!ref || !got) continue
        expect([got.version, got.extent], where).toEqual([ref.version, ref.extent])
        expect(got.features.map((f) => f.id), where).toEqual(ref.features.map((f) => f.id))
        ref.features.forEach((f, i) => expectSameFeature(f, got.features[i]!, `${where}, feature ${f.id}`, tolerance))
        compared += ref.features.length
      }
    }
  }
  return compared
}

/** A layer made alike on both hosts (fids 1…n on each: fresh layers). */
async function layerOnBoth(geometryType: string, srs: number, fields: unknown[], features: unknown[]): Promise<[number, number]> {
  const ids: number[] = []
  for (const h of [sqlite, postgres]) {
    const id = await createLayer(h.api, expect, geometryType, fields, srs)
    expect(await addFeatures(h.api, expect, id, features, '?dt_format=iso')).toEqual(features.map((_, i) => i + 1))
    ids.push(id)
  }
  return ids as [number, number]
}

async function spatialDbLayer(table: string): Promise<number> {
  const api = postgres.api
  const conn = await api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'spatialdb_connection', parent: { id: 0 }, display_name: `PostGIS ${table}` },
    spatialdb_connection: { hostname: c.host, port: c.port, database: teamDb, username: 'postgres', password: 'unused' } } })
  expect(conn.status).toBe(201)
  const res = await api.request('POST', '/api/resource/', { body: {
    resource: { cls: 'spatialdb_layer', parent: { id: 0 }, display_name: `Layer ${table}` },
    spatialdb_layer: { connection: { id: conn.body.id }, table, column_id: 'id', column_geom: 'geom', srs: { id: 3857 }, fields: 'update' } } })
  expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined })
  return res.body.id
}

describe('vector tiles on SQLite and on PostGIS (ST_AsMVT) are the same to a client', () => {
  it('points with every field type: the PostgreSQL host\'s layer and a team\'s table in EPSG:4326 answer as SQLite does', async () => {
    const features = POINTS.map(([x, y, fields]) => ({ geom: `POINT(${x} ${y})`, fields }))
    const [a, b] = await layerOnBoth('POINT', 3857, FIELDS, features)
    // The same rows in a team's table, stored in EPSG:4326 (the layer in 3857: transformed both ways).
    await team.query(`CREATE TABLE pts (id serial PRIMARY KEY, name text, n integer, big bigint, v double precision, ok boolean,
      day date, "at" time, ts timestamp, geom geometry(Point, 4326))`)
    for (const [x, y, f] of POINTS) {
      const r = { ...NULLS, ...f }
      await team.query(`INSERT INTO pts (name, n, big, v, ok, day, "at", ts, geom)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, ST_Transform(ST_SetSRID(ST_MakePoint($9, $10), 3857), 4326))`,
      [r.name, r.n, r.big, r.v, r.ok, r.day, r.at, r.ts, x, y])
    }
    const remote = await spatialDbLayer('pts')
    // The engine cut them (Server-Timing names it), and the SQLite host its R*Tree or index.
    const timing = async (api: Api, id: number) =>
      (await api.request('GET', `/api/component/feature_layer/mvt?resource=${id}&z=10&x=512&y=511&extent=999`)).headers['server-timing']
    expect(await timing(postgres.api, b)).toMatch(/;desc=engine,/)
    expect(await timing(postgres.api, remote)).toMatch(/;desc=engine,/)
    expect(await timing(sqlite.api, a)).toMatch(/;desc=(rtree|indexing|index),/)
    const first = await tileOf(postgres.api, b, [10, 512, 511])
    expect(first!.features.map((f) => f.id)).toEqual([1, 2, 3, 4, 5])
    expect(first!.features[0]!.properties).toEqual({ name: 'Well #1', n: 7, big: '9007199254740993', v: 2.5, ok: true, day: '2020-02-29',
      at: '12:34:56', ts: '2020-02-29T12:34:56' })
    expect(await expectSameTiles([[sqlite.api, a], [postgres.api, b], [postgres.api, remote]], POINT_TILES)).toBeGreaterThan(40)
  })

  it('lines clipped at the padded edge and simplified, on both hosts', async () => {
    const [a, b] = await layerOnBoth('MULTILINESTRING', 3857, [{ keyname: 'name', datatype: 'STRING' }],
      LINES.map((geom, i) => ({ geom, fields: { name: `line ${i}` } })))
    expect(await expectSameTiles([[sqlite.api, a], [postgres.api, b]], LINE_TILES)).toBeGreaterThan(15)
  })

  it('polygons in EPSG:4326 with holes, clipped and wound as MVT wants them, on both hosts', async () => {
    const [a, b] = await layerOnBoth('POLYGON', 4326, [{ keyname: 'name', datatype: 'STRING' }],
      POLYGONS.map((geom, i) => ({ geom, fields: { name: `polygon ${i}` } })))
    expect(await expectSameTiles([[sqlite.api, a], [postgres.api, b]], POLYGON_TILES)).toBeGreaterThan(15)
    const whole = (await tileOf(postgres.api, b, [4, 8, 7]))!.features[0]!
    expect(whole.geometry).toHaveLength(2)
  })
})

/**
 * At most one point per thinning cell, up to rounding: the cells are 4096 / 128 = 32 tile units
 * from the padded tile's lower left corner (-204.8, 4300.8). Unthinned, these layers' points
 * are closer than a cell.
 */
function expectOnePerCell(layer: DecodedLayer): void {
  const cellOf = ([x, y]: [number, number]) => `${Math.floor((x + 204.8) / 32)},${Math.floor((4300.8 - y) / 32)}`
  const cells = new Set(layer.features.map((f) => cellOf(f.geometry[0]![0]!)))
  expect(cells.size).toBeGreaterThan(layer.features.length * 0.95)
}

describe('a full tile on PostGIS is thinned (more than 16,384 features in its box)', () => {
  it('a team\'s table of 60,000 points: the zoom-0 tile keeps one point per cell, a zoom-4 tile all of its own', async () => {
    // A 300 × 200 grid over the whole world: every thinning cell of the zoom-0 tile holds one or more.
    await team.query(`CREATE TABLE many (id serial PRIMARY KEY, k integer, geom geometry(Point, 3857));
      INSERT INTO many (k, geom) SELECT i, ST_SetSRID(ST_MakePoint(-20000000 + (i % 300) * (40000000 / 300.0) + 1,
        -20000000 + (i / 300) * (40000000 / 200.0) + 1), 3857) FROM generate_series(0, 59999) AS i;
      CREATE INDEX ON many USING gist (geom); ANALYZE many`)
    const id = await spatialDbLayer('many')
    const z0 = (await tileOf(postgres.api, id, [0, 0, 0]))!
    expect(new Set(z0.features.map((f) => f.id)).size).toBe(z0.features.length)
    expect(z0.features.length).toBeLessThanOrEqual((GRID + 1) ** 2)
    expect(z0.features.length).toBeGreaterThan(GRID * GRID * 0.9)
    expectOnePerCell(z0)
    // A tile under the limit keeps every feature in its box.
    const inZ4 = Number((await team.query(`SELECT count(*) FROM many WHERE geom && ST_TileEnvelope(4, 8, 7, margin => 0.05)`)).rows[0].count)
    expect((await tileOf(postgres.api, id, [4, 8, 7]))!.features.length).toBe(inZ4)
  })

  it('the PostgreSQL host\'s own layer: 20,000 points in one zoom-10 tile are thinned to at most one per cell', async () => {
    const features = Array.from({ length: 20_000 }, (_, i) => ({ geom: `POINT(${100 + (i % 160) * 240} ${100 + Math.floor(i / 160) * 300})` }))
    const id = await createLayer(postgres.api, expect, 'POINT', [], 3857)
    await addFeatures(postgres.api, expect, id, features)
    const t = (await tileOf(postgres.api, id, [10, 512, 511]))!
    expect(t.features.length).toBeLessThanOrEqual((GRID + 1) ** 2)
    expect(t.features.length).toBeGreaterThan(GRID * GRID * 0.5)
    expectOnePerCell(t)
    // Its quarter tile at zoom 11 holds 5,000: all of them.
    expect((await tileOf(postgres.api, id, [11, 1024, 1023]))!.features.length).toBeGreaterThan(4500)
  }, 120_000)
})

describe('a tile of a team\'s table that changed under the layer', () => {
  it('is the 422 of the missing column, and nothing else is touched', async () => {
    await team.query(`CREATE TABLE shrinking (id serial PRIMARY KEY, name text, geom geometry(Point, 3857));
      INSERT INTO shrinking (name, geom) VALUES ('a', 'SRID=3857;POINT(1000 2000)')`)
    const id = await spatialDbLayer('shrinking')
    expect((await tileOf(postgres.api, id, [10, 512, 511]))!.features).toHaveLength(1)
    await team.query('ALTER TABLE shrinking DROP COLUMN name')
    const res = await postgres.api.request('GET', `/api/component/feature_layer/mvt?resource=${id}&z=10&x=512&y=511`)
    expect({ status: res.status, exception: res.body?.exception, message: res.body?.message }).toEqual({ status: 422,
      exception: 'nextgisweb.core.exception.ValidationError', message: "Column 'name' not found in table 'public.shrinking'!" })
    expect((await team.query('SELECT count(*)::int AS n FROM shrinking')).rows).toEqual([{ n: 1 }])
  })
})
