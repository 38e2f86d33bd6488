/**
 * A vector layer from a file on PostgreSQL: the same files ingested through the create's
 * prepare hook (`prepareVectorLayer`, what `POST /api/resource/` runs) into SQLite and into
 * PostGIS (a throwaway cluster: test/pg/cluster.ts) list the same features, fids, values and
 * geometries; a refused file and a cancel leave no table on PostgreSQL.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nodePlatform } from '../../sw/host/node.ts'
import { openServices, type Services } from '../../sw/services.ts'
import { openPostgresData, type PostgresPort } from '../../sw/postgres/port.ts'
import { storeUploads } from '../../sw/upload/service.ts'
import { prepareVectorLayer, type PreparedLayer } from '../../sw/classes/vector_layer/ingest.ts'
import { SILENT, type Progress } from '../../sw/ingest/progress.ts'
import type { DataPort } from '../../sw/port/port.ts'
import { cluster } from '../pg/shared.ts'
import { featureCollection, zippedShapefile, pointsGeojson, polygonsGpkg, utf8 } from '../api/ingest-files.ts'

let sqlite: Services
let pg: Services
let pgData: PostgresPort
let pgUrl: string

beforeAll(async () => {
  sqlite = await openServices(nodePlatform({ admin: { password: 'pw', mustChange: false }, log: () => {} }))
  pgUrl = await (await cluster()).database('ingest')
  pgData = await openPostgresData(pgUrl)
  // The app over PostgreSQL: the same platform (GDAL) and GeoPackage sources, PostgreSQL's port.
  pg = { ...sqlite, data: pgData }
}, 120_000)

afterAll(async () => { await pgData?.close() })

interface Ingest { bytes: Uint8Array; name: string; member?: Record<string, unknown> }

async function prepare(s: Services, f: Ingest, progress: Progress = SILENT, signal?: AbortSignal): Promise<PreparedLayer> {
  const [source] = await storeUploads(s, [{ bytes: f.bytes, name: f.name }])
  return prepareVectorLayer({ platform: s.platform, data: s.data, gpkgSources: s.gpkgSources },
    { srs: { id: 3857 }, source, ...f.member }, { progress, signal })
}

/** The layer as a client sees it: type, fields (keyname, type), then every feature (fid, geometry, values) in fid order. */
async function listed(data: DataPort, p: PreparedLayer) {
  const layer = await data.features.open({ resourceId: p.resourceId, srs: p.srs, geometryType: p.geometryType, fields: p.fields }, () => new Date())
  const rows = await layer.read((tx) => tx.list({}, { geom: true, fields: p.fields, label: false, description: false }))
  return JSON.parse(JSON.stringify({ geometryType: p.geometryType, count: p.count,
    fields: p.fields.map((f) => [f.keyname, f.datatype]), rows }, (_k, v) => typeof v === 'bigint' ? `${v}n` : v))
}

/** Every layer table in the database, pending ones included. */
const layerTables = async () => (await pgData.pool.query(`SELECT relname FROM pg_class
  WHERE relnamespace = to_regnamespace(current_schema()) AND relname ~ '^layer_[0-9]+$'`)).rows.map((r) => Number(r.relname.slice(6))).sort((a, b) => a - b)
const tableOf = async (id: number) => (await pgData.pool.query('SELECT to_regclass($1) AS t', [`layer_${id}`])).rows[0].t

/** What a client polling the progress sees: the stages with their totals, and each count done. */
function recorder() {
  const events: string[] = []
  const progress: Progress = { stage: (s, total) => { events.push(`${s}/${total ?? ''}`) }, done: (n) => { events.push(String(n)) } }
  return { events, progress }
}

/** The same file on both engines: the same answers, and the same progress reported. */
async function same(f: Ingest) {
  const [ra, rb] = [recorder(), recorder()]
  const a = await prepare(sqlite, f, ra.progress)
  const b = await prepare(pg, f, rb.progress)
  a.settle(); b.settle()
  const [x, y] = [await listed(sqlite.data, a), await listed(pgData, b)]
  expect(y).toEqual(x)
  expect(rb.events).toEqual(ra.events)
  return y
}

// 2^53 + 1 as the file says it (no JavaScript number holds it).
const TYPES = featureCollection([
  { geometry: { type: 'Point', coordinates: [30.1, 60.1] },
    properties: { name: 'Ключ «1»', big: 'BIG', n: 7, r: 2.5, d: '2024-05-01', t: '12:30:15', dt: '2024-05-01T12:30:15', ok: true } },
  { geometry: { type: 'Point', coordinates: [30.2, 60.2] },
    properties: { name: '', big: 1, n: -3, r: 0, d: '1999-12-31', t: '00:00:00', dt: '1999-12-31T23:59:59', ok: false } },
  { geometry: { type: 'Point', coordinates: [30.3, 60.3] },
    properties: { name: null, big: null, n: null, r: null, d: null, t: null, dt: null, ok: null } },
]).replace('"BIG"', '9007199254740993')

describe('ingest on PostgreSQL: the same layer as on SQLite', () => {
  it('wells.geojson (the fixture): fids, values, points', async () => {
    const out = await same({ bytes: readFileSync(new URL('../fixtures/wells.geojson', import.meta.url)), name: 'wells.geojson' })
    expect(out.count).toBe(3)
    expect(out.rows[0]).toMatchObject({ fid: 1, values: ['North', 12.5, 1998] })
  })

  it('every field type: text (Cyrillic, empty), BIGINT past 2^53, integer, real, date, time, datetime, boolean, nulls', async () => {
    const out = await same({ bytes: utf8(TYPES), name: 'types.geojson' })
    expect(out.fields.map((f: string[]) => f[1])).toEqual(['STRING', 'BIGINT', 'INTEGER', 'REAL', 'DATE', 'TIME', 'DATETIME', 'BOOLEAN'])
    expect(out.rows[0].values).toEqual(['Ключ «1»', '9007199254740993n', 7, 2.5, '2024-05-01', '12:30:15', '2024-05-01T12:30:15', 1])
  })

  it('a polygon layer from a GeoPackage', async () => {
    const out = await same({ bytes: await polygonsGpkg(), name: 'landuse.gpkg' })
    expect(out.geometryType).toBe('POLYGON')
    expect(out.rows).toHaveLength(2)
  })

  it('3D lines (LINESTRINGZ) and 3D multipolygons', async () => {
    const lines = await same({ bytes: utf8(featureCollection([
      { geometry: { type: 'LineString', coordinates: [[30, 60, 1], [30.1, 60.1, 2.5]] }, properties: { k: 'a' } },
      { geometry: { type: 'LineString', coordinates: [[31, 61, -3], [31.1, 61.2, 0], [31.3, 61.2, 7]] }, properties: { k: 'b' } },
    ])), name: 'lines.geojson' })
    expect(lines.geometryType).toBe('LINESTRINGZ')
    expect(lines.rows[1].geom.coordinates).toHaveLength(3)
    const polys = await same({ bytes: utf8(featureCollection([
      { geometry: { type: 'MultiPolygon', coordinates: [[[[30, 60, 5], [31, 60, 5], [31, 61, 5], [30, 60, 5]]], [[[32, 60, 1], [33, 60, 1], [33, 61, 1], [32, 60, 1]]]] }, properties: {} },
    ])), name: 'polys.geojson' })
    expect(polys.geometryType).toBe('MULTIPOLYGONZ')
  })

  it('a CP1251 shapefile in a ZIP', async () => {
    const out = await same({ bytes: await zippedShapefile(), name: 'wells.zip' })
    expect(out.rows[0].values[0]).toBe('Скважина №1')
  })

  it('12,000 points: several batches, fids in order', async () => {
    const out = await same({ bytes: utf8(pointsGeojson(12_000)), name: 'many.geojson' })
    expect(out.rows).toHaveLength(12_000)
    expect(out.rows[11_999].fid).toBe(12_000)
    const r = recorder()
    ;(await prepare(pg, { bytes: utf8(pointsGeojson(12_000)), name: 'many.geojson' }, r.progress)).settle()
    expect(r.events.slice(-5)).toEqual(['checking/12000', '5000', '10000', '12000', 'writing/12000'])
  })

  it('fids from a field, skipped features renumbered, geometries fixed (SAFE) and multi cast', async () => {
    const file = featureCollection([
      { geometry: { type: 'Polygon', coordinates: [[[30, 60], [31, 60], [31, 61]]] }, properties: { num: 10 } },
      { geometry: null, properties: { num: 20 } },
      { geometry: { type: 'Polygon', coordinates: [[[32, 60], [33, 60], [33, 61], [32, 60]]] }, properties: { num: 30 } },
    ])
    const byField = await same({ bytes: utf8(file), name: 'fid.geojson',
      member: { fid_source: 'FIELD', fid_field: 'num', skip_errors: true, fix_errors: 'SAFE', cast_is_multi: true } })
    expect(byField.rows.map((r: { fid: number }) => r.fid)).toEqual([10, 30])
    expect(byField.geometryType).toBe('MULTIPOLYGON')
    const renumbered = await same({ bytes: utf8(file), name: 'skip.geojson', member: { skip_errors: true, fix_errors: 'SAFE' } })
    expect(renumbered.rows.map((r: { fid: number }) => r.fid)).toEqual([1, 2])
  })

  it('new features after an ingest take fids after the largest', async () => {
    const p = await prepare(pg, { bytes: utf8(featureCollection([{ geometry: { type: 'Point', coordinates: [30, 60] }, properties: { num: 41 } }])),
      name: 'ids.geojson', member: { fid_source: 'FIELD', fid_field: ['num'] } })
    p.settle()
    const layer = await pgData.features.open({ resourceId: p.resourceId, srs: p.srs, geometryType: p.geometryType, fields: p.fields }, () => new Date())
    expect(await layer.write((tx) => tx.create({ geom: { type: 'Point', coordinates: [1, 2] }, fields: [], values: [] }))).toBe(42)
  })
})

describe('ingest on PostgreSQL: nothing is left of a refused or cancelled one', () => {
  it('a refused feature near the end: the same 422 as SQLite, no table', async () => {
    const good = JSON.parse(pointsGeojson(7_000))
    good.features[6_499].geometry = null
    const f = { bytes: utf8(JSON.stringify(good)), name: 'late.geojson' }
    const expected = await prepare(sqlite, f).then(() => undefined, (e) => e)
    const before = await layerTables()
    const err = await prepare(pg, f).then(() => undefined, (e) => e)
    expect(expected?.opts?.data).toMatchObject({ file: 'late.geojson', feature: 6_500 })
    expect({ status: err?.status, message: err?.message, opts: err?.opts }).toEqual({ status: 422, message: expected.message, opts: expected.opts })
    expect(await layerTables()).toEqual(before)
  })

  it('refused values (a control character, three times): the same 422 listing each, no table', async () => {
    const file = featureCollection([1, 2, 3, 4].map((i) => ({ geometry: { type: 'Point', coordinates: [30, 60] },
      properties: { name: i === 3 ? 'fine' : `bad\u0001${i}` } })))
    const f = { bytes: utf8(file), name: 'ctl.geojson' }
    const expected = await prepare(sqlite, f).then(() => undefined, (e) => e)
    expect(expected?.opts?.data?.errors).toHaveLength(3)
    const before = await layerTables()
    const err = await prepare(pg, f).then(() => undefined, (e) => e)
    expect({ status: err?.status, message: err?.message, opts: err?.opts }).toEqual({ status: 422, message: expected.message, opts: expected.opts })
    expect(await layerTables()).toEqual(before)
  })

  it('a bad id column: 422, no table', async () => {
    const file = featureCollection([1, 1].map((num) => ({ geometry: { type: 'Point', coordinates: [30, 60] }, properties: { num } })))
    const before = await layerTables()
    const err = await prepare(pg, { bytes: utf8(file), name: 'dup.geojson', member: { fid_source: 'FIELD', fid_field: 'num' } }).then(() => undefined, (e) => e)
    expect(err?.status).toBe(422)
    expect(await layerTables()).toEqual(before)
  })

  it('cancelled (AbortSignal) while its features are loaded: rolled back, no table', async () => {
    const ctl = new AbortController()
    let id: number | undefined
    const stages: string[] = []
    const progress: Progress = { stage: (s) => { stages.push(s) }, done: () => { if (!ctl.signal.aborted) ctl.abort(new Error('cancelled')) } }
    const before = await layerTables()
    const err = await prepare(pg, { bytes: utf8(pointsGeojson(12_000)), name: 'cancel.geojson' }, progress, ctl.signal)
      .then((p) => { id = p.resourceId }, (e) => e)
    expect(id).toBeUndefined()
    expect(err?.message).toBe('cancelled')
    expect(stages).toContain('checking')
    expect(await layerTables()).toEqual(before)
  })

  it('until settle(), no process lists the new layer as stored (no sweep takes it); then it is listed', async () => {
    const other = await openPostgresData(pgUrl)
    try {
      const p = await prepare(pg, { bytes: utf8(pointsGeojson(3)), name: 'held.geojson' })
      expect(await tableOf(p.resourceId)).not.toBeNull()
      expect(await pgData.features.stored()).not.toContain(p.resourceId)
      expect(await other.features.stored()).not.toContain(p.resourceId)
      p.settle()
      await expect.poll(() => other.features.stored()).toContain(p.resourceId)
      expect(await pgData.features.stored()).toContain(p.resourceId)
    } finally {
      await other.close()
    }
  })

  it('a hold whose process died lapses after an hour: the sweep may then take the table', async () => {
    const p = await prepare(pg, { bytes: utf8(pointsGeojson(2)), name: 'died.geojson' })
    await pgData.pool.query(`UPDATE outpost_layer_pending SET since = now() - interval '61 minutes' WHERE id = $1`, [p.resourceId])
    expect(await pgData.features.stored()).toContain(p.resourceId)
    await pgData.features.drop(p.resourceId)
    expect(await tableOf(p.resourceId)).toBeNull()
    expect((await pgData.pool.query('SELECT count(*)::int AS n FROM outpost_layer_pending WHERE id = $1', [p.resourceId])).rows[0].n).toBe(0)
  })
})
