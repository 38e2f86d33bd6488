/**
 * PostGIS layer benchmark (issue 24): a team's own 1,000,000-point table published as a layer
 * (sw/postgres/external/layer.ts `remoteLayer`) against the bare SQL a client of that database
 * would send, in one run on one throwaway cluster (test/bench/postgis.ts):
 * - a listing with a filter and a page (an attribute filter; a box): `remoteLayer`'s `list`
 *   (its transaction, the statement of features/filter.ts, rows to canonical values and WKB to
 *   geometries) against the hand-written query through the same `pg` pool;
 * - an uncached vector tile of `remoteLayer` (sw/mvt/service.ts `layerTile`: its engine path,
 *   one `ST_AsMVT` statement with the thinning, sw/postgres/features/tile.ts), of the same rows
 *   as a PostgreSQL host's own layer table (`PgFeatureLayer.tile`, same statement over
 *   `layer_1`), and through the generic reads and our encoder (the path before the engine's),
 *   against bare `ST_AsMVT` on the same table; and the zoom-0 tile of the whole table.
 * Results go to the "PostGIS layers (a team's table)" section of docs/benchmarks.md.
 * `BENCH_BIG=100000` shrinks the table for a quick run.
 */
import { loadavg } from 'node:os'
import pg from 'pg'
import { remoteLayer } from '../../sw/postgres/external/layer.ts'
import { PgFeatureLayer } from '../../sw/postgres/features/layer.ts'
import { PgUnits } from '../../sw/postgres/uow.ts'
import type { PgTokens } from '../../sw/postgres/tokens.ts'
import { GRID, THIN_ABOVE } from '../../sw/mvt/select.ts'
import { layerTile } from '../../sw/mvt/service.ts'
import type { DataOutServices } from '../../sw/feature/capability.ts'
import type { FeatureFilter, FeatureLayer, FeatureQuery, Field, LayerMeta } from '../../sw/feature/types.ts'
import { machine, median, timeRuns, writeSection } from './report.ts'
import { startPostgis } from './postgis.ts'
import { position, tileSet } from './tiles-data.ts'

const PORT = Number(process.env.E2E_PORT ?? 4313)
const COUNT = Number(process.env.BENCH_BIG ?? 1_000_000)
const RUNS = 21
const PER_ZOOM = Number(process.env.BENCH_TILES_PER_ZOOM ?? 6)
const SEED = 3

const field = (id: number, keyname: string, datatype: Field['datatype']): Field => ({ id, keyname, display_name: keyname, datatype,
  typemod: null, label_field: false, grid_visibility: true, text_search: true, required: false, lookup_table: null })
const FIELDS = [field(1, 'name', 'STRING'), field(2, 'n', 'INTEGER'), field(3, 'v', 'REAL'), field(4, 'day', 'DATE')]
const META: LayerMeta = { resourceId: 1, srs: 3857, geometryType: 'POINT', fields: FIELDS }

async function load(client: pg.Client): Promise<void> {
  await client.query(`CREATE TABLE roads (id serial PRIMARY KEY, geom geometry(Point, 3857), name text, n integer, v double precision, day date)`)
  for (let i = 0; i < COUNT; i += 50_000) {
    const xs: number[] = [], ys: number[] = []
    for (let k = i; k < Math.min(COUNT, i + 50_000); k++) {
      const [x, y] = position(SEED, k)
      xs.push(x)
      ys.push(y)
    }
    await client.query(`INSERT INTO roads (geom, name, n, v, day) SELECT ST_SetSRID(ST_MakePoint(x, y), 3857), 'feature ' || (o - 1 + $3),
      o - 1 + $3, (o - 1 + $3) / 7.0, date '2024-01-01' + ((o - 1 + $3) % 365)::int FROM unnest($1::float8[], $2::float8[]) WITH ORDINALITY AS u(x, y, o)`,
    [xs, ys, i])
  }
  await client.query('CREATE INDEX ON roads USING gist (geom)')
  // The same points stored in EPSG:4326, for a layer in 3857 over them (ST_Transform both ways).
  await client.query(`CREATE TABLE roads_4326 AS SELECT id, ST_Transform(geom, 4326)::geometry(Point, 4326) AS geom, name, n, v, day FROM roads;
    ALTER TABLE roads_4326 ADD PRIMARY KEY (id); CREATE INDEX ON roads_4326 USING gist (geom)`)
  // The same rows as a PostgreSQL host's own layer table (postgres/features/schema.ts: fid, fld_<field id>).
  await client.query(`CREATE TABLE layer_1 AS SELECT id::bigint AS fid, geom, name::varchar AS fld_1, n AS fld_2, v AS fld_3, day AS fld_4 FROM roads;
    ALTER TABLE layer_1 ADD PRIMARY KEY (fid); CREATE INDEX ON layer_1 USING gist (geom)`)
  for (const t of ['roads', 'roads_4326', 'layer_1']) await client.query(`VACUUM ANALYZE ${t}`)
}

interface Listing { label: string; query: FeatureQuery; sql: string; params: unknown[]; layer?: 'roads_4326' }

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2))

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const db = await startPostgis(PORT)
  try {
    const t0 = performance.now()
    await load(db.client)
    console.log(`loaded ${COUNT} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    const pool = new pg.Pool({ host: db.host, port: db.port, user: 'postgres', database: db.database, max: 2 })
    try {
      const layerOf = (table: string, geometrySrid: number) => remoteLayer(pool, { schema: 'public', table, columnId: 'id', columnGeom: 'geom',
        geometryType: 'POINT', geometrySrid, columns: new Map(FIELDS.map((f) => [f.id, f.keyname])) }, META)
      const layer = layerOf('roads', 3857)
      const layer4326 = layerOf('roads_4326', 4326)
      const shape = { geom: true, fields: FIELDS, label: false, description: false }
      const [x, y] = position(SEED, 12345)
      // A box around one feature, grown until the page (100 rows from 200) is full: an empty page would time only the overhead.
      let r = 20_000
      while (Number((await pool.query(`SELECT count(*) FROM roads WHERE geom && ST_MakeEnvelope($1, $2, $3, $4, 3857)`,
        [x - r, y - r, x + r, y + r])).rows[0].count) < 300) r *= 2
      const box: FeatureFilter = { conditions: [], filtered: true, intersects: { type: 'Polygon',
        coordinates: [[[x - r, y - r], [x + r, y - r], [x + r, y + r], [x - r, y + r], [x - r, y - r]]] } }
      const COLS = `id, ST_AsBinary(geom) AS geom, name, n, v, to_char(day, 'YYYY-MM-DD') AS day`
      const listings: Listing[] = [
        { label: '`n >= 500000 AND name LIKE \'feature 7%\'`, ordered by `n` descending, 100 rows from 1,000',
          query: { filter: { conditions: [{ field: FIELDS[1]!, op: 'ge', value: 500_000 }, { field: FIELDS[0]!, op: 'like', value: 'feature 7%' }], filtered: true },
            order: [{ field: FIELDS[1]!, desc: true }], limit: 100, offset: 1000 },
          sql: `SELECT ${COLS} FROM roads WHERE n >= $1 AND name LIKE $2 ORDER BY n DESC, id LIMIT 100 OFFSET 1000`, params: [500_000, 'feature 7%'] },
        { label: '`n < 5000`, by id, 100 rows from 1,000 (the primary key\'s order: the bare query is cheapest here)',
          query: { filter: { conditions: [{ field: FIELDS[1]!, op: 'lt', value: 5000 }], filtered: true }, limit: 100, offset: 1000 },
          sql: `SELECT ${COLS} FROM roads WHERE n < $1 ORDER BY id LIMIT 100 OFFSET 1000`, params: [5000] },
        { label: `features in a ${(2 * r) / 1000} km box (\`intersects\`), 100 rows from 200 by id`,
          query: { filter: box, limit: 100, offset: 200 },
          sql: `SELECT ${COLS} FROM roads WHERE ST_Intersects(geom, ST_MakeEnvelope($1, $2, $3, $4, 3857)) ORDER BY id LIMIT 100 OFFSET 200`,
          params: [x - r, y - r, x + r, y + r] },
        { label: 'the same box on the table in EPSG:4326 (the layer in 3857: the box and the rows transformed)', layer: 'roads_4326',
          query: { filter: box, limit: 100, offset: 200 },
          sql: `SELECT id, ST_AsBinary(ST_Transform(geom, 3857)) AS geom, name, n, v, to_char(day, 'YYYY-MM-DD') AS day FROM roads_4326
            WHERE ST_Intersects(geom, ST_Transform(ST_MakeEnvelope($1, $2, $3, $4, 3857), 4326)) ORDER BY id LIMIT 100 OFFSET 200`,
          params: [x - r, y - r, x + r, y + r] },
      ]
      const listed: { label: string; ours: number[]; bare: number[]; rows: number }[] = []
      for (const l of listings) {
        let rows = 0
        const bare = await timeRuns(RUNS, async () => { rows = (await pool.query(l.sql, l.params)).rows.length })
        const ours = await timeRuns(RUNS, async () => {
          const got = await (l.layer ? layer4326 : layer).read((tx) => tx.list(l.query, shape))
          if (got.length !== rows) throw new Error(`${l.label}: ${got.length} rows, the bare query ${rows}`)
        })
        listed.push({ label: l.label, ours, bare, rows })
        console.log(`${l.label}: ours ${fmt(median(ours))} ms, bare ${fmt(median(bare))} ms (${rows} rows)`)
      }
      // Tiles: the same tile set as the tiles benchmark (features in each): the engine's statement
      // (the remote layer through layerTile, and a host's own layer table), the generic path, bare ST_AsMVT.
      const services = { platform: { host: 'node', log: () => {} } } as unknown as DataOutServices
      const opts = { extent: 4096, padding: 0.05, simplification: 4096 / 512 }
      const engineOpts = { ...opts, layerName: 'svc:1', thinAbove: THIN_ABOVE, grid: GRID }
      const generic: FeatureLayer = { meta: layer.meta, read: layer.read, write: layer.write }
      // No tokens: the own layer's tile is asked of it directly, as layerTile asks it on a cache miss.
      const own = new PgFeatureLayer(META, new PgUnits(pool, 'layer:1'), null as unknown as PgTokens, () => new Date())
      const mvtSql = `SELECT ST_AsMVT(q, 'svc:1', 4096, 'geom', 'fid') AS tile FROM (
        SELECT id AS fid, name, n, v, to_char(day, 'YYYY-MM-DD') AS day, ST_AsMVTGeom(geom, ST_TileEnvelope($1, $2, $3), 4096, 205, true) AS geom
        FROM roads WHERE geom && ST_TileEnvelope($1, $2, $3, margin => 0.05)) q`
      const run = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
        await fn() // warms the buffers: neither side is timed cold
        const s = performance.now()
        const out = await fn()
        return [performance.now() - s, out]
      }
      type Side = 'postgis' | 'engine' | 'own' | 'generic'
      const tiles: ({ z: number } & Record<Side, number> & Record<`${Side}Bytes`, number>)[] = []
      for (const [z, tx, ty] of tileSet(SEED, COUNT, PER_ZOOM)) {
        const [p, r] = await run(() => pool.query(mvtSql, [z, tx, ty]))
        const [e, te] = await run(() => layerTile(services, layer, { z, x: tx, y: ty }, opts))
        const [o, to] = await run(() => own.tile({ z, x: tx, y: ty }, engineOpts))
        const [g, tg] = await run(() => layerTile(services, generic, { z, x: tx, y: ty }, opts))
        if (te.cached || tg.cached || te.source !== 'engine' || tg.source !== 'generic') throw new Error('not the paths meant')
        tiles.push({ z, postgis: p, engine: e, own: o, generic: g, postgisBytes: (r.rows[0]?.tile as Buffer | null)?.length ?? 0,
          engineBytes: te.bytes.length, ownBytes: to.length, genericBytes: tg.bytes.length })
      }
      const groups: [string, number, number][] = [['5–8', 5, 8], ['9–11', 9, 11], ['12–14', 12, 14], ['all', 5, 14]]
      const tileRows = groups.map(([label, lo, hi]) => {
        const g = tiles.filter((t) => t.z >= lo && t.z <= hi)
        const m = (side: Side) => median(g.map((t) => t[side]))
        const cellOf = (side: Side) => `${fmt(m(side))} ms (${(median(g.map((t) => t[`${side}Bytes`])) / 1024).toFixed(0)} KiB)`
        const ratio = (side: Side) => `${(m('postgis') / m(side)).toFixed(2)}×`
        return `| ${label} | ${g.length} | ${cellOf('postgis')} | ${cellOf('engine')} | ${ratio('engine')} | ${cellOf('own')} | ${ratio('own')} | ${
          cellOf('generic')} | ${ratio('generic')} |`
      })
      for (const r of tileRows) console.log(r)
      // The zoom-0 tile of the whole table, once each (bare ST_AsMVT encodes every row; ours is thinned).
      const z0 = async (fn: () => Promise<number>): Promise<[number, number]> => { const s = performance.now(); const size = await fn(); return [performance.now() - s, size] }
      const [z0p, z0pBytes] = await z0(async () => (((await pool.query(mvtSql, [0, 0, 0])).rows[0]?.tile as Buffer | null)?.length ?? 0))
      const [z0e, z0eBytes] = await z0(async () => (await layerTile(services, layer, { z: 0, x: 0, y: 0 }, opts)).bytes.length)
      const z0Line = `Zoom-0 tile of all ${COUNT.toLocaleString('en')} points, run once: bare \`ST_AsMVT\` ${fmt(z0p)} ms, ${(z0pBytes / 2 ** 20).toFixed(1)} MiB; `
        + `the engine's thinned tile ${fmt(z0e)} ms, ${(z0eBytes / 2 ** 20).toFixed(2)} MiB (${(z0p / z0e).toFixed(1)}× faster).`
      console.log(z0Line)
      const body = [
        `Machine: ${machine()}; ${db.version} (throwaway cluster, fsync on), reached by \`pg\` over a Unix socket.`,
        `Command: \`npm run bench -- postgis-layer\`. The machine is shared: load average ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end (2 cores).`,
        '',
        `A team's table of ${COUNT.toLocaleString('en')} points (\`id serial\`, \`geom geometry(Point, 3857)\` under a GiST index, \`name text\`, \`n integer\`,`,
        '`v double precision`, `day date`; the tiles benchmark\'s seeded positions), published as a layer by `remoteLayer`',
        '(sw/postgres/external/layer.ts) and read beside the bare SQL a client of that database sends, through the same `pg` pool.',
        '',
        `Listing with a filter and a page (median of ${RUNS}, after one warm-up run): Outpost = \`layer.read((tx) => tx.list(…))\` — its`,
        'REPEATABLE READ READ ONLY transaction (BEGIN and COMMIT: two more round trips), the statement features/filter.ts builds, every',
        'row to canonical values and its WKB decoded to a geometry; bare = the hand-written query, rows as `pg` parses them (WKB left as bytes).',
        '',
        '| listing | rows | bare SQL | Outpost `remoteLayer` | ratio (Outpost ÷ bare; target ≤ 1.5×) |',
        '|---|---|---|---|---|',
        ...listed.map((l) => `| ${l.label} | ${l.rows} | ${fmt(median(l.bare))} ms | ${fmt(median(l.ours))} ms | ${(median(l.ours) / median(l.bare)).toFixed(2)}× |`),
        '',
        `Uncached vector tiles (${tiles.length} tiles, ${PER_ZOOM} per zoom 5–14 where the data has them, each run twice and the second`,
        'run timed): bare `ST_AsMVT` over the GiST index with the same four attributes, against (1) `layerTile` (sw/mvt/service.ts) on',
        'the remote layer: its engine path, one `ST_AsMVT` statement outside a transaction (sw/postgres/features/tile.ts: attributes as',
        'our encoder writes them, lines and polygons simplified, a tile of more than 16,384 features thinned to one per cell of a',
        '128 × 128 grid, which bare `ST_AsMVT` does not do); (2) the same statement on the same rows as a PostgreSQL host\'s own layer',
        'table (`PgFeatureLayer.tile`); (3) the generic path used before it (the features intersecting the padded tile read with `list`,',
        'at most 16,384, cut and written by our encoder). No token on these layers, so never cached. Ratio = PostGIS ÷ Outpost (above 1:',
        'Outpost faster; target ≥ 1, issue 23 "uncached tiles no slower than `ST_AsMVT` alone").',
        '',
        '| zooms | tiles | PostGIS `ST_AsMVT` (median size) | engine, remote layer | ratio | engine, own layer table | ratio | generic path (before) | ratio |',
        '|---|---|---|---|---|---|---|---|---|',
        ...tileRows,
        '',
        'Tiles holding more than 16,384 points (the low zooms of a big table) are thinned by the engine and not by bare `ST_AsMVT`',
        '(compare the sizes); below that both write tiles of the same size from the same rows. The engine\'s statement is prepared once',
        'per connection (no parse, and after PostgreSQL\'s first five runs no planning); bare `ST_AsMVT` is planned on every run.',
        '',
        z0Line,
      ].join('\n')
      writeSection("PostGIS layers (a team's table)", body)
    } finally {
      await pool.end()
    }
  } finally {
    await db.stop()
  }
}

main().catch((err) => { console.error(err); process.exit(1) })
