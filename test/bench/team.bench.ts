/**
 * Team benchmark (issue 23, `npm run bench -- team`): the Node host on PostgreSQL + PostGIS
 * beside the Node host on SQLite and bare PostGIS, in one run on one throwaway cluster
 * (test/bench/postgis.ts). Every host is a process of its own (test/api/node-process.ts), started
 * as `npm run serve` starts it (the compiled build), asked over keep-alive HTTP, as PostgreSQL is
 * a process of its own:
 * (a) the features benchmark: a batch of 10,000 new points (one PATCH), the list of them, single
 *     reads, a single edit (PUT) in a 100,000-point layer; bare PostGIS: one multi-row INSERT from
 *     arrays, a SELECT, a SELECT by id, an UPDATE, through `pg`;
 * (b) uncached vector tiles of the tiles benchmark's 100,000 points and tile set on the
 *     PostgreSQL host beside `ST_AsMVT` alone on the same points;
 * (c) the first pull and a push of 10,000 features (sync.bench.ts's round), the PostgreSQL host
 *     and the SQLite host as the local side, the team's server a SQLite host;
 * (d) requests per second of a read mix with one and with two PostgreSQL host processes on one
 *     database, spread round-robin by a keep-alive client loop, with the CPU each side used
 *     (/proc: the host processes, the cluster's processes, this process, the rest of the machine).
 * Medians go to the "Team server (PostgreSQL)" section of docs/benchmarks.md.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { kill, startHost, type Host } from '../api/node-process.ts'
// @ts-expect-error plain JS build script
import { buildNode } from '../../scripts/build-node.mjs'
import { NODE_ADMIN_PASSWORD } from '../api/node-client.ts'
import { machine, median, timeRuns, writeSection } from './report.ts'
import { startPostgis, type Postgis } from './postgis.ts'
import { pointFeature, tileSet } from './tiles-data.ts'
import pg from 'pg'
import { engineTile, type TileTable } from '../../sw/postgres/features/tile.ts'
import { ownColumns } from '../../sw/postgres/features/filter.ts'
import { tablesOf } from '../../sw/postgres/features/schema.ts'
import { GRID, THIN_ABOVE } from '../../sw/mvt/select.ts'
import type { Field, LayerMeta } from '../../sw/feature/types.ts'

const PORT = Number(process.env.E2E_PORT ?? 4373)
const BATCH = 10_000
const RUNS = 3
const READS = 200
const BIG = 100_000
const EDITS = 15
const PER_ZOOM = Number(process.env.BENCH_TILES_PER_ZOOM ?? 8)
const SEED = 1
const SYNC_N = 10_000
/** Seconds of each read-mix measurement, after a warm-up of `MIX_WARM` seconds. */
const MIX_SECONDS = Number(process.env.BENCH_MIX_SECONDS ?? 15)
const MIX_WARM = 3
/** Requests in flight at once in the read mix (spread round-robin over the processes). */
const CONCURRENCY = 8
const AUTH = 'Basic ' + Buffer.from(`administrator:${NODE_ADMIN_PASSWORD}`).toString('base64')
const FIELDS = [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }, { keyname: 'v', datatype: 'REAL' },
  { keyname: 'day', datatype: 'DATE' }]
/**
 * How `npm run serve` starts the host (package.json, scripts/serve.mjs): the compiled build
 * (dist-node/, made at the start of the run) with the same V8 flags, so the numbers are
 * production's, not tsx's on-the-fly compilation.
 */
const SERVE = ['--max-semi-space-size=2', '--v8-pool-size=1', 'scripts/serve.mjs']
const TILE_FIELDS = [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }]

// ---- HTTP: a keep-alive node:http client per host ----

interface Answer { ms: number; status: number; text: string; bytes: number; serverTiming: string }
interface Client { base: string; call(method: string, path: string, body?: string): Promise<Answer>; close(): void }

function client(base: string, sockets = 1): Client {
  // node:http with keep-alive, as the tiles benchmark: fetch (undici) spends more per request than a cached answer costs.
  const agent = new Agent({ keepAlive: true, maxSockets: sockets })
  const call = (method: string, path: string, body?: string) => new Promise<Answer>((resolve, reject) => {
    const t0 = performance.now()
    const req = request(base + path, { method, agent, headers: { authorization: AUTH, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const bytes = Buffer.concat(chunks)
        resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, bytes: bytes.length, serverTiming: String(res.headers['server-timing'] ?? ''),
          text: String(res.headers['content-type'] ?? '').includes('json') ? bytes.toString('utf8') : '' })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
  return { base, call, close: () => agent.destroy() }
}

async function ok(c: Client, method: string, path: string, body?: unknown): Promise<Answer> {
  const r = await c.call(method, path, body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body))
  if (r.status >= 300) throw new Error(`${c.base}: ${method} ${path} → ${r.status} ${r.text.slice(0, 300)}`)
  return r
}
const json = <T>(a: Answer) => JSON.parse(a.text) as T

async function newLayer(c: Client, fields = FIELDS, extra: Record<string, unknown> = {}): Promise<number> {
  return json<{ id: number }>(await ok(c, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 },
    display_name: `bench ${Date.now()} ${Math.random()}` }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields }, ...extra })).id
}

// ---- the data ----

interface Row { x: number; y: number; name: string; n: number; v: number; day: string }
/** features.bench.ts's rows. */
function rows(count: number, seed: number): Row[] {
  return Array.from({ length: count }, (_, i) => ({ x: 4_000_000 + i * 7.5, y: 7_500_000 + seed * 1000 + (i % 977) * 3.25,
    name: `feature ${seed}-${i}`, n: i, v: i / 7, day: `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}` }))
}
const patchBody = (rs: Row[]) => JSON.stringify(rs.map((r) => ({ geom: `POINT(${r.x} ${r.y})`, fields: { name: r.name, n: r.n, v: r.v, day: r.day } })))
/** The tiles benchmark's 100,000 points (tiles-data.ts, seed 1), `from` to `to`. */
const tilePoints = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => pointFeature(SEED, from + k))
const TILES = tileSet(SEED, BIG, PER_ZOOM)
const tilePath = (id: number, [z, x, y]: [number, number, number], extra = '') => `/api/component/feature_layer/mvt?resource=${id}&z=${z}&x=${x}&y=${y}${extra}`

// ---- (a) features, (b) tiles on a host ----

/** `batch`: into a new layer as created by default (versioning on); `plain`: one with versioning off, as bare PostGIS's table. */
interface FeatureTimes { batch: number[]; plain: number[]; list: number[]; read: number[]; edit: number[] }
interface HostTimes extends FeatureTimes { bigLayer: number; layer: number; fids: number[] }

async function hostFeatures(c: Client, label: string): Promise<HostTimes> {
  // A server in use has compiled its request path (V8's JIT), as PostgreSQL's is compiled C.
  for (let k = 0; k < 500; k++) await ok(c, 'GET', '/api/component/pyramid/pkg_version')
  const out: HostTimes = { batch: [], plain: [], list: [], read: [], edit: [], bigLayer: 0, layer: 0, fids: [] }
  // Versioned (a new layer's default) and plain batches in turn, so both meet the same moments of the machine's load.
  for (let i = 0; i < 2 * RUNS; i++) {
    const versioned = i % 2 === 0
    const layer = await newLayer(c, FIELDS, versioned ? {} : { feature_layer: { versioning: { enabled: false } } })
    // Opened once first (untimed): its first open makes the layer's side tables (history,
    // attachments, sync bookkeeping), as bare PostGIS's table is made before its timed INSERT.
    await ok(c, 'GET', `/api/resource/${layer}/feature/?limit=1`)
    const r = await ok(c, 'PATCH', `/api/resource/${layer}/feature/`, patchBody(rows(BATCH, i >> 1)))
    if (json<unknown[]>(r).length !== BATCH) throw new Error(`${label}: batch answered ${json<unknown[]>(r).length}`)
    ;(versioned ? out.batch : out.plain).push(r.ms)
    if (versioned) out.layer = layer
    console.log(`${label}: batch of ${BATCH} ${r.ms.toFixed(0)} ms (versioning ${versioned ? 'on' : 'off'})`)
  }
  out.list = await timeRuns(RUNS, async () => {
    const n = json<unknown[]>(await ok(c, 'GET', `/api/resource/${out.layer}/feature/`)).length
    if (n !== BATCH) throw new Error(`${label}: list returned ${n}`)
  })
  out.fids = json<{ id: number }[]>(await ok(c, 'GET', `/api/resource/${out.layer}/feature/?fields=&geom=no`)).map((f) => f.id)
  for (let i = 0; i < READS; i++) out.read.push((await ok(c, 'GET', `/api/resource/${out.layer}/feature/${out.fids[(i * 37) % BATCH]}`)).ms)
  // The big layer: the tiles benchmark's 100,000 points, for the edits and the tiles.
  const big = out.bigLayer = await loadBig(c, label)
  const first = json<{ id: number }[]>(await ok(c, 'GET', `/api/resource/${big}/feature/?limit=1&fields=&geom=no`))[0]!.id
  for (let i = 0; i <= EDITS; i++) {
    const e = await ok(c, 'PUT', `/api/resource/${big}/feature/${first + 1000 * i + 17}`,
      { geom: `POINT(${4e6 + i} ${7.6e6})`, fields: { name: `edited ${i}`, n: -i } })
    if (i > 0) out.edit.push(e.ms) // the first edit warms the statement path
  }
  console.log(`${label}: list ${median(out.list).toFixed(0)} ms, read ${median(out.read).toFixed(2)} ms, edit in ${BIG} ${median(out.edit).toFixed(1)} ms`)
  return out
}

/** A new layer of the tiles benchmark's 100,000 points: its id. */
async function loadBig(c: Client, label: string): Promise<number> {
  const big = await newLayer(c, TILE_FIELDS)
  const t0 = performance.now()
  for (let i = 0; i < BIG; i += BATCH) {
    await ok(c, 'PATCH', `/api/resource/${big}/feature/`, tilePoints(i, i + BATCH).map((f) => ({ geom: f.wkt, fields: { name: f.name, n: f.n } })))
  }
  console.log(`${label}: ${BIG} points loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  return big
}

/** The phases a cut tile's `Server-Timing` names (sw/mvt/routes.ts `TilePhases`). */
const PHASES = ['tokens', 'auth', 'check', 'layers', 'engine', 'tile'] as const
type Phases = Record<(typeof PHASES)[number], number[]>
const PHASE_NAMES: Record<(typeof PHASES)[number], string> = {
  tokens: '`tokens`: the change counters\' read (one statement)', auth: '`auth`: the credentials (cached)',
  check: '`check`: routing and the permission check (cached)', layers: '`layers`: the request\'s layers (cached)',
  engine: '`engine`: the tile statement (its round trip, and `pg` reading the answer)', tile: '`tile`: the tile cache and the rest',
}

// ---- bare PostGIS: the same rows through `pg` ----

interface BareTimes extends FeatureTimes { rowwise: number }

async function bare(db: Postgis): Promise<BareTimes> {
  const { client } = db
  const out: BareTimes = { batch: [], plain: [], list: [], read: [], edit: [], rowwise: 0 }
  const table = async (name: string) => {
    // The layer table's own column types (postgres/features/schema.ts): a bigint identity, varchar for STRING.
    await client.query(`CREATE TABLE ${name} (fid bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, geom geometry(Point, 3857), name varchar,
      n integer, v double precision, day date)`)
    await client.query(`CREATE INDEX ON ${name} USING gist (geom)`)
  }
  for (let i = 0; i < RUNS; i++) {
    await table(`b${i}`)
    const rs = rows(BATCH, i)
    const t0 = performance.now()
    await client.query('BEGIN')
    const r = await client.query(`INSERT INTO b${i} (geom, name, n, v, day)
      SELECT ST_GeomFromText(g, 3857), name, n, v, day FROM unnest($1::text[], $2::text[], $3::int[], $4::float8[], $5::date[]) AS u(g, name, n, v, day)
      RETURNING fid`, [rs.map((r) => `POINT(${r.x} ${r.y})`), rs.map((r) => r.name), rs.map((r) => r.n), rs.map((r) => r.v), rs.map((r) => r.day)])
    await client.query('COMMIT')
    out.batch.push(performance.now() - t0)
    if (r.rowCount !== BATCH) throw new Error('postgis batch failed')
  }
  const last = `b${RUNS - 1}`
  out.list = await timeRuns(RUNS, async () => {
    const r = await client.query(`SELECT fid, ST_AsText(geom) AS geom, name, n, v, day FROM ${last} ORDER BY fid`)
    if (r.rowCount !== BATCH) throw new Error('postgis list failed')
  })
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now()
    await client.query(`SELECT fid, ST_AsText(geom) AS geom, name, n, v, day FROM ${last} WHERE fid = $1`, [1 + ((i * 37) % BATCH)])
    out.read.push(performance.now() - t0)
  }
  // The tiles benchmark's points, for the edits and `ST_AsMVT`.
  await loadBare(client)
  for (let i = 0; i <= EDITS; i++) {
    const t0 = performance.now()
    await client.query(`UPDATE p100k SET geom = ST_GeomFromText($1, 3857), name = $2, n = $3 WHERE fid = $4`,
      [`POINT(${4e6 + i} ${7.6e6})`, `edited ${i}`, -i, 1000 * i + 17])
    if (i > 0) out.edit.push(performance.now() - t0)
  }
  console.log(`postgis: batch ${median(out.batch).toFixed(0)} ms, list ${median(out.list).toFixed(0)} ms, read ${median(out.read).toFixed(2)} ms, ` +
    `edit ${median(out.edit).toFixed(2)} ms`)
  return out
}

/** The tiles benchmark's points in a bare table `p100k` with a GiST index, as tiles.bench.ts makes it. */
async function loadBare(client: pg.ClientBase): Promise<void> {
  await client.query(`CREATE TABLE p100k (fid serial PRIMARY KEY, geom geometry(Point, 3857), name text, n integer)`)
  for (let i = 0; i < BIG; i += 50_000) {
    const fs = tilePoints(i, Math.min(BIG, i + 50_000))
    await client.query(`INSERT INTO p100k (geom, name, n) SELECT ST_GeomFromText(g, 3857), name, n FROM unnest($1::text[], $2::text[], $3::int[]) AS u(g, name, n)`,
      [fs.map((f) => f.wkt), fs.map((f) => f.name), fs.map((f) => f.n)])
  }
  await client.query('CREATE INDEX ON p100k USING gist (geom)')
  await client.query('VACUUM ANALYZE p100k')
}

/** Per kind: each tile's time (ms); the host's `Server-Timing` (`server`) and its phases too. */
interface TileTimes { host: number[]; server: number[]; phases: Phases; bare: number[]; prepared: number[]; ours: number[]; before: number[]; floor: number[]
  /** CPU ms per run of each kind (the host process, the cluster's processes, this process as the client): work, not waiting. */
  cpu: Record<string, CpuSample> }

/**
 * The tile set, the kinds interleaved per tile (so they meet the same moments of the machine's
 * load). `host`: the PostgreSQL host's request for the tile at the default extent after the set
 * was cut once at `extent=4095` (so it is cut anew, never from the tile cache), as the tiles
 * benchmark does; `server` its `Server-Timing`. The statements alone through `pg`, no HTTP, each
 * run twice and the second timed: `bare`, tiles.bench.ts's query on `p100k` (features in the
 * tile grown by 5 %, clipped and encoded), unnamed (parsed and planned each run), as that
 * benchmark sends it; `prepared`, the same text as a named statement (parsed once, planned once
 * after five runs), as the host sends its own; `ours`, the host's own statement
 * (sw/postgres/features/tile.ts, thinning included) on the host's layer table, through
 * `engineTile` on a connection of our own to the host's database.
 */
async function tileRuns(c: Client, big: number, client: pg.ClientBase, hostDb: pg.ClientBase, cpu: () => CpuSample, before?: Client): Promise<TileTimes> {
  const out: TileTimes = { host: [], server: [], phases: Object.fromEntries(PHASES.map((k) => [k, []])) as unknown as Phases,
    bare: [], prepared: [], ours: [], before: [], floor: [], cpu: {} }
  const layer = await tileTableOf(c, big)
  for (const h of before ? [c, before] : [c]) for (const t of TILES) await ok(h, 'GET', tilePath(big, t, '&extent=4095'))
  const sql = `SELECT ST_AsMVT(q, 'svc:1', 4096, 'geom', 'fid') AS tile FROM (
    SELECT fid, name, n, ST_AsMVTGeom(geom, ST_TileEnvelope($1, $2, $3), 4096, 205, true) AS geom
    FROM p100k WHERE geom && ST_TileEnvelope($1, $2, $3, margin => 0.05)) q`
  const opts = { extent: 4096, padding: 0.05, simplification: 8, layerName: `svc:${big}`, thinAbove: THIN_ABOVE, grid: GRID }
  const twice = (run: () => Promise<unknown>) => async () => {
    await run()
    const t0 = performance.now()
    await run()
    return performance.now() - t0
  }
  const kinds: [keyof TileTimes, (t: [number, number, number]) => Promise<number>][] = [
    ['host', async (t) => {
      const r = await ok(c, 'GET', tilePath(big, t))
      const m = /^(cut|cache);dur=([\d.]+)/.exec(r.serverTiming)
      if (m?.[1] !== 'cut') throw new Error(`tile ${t.join('/')} was not cut anew (${r.serverTiming})`)
      out.server.push(Number(m[2]))
      for (const k of PHASES) out.phases[k].push(Number(new RegExp(`(?:^|, )${k};dur=([\\d.]+)`).exec(r.serverTiming)?.[1] ?? NaN))
      return r.ms
    }],
    ['bare', ([z, x, y]) => twice(() => client.query(sql, [z, x, y]))()],
    ['prepared', ([z, x, y]) => twice(() => client.query({ name: 'bare_tile', text: sql, values: [z, x, y] }))()],
    ['ours', ([z, x, y]) => twice(() => engineTile(hostDb, layer, { z, x, y }, opts))()],
    // The least a request to the host costs: HTTP, the change counters' read, routing, a small JSON answer.
    ['floor', async () => (await ok(c, 'GET', '/api/component/pyramid/pkg_version')).ms],
  ]
  // Another build's host on the same database (`BENCH_TEAM_BEFORE`): an A/B of the request in the same run.
  if (before) kinds.push(['before', async (t) => (await ok(before, 'GET', tilePath(big, t))).ms])
  for (const [i, t] of TILES.entries()) {
    for (let k = 0; k < kinds.length; k++) {
      const [kind, run] = kinds[(i + k) % kinds.length]!
      const c0 = cpu()
      ;(out[kind] as number[]).push(await run(t))
      const c1 = cpu(), sum = (out.cpu[kind] ??= { host: 0, postgres: 0, client: 0 })
      // A statement alone ran twice (the first untimed): half of it.
      const runs = ['bare', 'prepared', 'ours'].includes(kind) ? 2 : 1
      for (const w of ['host', 'postgres', 'client'] as const) sum[w] += (c1[w] - c0[w]) / TILES.length / runs
    }
  }
  const m = median
  console.log(`${TILES.length} uncached tiles, medians: host ${m(out.host).toFixed(2)} ms (server ${m(out.server).toFixed(2)}: ${
    PHASES.map((k) => `${k} ${m(out.phases[k]).toFixed(2)}`).join(', ')}); alone: bare ${m(out.bare).toFixed(2)}, prepared ${
    m(out.prepared).toFixed(2)}, ours ${m(out.ours).toFixed(2)} ms; CPU ms per run (host/postgres/client): ${Object.entries(out.cpu).map(([k, v]) =>
    `${k} ${v.host.toFixed(2)}/${v.postgres.toFixed(2)}/${v.client.toFixed(2)}`).join(', ')}; a request of pkg_version ${m(out.floor).toFixed(2)} ms${before ? `; the other build's host ${m(out.before).toFixed(2)} ms` : ''}`)
  return out
}

/** The host's layer of the 100,000 points as its tile statement sees it (field ids from the API). */
async function tileTableOf(c: Client, id: number): Promise<TileTable> {
  const r = json<{ feature_layer: { fields: Field[] } }>(await ok(c, 'GET', `/api/resource/${id}`))
  const meta: LayerMeta = { resourceId: id, srs: 3857, geometryType: 'POINT', fields: r.feature_layer.fields }
  return { from: `${tablesOf(id).features} f`, cols: ownColumns(3857), srid: 3857, meta }
}

// ---- (c) sync: first pull and push of 10,000 ----

interface SyncTimes { pull: number[]; push: number[] }

async function syncSide(local: Client, remote: Client, label: string): Promise<SyncTimes> {
  const conn = json<{ id: number }>(await ok(local, 'POST', '/api/resource/', { resource: { cls: 'remote_connection', parent: { id: 0 },
    display_name: `team server ${Math.random()}` }, remote_connection: { url: remote.base, username: 'administrator', password: NODE_ADMIN_PASSWORD } })).id
  const out: SyncTimes = { pull: [], push: [] }
  for (let r = 0; r < RUNS; r++) {
    const rl = await newLayer(remote, FIELDS, { feature_layer: { versioning: { enabled: true } } })
    await ok(remote, 'PATCH', `/api/resource/${rl}/feature/`, patchBody(rows(SYNC_N, 50 + r)))
    const pulled = await ok(local, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `offline ${Math.random()}` },
      vector_layer: { remote: { connection: { id: conn }, resource: { id: rl } } } })
    out.pull.push(pulled.ms)
    const lid = json<{ id: number }>(pulled).id
    const mine = json<{ id: number; fields: { n: number } }[]>(await ok(local, 'GET', `/api/resource/${lid}/feature/?fields=n&geom=no`))
    if (mine.length !== SYNC_N) throw new Error(`${label}: pulled ${mine.length} of ${SYNC_N}`)
    await ok(local, 'PATCH', `/api/resource/${lid}/feature/`, mine.map((f) => ({ id: f.id, fields: { n: f.fields.n + 1 } })))
    const pushed = await ok(local, 'POST', `/api/resource/${lid}/sync`)
    out.push.push(pushed.ms)
    const report = json<{ status: string; pushed: { updated: number } }>(pushed)
    if (report.status !== 'ok' || report.pushed.updated !== SYNC_N) throw new Error(`${label}: push ${pushed.text.slice(0, 300)}`)
    const theirs = json<{ fields: { n: number; name: string } }[]>(await ok(remote, 'GET', `/api/resource/${rl}/feature/?fields=n,name&geom=no`))
    if (theirs.length !== SYNC_N || theirs.some((f) => f.fields.n !== Number(f.fields.name.split('-')[1]) + 1)) throw new Error(`${label}: the remote differs after the push`)
    console.log(`${label}: first pull ${pulled.ms.toFixed(0)} ms, push ${pushed.ms.toFixed(0)} ms`)
  }
  return out
}

// ---- (d) the read mix: requests per second, and whose CPU it took ----

const TICK = 100 // USER_HZ: /proc's clock ticks per second on Linux
/** CPU seconds a process has used (user + system). */
function cpuOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) / TICK
  } catch {
    return 0
  }
}
/** The cluster's postmaster and its children (backends, writers): their pids. */
/** CPU ms used so far by a host process, the cluster's processes and this process (statements through `pg` include their twice-run). */
interface CpuSample { host: number; postgres: number; client: number }
const cpuSampler = (hostPid: number, pgPids: number[]) => (): CpuSample => ({ host: cpuOf(hostPid) * 1000,
  postgres: pgPids.reduce((a, p) => a + cpuOf(p), 0) * 1000, client: (process.cpuUsage().user + process.cpuUsage().system) / 1000 })

function clusterPids(db: Postgis): number[] {
  const postmaster = Number(readFileSync(join(db.host, 'data', 'postmaster.pid'), 'utf8').split('\n')[0])
  const out = [postmaster]
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) out.push(Number(d))
    } catch { /* gone */ }
  }
  return out
}
/** The whole machine's busy CPU seconds (every core, every process: others' work included). */
function machineBusy(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  const idle = f[3]! + f[4]!
  return (f.reduce((a, b) => a + b, 0) - idle) / TICK
}

interface MixResult { processes: number; requests: number; seconds: number; rps: number; p50: number; hosts: number; postgres: number; bench: number; others: number; kinds: Record<string, number> }

/** One kind of request of the mix, given a counter (spreads pages, fids and tiles). */
type MixRequest = [kind: string, path: (i: number) => string]

async function readMix(hosts: Host[], db: Postgis, mix: MixRequest[]): Promise<MixResult> {
  const clients = hosts.map((h) => client(h.base, CONCURRENCY))
  try {
    let next = 0
    let stopAt = 0
    let counting = false
    const times: number[] = []
    const kinds: Record<string, number> = {}
    const worker = async () => {
      while (performance.now() < stopAt) {
        const i = next++
        // Round-robin over the processes, as a proxy's default spreads them; each process gets every kind in turn.
        const c = clients[i % clients.length]!
        const [kind, path] = mix[Math.floor(i / clients.length) % mix.length]!
        const r = await c.call('GET', path(i))
        if (r.status !== 200) throw new Error(`read mix: ${kind} ${path(i)} → ${r.status} ${r.text.slice(0, 200)}`)
        if (counting) { times.push(r.ms); kinds[kind] = (kinds[kind] ?? 0) + 1 }
      }
    }
    const run = async (seconds: number) => {
      stopAt = performance.now() + seconds * 1000
      await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    }
    await run(MIX_WARM)
    const pgPids = clusterPids(db)
    const sample = () => ({ hosts: hosts.reduce((a, h) => a + cpuOf(h.proc.pid!), 0), postgres: pgPids.reduce((a, p) => a + cpuOf(p), 0),
      bench: (process.cpuUsage().user + process.cpuUsage().system) / 1e6, machine: machineBusy(), at: performance.now() })
    counting = true
    const before = sample()
    await run(MIX_SECONDS)
    const after = sample()
    counting = false
    const seconds = (after.at - before.at) / 1000
    const cores = (k: 'hosts' | 'postgres' | 'bench' | 'machine') => (after[k] - before[k]) / seconds
    const ours = cores('hosts') + cores('postgres') + cores('bench')
    return { processes: hosts.length, requests: times.length, seconds, rps: times.length / seconds, p50: median(times), hosts: cores('hosts'),
      postgres: cores('postgres'), bench: cores('bench'), others: Math.max(0, cores('machine') - ours), kinds }
  } finally {
    for (const c of clients) c.close()
  }
}

// ---- the run ----

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2))
const runs = (ms: number[]) => ms.map(fmt).join(', ')
const met = (yes: boolean) => (yes ? 'met' : '**not met**')

async function main(): Promise<void> {
  if (!buildNode()) throw new Error('the Node host did not build')
  const loadStart = loadavg()
  const started = performance.now()
  const db = await startPostgis(PORT)
  const dirs: string[] = []
  const hosts: Host[] = []
  const clients: Client[] = []
  const host = async (args: string[] = [], dir = mkdtempSync(join(tmpdir(), 'outpost-team-bench-'))) => {
    if (!dirs.includes(dir)) dirs.push(dir)
    const h = await startHost(dir, args, SERVE)
    // A host's own log (an error behind a 500) goes to the run's output.
    h.proc.stderr!.on('data', (b: Buffer) => process.stderr.write(`[host ${h.base}] ${b}`))
    hosts.push(h)
    const c = client(h.base)
    clients.push(c)
    return { h, c, dir }
  }
  let hostDb: pg.Client | undefined
  try {
    const url = await db.newDatabase('team')
    const pgHost = await host(['--database', url])
    hostDb = new pg.Client({ connectionString: url })
    await hostDb.connect()
    if (process.env.BENCH_TEAM_ONLY === 'tiles') {
      // Only the tile part, printed, docs/benchmarks.md left as it is: for working on the tile path.
      await loadBare(db.client)
      // BENCH_TEAM_BEFORE=<another checkout, built>: its host on the same database, asked for each tile too.
      const other = process.env.BENCH_TEAM_BEFORE
      const before = other ? await startHost(mkdtempSync(join(tmpdir(), 'outpost-team-bench-')), ['--database', url],
        [...SERVE.slice(0, -1), join(other, 'scripts/serve.mjs')]) : undefined
      if (before) hosts.push(before)
      await tileRuns(pgHost.c, await loadBig(pgHost.c, 'PostgreSQL host'), db.client, hostDb, cpuSampler(pgHost.h.proc.pid!, clusterPids(db)),
        before && client(before.base))
      return
    }
    const sqliteHost = await host()
    const remote = await host()
    const pgr = await bare(db)
    const onPg = await hostFeatures(pgHost.c, 'PostgreSQL host')
    const tiles = await tileRuns(pgHost.c, onPg.bigLayer, db.client, hostDb, cpuSampler(pgHost.h.proc.pid!, clusterPids(db)))
    const onSqlite = await hostFeatures(sqliteHost.c, 'SQLite host')
    const syncPg = await syncSide(pgHost.c, remote.c, 'sync, PostgreSQL host local')
    const syncSqlite = await syncSide(sqliteHost.c, remote.c, 'sync, SQLite host local')
    // The read mix on the PostgreSQL host's data: pages of the 10,000-feature layer, single
    // features, tiles of the 100,000 points (cut once per process, then from its tile cache), the layer's resource.
    const { layer, bigLayer, fids } = onPg
    const mix: MixRequest[] = [
      ['page of 100 features', (i) => `/api/resource/${layer}/feature/?limit=100&offset=${(i * 100) % BATCH}`],
      ['one feature', (i) => `/api/resource/${layer}/feature/${fids[(i * 7919) % fids.length]}`],
      ['tile', (i) => tilePath(bigLayer, TILES[i % TILES.length]!)],
      ['resource', () => `/api/resource/${bigLayer}`],
    ]
    await kill(sqliteHost.h)
    await kill(remote.h)
    const one = await readMix([pgHost.h], db, mix)
    console.log(`read mix, 1 process: ${one.rps.toFixed(0)} requests/s`)
    const second = await host(['--database', url], pgHost.dir)
    const two = await readMix([pgHost.h, second.h], db, mix)
    console.log(`read mix, 2 processes: ${two.rps.toFixed(0)} requests/s`)
    const loadEnd = loadavg()
    const minutes = (performance.now() - started) / 60_000

    const m = median
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`
    const line = (op: string, p: number, g: number, s: number) => `| ${op} | ${fmt(p)} ms | ${fmt(g)} ms (${ratio(g, p)}) | ${fmt(s)} ms (${ratio(s, p)}) |`
    const mixLine = (r: MixResult) => `| ${r.processes} | ${r.rps.toFixed(0)} | ${fmt(r.p50)} ms | ${r.hosts.toFixed(2)} | ${r.postgres.toFixed(2)} | ${
      r.bench.toFixed(2)} | ${r.others.toFixed(2)} | ${(r.hosts + r.postgres + r.bench + r.others).toFixed(2)} of 2 |`
    const batchRatio = m(onPg.batch) / m(pgr.batch)
    const plainRatio = m(onPg.plain) / m(pgr.batch)
    const tileRatio = m(tiles.host) / m(tiles.bare)
    const scale = two.rps / one.rps
    const body = [
      `Machine: ${machine()}; ${db.version} (throwaway cluster, fsync on, \`shared_buffers=32MB\`), reached over a Unix socket.`,
      `Command: \`npm run bench -- team\` (${minutes.toFixed(1)} min). The machine is shared with other developers' work: load average`,
      `${loadStart.map((l) => l.toFixed(1)).join(' / ')} (1 / 5 / 15 min) at the start, ${loadEnd.map((l) => l.toFixed(1)).join(' / ')} at the end (2 cores).`,
      '',
      'Every Outpost host is a process of its own, started as `npm run serve` starts it (the compiled dist-node/ build, built at',
      'the start of the run, `node --max-semi-space-size=2 --v8-pool-size=1 scripts/serve.mjs`), asked by a keep-alive `node:http`',
      'client in the benchmark\'s process: "PostgreSQL host" is `--database` on a fresh database of the cluster, "SQLite host" a',
      'data folder. Bare PostGIS is the same rows through `pg` on the same cluster: one `INSERT … SELECT FROM unnest(…)` per batch',
      '(in a transaction), `SELECT … ORDER BY fid`, `SELECT … WHERE fid = $1`, `UPDATE … WHERE fid = $1`, no HTTP in between.',
      'Each host\'s new layer is opened once (an untimed `GET …/feature/?limit=1`) before its timed batch: the first open makes the',
      'layer\'s side tables (history, attachments, sync bookkeeping), as the bare table is made before its timed INSERT.',
      '',
      `### Features (median of ${RUNS} batches and lists, ${READS} reads, ${EDITS} edits)`,
      '',
      '| operation | bare PostGIS | PostgreSQL host (× bare) | SQLite host (× bare) |',
      '|---|---|---|---|',
      line(`batch-create ${BATCH.toLocaleString('en')} points (PATCH), versioning on (a new layer's default)`, m(pgr.batch), m(onPg.batch), m(onSqlite.batch)),
      line(`batch-create ${BATCH.toLocaleString('en')} points (PATCH), versioning off`, m(pgr.batch), m(onPg.plain), m(onSqlite.plain)),
      line(`list ${BATCH.toLocaleString('en')} features`, m(pgr.list), m(onPg.list), m(onSqlite.list)),
      line('read one feature', m(pgr.read), m(onPg.read), m(onSqlite.read)),
      line(`edit one feature in ${BIG.toLocaleString('en')} (PUT)`, m(pgr.edit), m(onPg.edit), m(onSqlite.edit)),
      '',
      `Batches, in order (ms): bare ${runs(pgr.batch)}; PostgreSQL host ${runs(onPg.batch)} (versioning off: ${runs(onPg.plain)}); SQLite host ${
        runs(onSqlite.batch)} (off: ${runs(onSqlite.plain)}). Bare PostGIS has no versioning: its table is the plain layer's (the`,
      'same column types, a `bigint` identity, a GiST index, one transaction); the versioned batch also',
      'writes a version row and a `_vstate` row per feature (in the same statement as the features).',
      '',
      `### Uncached vector tiles (${TILES.length} tiles of the tiles benchmark's ${BIG.toLocaleString('en')} points, zooms 5–14)`,
      '',
      'The kinds interleaved per tile. PostgreSQL host: each tile\'s first request at the default extent after the set was cut once',
      'at `extent=4095` (so it is cut anew, never from the tile cache), as the tiles benchmark does; "server" is its `Server-Timing`.',
      'The statements alone through `pg` (no HTTP), each run twice and the second timed: bare `ST_AsMVT` is the tiles benchmark\'s',
      'query on a bare table of the same points with a GiST index, sent unnamed as that benchmark sends it (parsed and planned each',
      'time) and as a named statement (prepared: parsed once, planned once after five runs, as the host sends its own); "ours" is',
      'the host\'s own statement (sw/postgres/features/tile.ts, with the thinning) on the host\'s layer table, prepared.',
      '',
      '| | median | × bare `ST_AsMVT` | × bare, prepared |',
      '|---|---|---|---|',
      ...([['bare `ST_AsMVT`', tiles.bare], ['bare `ST_AsMVT`, prepared', tiles.prepared], ['our tile statement alone (prepared)', tiles.ours],
        ['PostgreSQL host, request', tiles.host], ['PostgreSQL host, server (`Server-Timing`)', tiles.server],
        ['for scale: a request to the host that reads nothing but the counters (`pyramid/pkg_version`)', tiles.floor]] as [string, number[]][])
        .map(([what, v]) => `| ${what} | ${fmt(m(v))} ms | ${ratio(m(v), m(tiles.bare))} | ${ratio(m(v), m(tiles.prepared))} |`),
      '',
      'CPU per tile (ms; from /proc, so work, not waiting, and little moved by other work on the machine: each run sampled before',
      'and after; the client is the benchmark\'s own process, `pg` or `node:http`):',
      '',
      '| | PostgreSQL | Node host | client | in all |',
      '|---|---|---|---|---|',
      ...([['bare `ST_AsMVT`', 'bare'], ['bare `ST_AsMVT`, prepared', 'prepared'], ['our tile statement alone', 'ours'], ['PostgreSQL host, request', 'host'],
        ['`pyramid/pkg_version`', 'floor']] as const).map(([what, k]) => {
        const v = tiles.cpu[k]!
        return `| ${what} | ${fmt(v.postgres)} | ${k === 'host' || k === 'floor' ? fmt(v.host) : '–'} | ${fmt(v.client)} | ${fmt(v.postgres + (k === 'host' || k === 'floor' ? v.host : 0) + v.client)} |`
      }),
      '',
      'Where the host\'s request goes, median of each phase over the tile set (medians need not add up): the request\'s time outside',
      'its `Server-Timing` (HTTP both ways, node-server turning it into a `Request` and the `Response` into bytes), then the phases',
      'the `Server-Timing` names (sw/mvt/routes.ts `TilePhases`).',
      '',
      '| phase | ms |',
      '|---|---|',
      `| outside the server's timing (HTTP, node-server) | ${fmt(m(tiles.host.map((h, i) => h - tiles.server[i]!)))} |`,
      ...PHASES.map((k) => `| ${PHASE_NAMES[k]} | ${fmt(m(tiles.phases[k]))} |`),
      '',
      `### Sync: first pull and push of ${SYNC_N.toLocaleString('en')} features (median of ${RUNS})`,
      '',
      'sync.bench.ts\'s round: the team\'s server is a SQLite host process; the local side links a layer of 10,000 points (the',
      'first pull: `POST /api/resource/` answered once every feature is stored), changes all of them in one PATCH, and syncs',
      '(`POST …/sync`: the push in one remote transaction, its results, and the pull of the changes coming back).',
      '',
      '| operation | SQLite host local | PostgreSQL host local (× SQLite) |',
      '|---|---|---|',
      `| first pull of ${SYNC_N.toLocaleString('en')} | ${fmt(m(syncSqlite.pull))} ms | ${fmt(m(syncPg.pull))} ms (${ratio(m(syncPg.pull), m(syncSqlite.pull))}) |`,
      `| push of ${SYNC_N.toLocaleString('en')} changed | ${fmt(m(syncSqlite.push))} ms | ${fmt(m(syncPg.push))} ms (${ratio(m(syncPg.push), m(syncSqlite.push))}) |`,
      '',
      `Runs (ms): SQLite pull ${runs(syncSqlite.pull)}, push ${runs(syncSqlite.push)}; PostgreSQL pull ${runs(syncPg.pull)}, push ${runs(syncPg.push)}.`,
      '',
      `### Read mix: one and two processes on one database (${MIX_SECONDS} s each, after ${MIX_WARM} s of warm-up)`,
      '',
      `${CONCURRENCY} requests in flight from a keep-alive client loop in the benchmark's process, the n-th request to process n mod`,
      `(processes), in turn: ${mix.map(([k]) => k).join(', ')} (pages over the 10,000-feature layer, features spread over it,`,
      'the tile set in turn: each tile cut once per process, then from its cache; `GET /api/resource/{id}` of the points layer).',
      'CPU in cores (CPU seconds ÷ wall seconds, from /proc): the Node host processes, the cluster\'s processes (postmaster and',
      'backends), the benchmark\'s own process (the client), and everything else on the machine (other developers\' work).',
      '',
      '| processes | requests/s | median request | Node hosts | PostgreSQL | client | others | busy |',
      '|---|---|---|---|---|---|---|---|',
      mixLine(one),
      mixLine(two),
      '',
      `### Targets (issue 23)`,
      '',
      '| target | measured | |',
      '|---|---|---|',
      `| batch of 10,000 within 1.5× of bare PostGIS (a layer as bare's table: versioning off) | ${plainRatio.toFixed(2)}× (${fmt(m(onPg.plain))} vs ${fmt(m(pgr.batch))} ms) | ${met(plainRatio <= 1.5)} |`,
      `| the same, versioning on (a new layer's default; bare keeps no versions) | ${batchRatio.toFixed(2)}× (${fmt(m(onPg.batch))} vs ${fmt(m(pgr.batch))} ms) | ${met(batchRatio <= 1.5)} |`,
      `| a single edit under 30 ms | ${fmt(m(onPg.edit))} ms | ${met(m(onPg.edit) < 30)} |`,
      `| uncached tiles no slower than \`ST_AsMVT\` alone | ${tileRatio.toFixed(2)}× of its time (${fmt(m(tiles.host))} vs ${fmt(m(tiles.bare))} ms; ${
        ratio(m(tiles.host), m(tiles.prepared))} of it prepared) | ${met(tileRatio <= 1)} |`,
      `| a second process ≥ 1.6× read throughput where cores allow | ${scale.toFixed(2)}× (${one.rps.toFixed(0)} → ${two.rps.toFixed(0)} requests/s) | ${met(scale >= 1.6)} |`,
    ].join('\n')
    console.log(body)
    writeSection('Team server (PostgreSQL)', body)
  } finally {
    await hostDb?.end().catch(() => undefined)
    for (const c of clients) c.close()
    for (const h of hosts) await kill(h)
    await db.stop()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }
}

main().catch((err) => { console.error(err); process.exit(1) })
