/**
 * Tiles benchmark (issue 10): a 100,000-point layer, a 20,000-polygon layer and a
 * 1,000,000-point layer on the Node host (its own process, HTTP, files), in Chromium (service worker,
 * IndexedDB) and in PostGIS (`ST_AsMVT` over a GiST index), the same features on every side.
 * Over a fixed tile set at zooms 5–14: median time of an uncached and of a cached tile; the
 * first tile after an edit; and a GeoPackage export of the 100,000 points against native
 * `ogr2ogr` from the same PostGIS table. Results go to the "Vector tiles and export" section
 * of docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { kill, startHost } from '../api/node-process.ts'
import { NODE_ADMIN_PASSWORD } from '../api/node-client.ts'
import { machine, median, writeSection } from './report.ts'
import { startPostgis, type Postgis } from './postgis.ts'
import { openWorkerPage } from './worker-page.ts'
import { pointFeature, polygonFeature, tileSet, type BenchFeature } from './tiles-data.ts'

const PORT = Number(process.env.E2E_PORT ?? 4216)
const BATCH = 10_000
const PER_ZOOM = Number(process.env.BENCH_TILES_PER_ZOOM ?? 8)
const EDITS = 10
const EXPORTS = 3
const BIG = Number(process.env.BENCH_BIG ?? 1_000_000)
/** Trivial requests timed for each side's floor (the fixed cost of any request). */
const FLOOR_RUNS = 100
/**
 * Requests a side answers before anything is timed: a server in use has compiled its request
 * path (V8's JIT needs a few hundred runs of a function), as PostgreSQL's is compiled C.
 */
const WARM_UP = 5000

interface LayerSpec { key: string; label: string; geometry: 'POINT' | 'POLYGON'; count: number; seed: number; make: (seed: number, i: number) => BenchFeature }
const LAYERS: LayerSpec[] = [
  { key: 'p100k', label: '100,000 points', geometry: 'POINT', count: 100_000, seed: 1, make: pointFeature },
  { key: 'a20k', label: '20,000 polygons', geometry: 'POLYGON', count: 20_000, seed: 2, make: polygonFeature },
  { key: 'p1m', label: `${BIG.toLocaleString('en')} points`, geometry: 'POINT', count: BIG, seed: 3, make: pointFeature },
]
const FIELDS = [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' }]

interface Answer { ms: number; status: number; size: number; text?: string; serverTiming?: string }
/** One request as a client sees it: time to the last byte. */
type Call = (method: string, path: string, body?: string) => Promise<Answer>

/**
 * Whole-request times, the server's own work (its `Server-Timing`), tile sizes, where the
 * uncached tiles came from (`desc`: index, rtree, …) and how long the tile index took to build.
 */
interface TileTimes { uncached: number[]; cached: number[]; bytes: number[]; uncachedWork: number[]; cachedWork: number[]; sources: string[]; indexMs?: number }
interface SideResult { tiles: Record<string, TileTimes>; edit: Record<string, number[]>; export: number[]; exportBytes: number; floor: number[] }

const newTimes = (): TileTimes => ({ uncached: [], cached: [], bytes: [], uncachedWork: [], cachedWork: [], sources: [] })

/** A tile answer's `Server-Timing`: its duration (checking it names the expected path) and where the cut came from. */
function timing(a: Answer, expect: 'cut' | 'cache'): { ms: number; source: string } {
  const m = /^(cut|cache);dur=([\d.]+)(?:;desc=([\w+]+))?$/.exec(a.serverTiming ?? '')
  if (!m || m[1] !== expect) throw new Error(`Server-Timing ${a.serverTiming} where ${expect} was expected`)
  return { ms: Number(m[2]), source: m[3] ?? '' }
}
const workMs = (a: Answer, expect: 'cut' | 'cache') => timing(a, expect).ms

/** How the uncached tiles were cut, e.g. "index 72, rtree 8". */
const sourceCounts = (t: TileTimes) => {
  const n = new Map<string, number>()
  for (const s of t.sources) n.set(s, (n.get(s) ?? 0) + 1)
  return [...n].map(([s, k]) => `${s} ${k}`).join(', ')
}

const batchBody = (spec: LayerSpec, from: number, to: number) =>
  JSON.stringify(Array.from({ length: to - from }, (_, k) => {
    const f = spec.make(spec.seed, from + k)
    return { geom: f.wkt, fields: { name: f.name, n: f.n } }
  }))

async function runOurs(call: Call, label: string): Promise<SideResult> {
  const ok = async (method: string, path: string, body?: string) => {
    const r = await call(method, path, body)
    if (r.status >= 300) throw new Error(`${label}: ${method} ${path} → ${r.status} ${r.text?.slice(0, 300)}`)
    return r
  }
  const out: SideResult = { tiles: {}, edit: {}, export: [], exportBytes: 0, floor: [] }
  // The floor: the smallest answer of the API (a JSON constant behind the same auth and routing).
  for (let k = 0; k < WARM_UP; k++) await ok('GET', '/api/component/pyramid/pkg_version')
  for (let k = 0; k < FLOOR_RUNS; k++) out.floor.push((await ok('GET', '/api/component/pyramid/pkg_version')).ms)
  const ids: Record<string, number> = {}
  for (const spec of LAYERS) {
    const created = await ok('POST', '/api/resource/', JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 },
      display_name: `bench ${spec.key} ${Date.now()}` }, vector_layer: { srs: { id: 3857 }, geometry_type: spec.geometry, fields: FIELDS } }))
    const id = JSON.parse(created.text!).id as number
    ids[spec.key] = id
    const t0 = performance.now()
    for (let i = 0; i < spec.count; i += BATCH) await ok('PATCH', `/api/resource/${id}/feature/`, batchBody(spec, i, Math.min(spec.count, i + BATCH)))
    console.log(`${label}: ${spec.label} loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
    const times = newTimes()
    const tiles = tileSet(spec.seed, spec.count, PER_ZOOM)
    // The first tile starts the layer's tile index; it is built in slices between requests, as
    // PostGIS's GiST index is built before its tiles are timed. Tiles cut meanwhile (from the
    // R*Tree) say `indexing`; each probe asks for a new `extent`, never a cached tile.
    const built = performance.now()
    for (let k = 0; ; k++) {
      const [z, x, y] = tiles[tiles.length - 1]!
      const probe = timing(await ok('GET', `/api/component/feature_layer/mvt?resource=${id}&z=${z}&x=${x}&y=${y}&extent=${4000 - k}`), 'cut')
      if (probe.source !== 'indexing') break
      if (k > 2000) throw new Error(`${label}: the tile index of ${spec.label} was not built in time`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    times.indexMs = performance.now() - built
    // The tile set once before timing, as PostGIS runs each query once before timing it: the
    // same cuts at another `extent`, so the timed requests still cut every tile anew; then the
    // tile route warmed as the floor's was (a cached tile).
    for (const [z, x, y] of tiles) await ok('GET', `/api/component/feature_layer/mvt?resource=${id}&z=${z}&x=${x}&y=${y}&extent=4095`)
    const [wz, wx, wy] = tiles[0]!
    for (let k = 0; k < WARM_UP / 2; k++) await ok('GET', `/api/component/feature_layer/mvt?resource=${id}&z=${wz}&x=${wx}&y=${wy}&extent=4095`)
    for (const [z, x, y] of tiles) {
      const path = `/api/component/feature_layer/mvt?resource=${id}&z=${z}&x=${x}&y=${y}`
      const first = await ok('GET', path)
      const again = await ok('GET', path)
      times.uncached.push(first.ms)
      const cut = timing(first, 'cut')
      times.uncachedWork.push(cut.ms)
      times.sources.push(cut.source)
      times.cached.push(again.ms)
      times.cachedWork.push(workMs(again, 'cache'))
      times.bytes.push(first.size)
    }
    out.tiles[spec.key] = times
    console.log(`${label}: ${spec.label} tiles uncached ${median(times.uncached).toFixed(2)} ms (server ${median(times.uncachedWork).toFixed(2)} ms), ` +
      `cached ${median(times.cached).toFixed(2)} ms (server ${median(times.cachedWork).toFixed(2)} ms); cut from: ${sourceCounts(times)}; ` +
      `index ready ${(times.indexMs / 1000).toFixed(2)} s after the first tile`)
  }
  // The first tile after an edit, at zoom 14 and 10: the tile is cached, a feature in it moves by 1 m.
  const spec = LAYERS[0]!
  for (const z of [14, 10]) {
    const times: number[] = []
    for (let k = 0; k < EDITS; k++) {
      const i = 1000 * k + 17
      const [, ...rest] = spec.make(spec.seed, i).wkt.match(/POINT\(([-\d.]+) ([-\d.]+)\)/)!
      const [mx, my] = rest.map(Number) as [number, number]
      const size = (2 * 20037508.342789244) / 2 ** z
      const path = `/api/component/feature_layer/mvt?resource=${ids[spec.key]}&z=${z}&x=${Math.floor((mx + 20037508.342789244) / size)}&y=${Math.floor((20037508.342789244 - my) / size)}`
      await ok('GET', path)
      await ok('PUT', `/api/resource/${ids[spec.key]}/feature/${i + 1}`, JSON.stringify({ geom: `POINT(${mx + 1} ${my})` }))
      times.push((await ok('GET', path)).ms)
    }
    out.edit[`z${z}`] = times
  }
  for (let k = 0; k < EXPORTS; k++) {
    const r = await ok('GET', `/api/resource/${ids.p100k}/export?format=GPKG&zipped=false`)
    out.export.push(r.ms)
    out.exportBytes = r.size
  }
  console.log(`${label}: first tile after an edit z14 ${median(out.edit.z14!).toFixed(1)} ms; GPKG export ${median(out.export).toFixed(0)} ms`)
  return out
}

async function nodeSide(): Promise<SideResult> {
  // The Node host in its own process, as PostgreSQL is: the client's work is not the server's.
  const dir = mkdtempSync(join(tmpdir(), 'outpost-bench-'))
  const host = await startHost(dir)
  const auth = 'Basic ' + btoa(`administrator:${NODE_ADMIN_PASSWORD}`)
  // A keep-alive node:http client, as map clients keep their connection (and as the rendering
  // benchmark does): fetch (undici) spent more per request than a cached tile costs the server.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const call: Call = (method, path, body) => new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = request(host.base + path, { method, agent, headers: { authorization: auth, ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const bytes = Buffer.concat(chunks)
        const ms = performance.now() - t0
        resolve({ ms, status: res.statusCode ?? 0, size: bytes.length, serverTiming: String(res.headers['server-timing'] ?? ''),
          text: String(res.headers['content-type'] ?? '').includes('json') ? bytes.toString('utf8') : undefined })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
  try {
    return await runOurs(call, 'node')
  } finally {
    agent.destroy()
    await kill(host)
    rmSync(dir, { recursive: true, force: true })
  }
}

async function swSide(): Promise<SideResult> {
  const { page, close } = await openWorkerPage(PORT)
  const auth = 'Basic ' + btoa('administrator:admin')
  const call: Call = (method, path, body) => page.evaluate(async ({ method, path, body, auth }) => {
    const t0 = performance.now()
    const res = await fetch(path, { method, headers: { authorization: auth }, body })
    const bytes = new Uint8Array(await res.arrayBuffer())
    const ms = performance.now() - t0
    return { ms, status: res.status, size: bytes.length, serverTiming: res.headers.get('server-timing') ?? undefined,
      text: res.headers.get('content-type') === 'application/json' ? new TextDecoder().decode(bytes) : undefined }
  }, { method, path, body, auth })
  try {
    return await runOurs(call, 'service worker')
  } finally {
    await close()
  }
}

interface PostgisResult { tiles: Record<string, TileTimes>; export: number[]; exportBytes: number; version: string; floor: number[] }

async function postgisSide(cluster: Postgis): Promise<PostgisResult> {
  const { client } = cluster
  const out: PostgisResult = { tiles: {}, export: [], exportBytes: 0, version: cluster.version, floor: [] }
  // PostgreSQL's floor: the round trip of a trivial query through the same client, warmed as ours.
  for (let k = 0; k < WARM_UP; k++) await client.query('SELECT 1')
  for (let k = 0; k < FLOOR_RUNS; k++) {
    const t0 = performance.now()
    await client.query('SELECT 1')
    out.floor.push(performance.now() - t0)
  }
  for (const spec of LAYERS) {
    await client.query(`CREATE TABLE ${spec.key} (fid serial PRIMARY KEY, geom geometry(${spec.geometry}, 3857), name text, n integer)`)
    for (let i = 0; i < spec.count; i += 50_000) {
      const rows = Array.from({ length: Math.min(spec.count, i + 50_000) - i }, (_, k) => spec.make(spec.seed, i + k))
      await client.query(`INSERT INTO ${spec.key} (geom, name, n) SELECT ST_GeomFromText(g, 3857), name, n
        FROM unnest($1::text[], $2::text[], $3::int[]) AS u(g, name, n)`, [rows.map((r) => r.wkt), rows.map((r) => r.name), rows.map((r) => r.n)])
    }
    await client.query(`CREATE INDEX ON ${spec.key} USING gist (geom)`)
    await client.query(`VACUUM ANALYZE ${spec.key}`)
    // The query NGW's PostGIS layers amount to: features in the tile grown by 5 %, clipped to it and encoded.
    const sql = `SELECT ST_AsMVT(q, 'svc:1', 4096, 'geom', 'fid') AS tile FROM (
      SELECT fid, name, n, ST_AsMVTGeom(geom, ST_TileEnvelope($1, $2, $3), 4096, 205, true) AS geom
      FROM ${spec.key} WHERE geom && ST_TileEnvelope($1, $2, $3, margin => 0.05)) q`
    const times = newTimes()
    for (const [z, x, y] of tileSet(spec.seed, spec.count, PER_ZOOM)) {
      await client.query(sql, [z, x, y]) // warms PostgreSQL's buffers: the timed run reads no disk
      const t0 = performance.now()
      const r = await client.query(sql, [z, x, y])
      times.uncached.push(performance.now() - t0)
      times.bytes.push((r.rows[0]?.tile as Buffer | null)?.length ?? 0)
    }
    out.tiles[spec.key] = times
    console.log(`postgis: ${spec.label} loaded; ST_AsMVT median ${median(times.uncached).toFixed(1)} ms`)
  }
  const dir = mkdtempSync(join(tmpdir(), 'outpost-ogr-'))
  try {
    for (let k = 0; k < EXPORTS; k++) {
      const file = join(dir, `p100k-${k}.gpkg`)
      const t0 = performance.now()
      execFileSync('ogr2ogr', ['-f', 'GPKG', file, `PG:host=${cluster.host} port=${cluster.port} user=postgres dbname=${cluster.database}`, 'p100k'])
      out.export.push(performance.now() - t0)
      out.exportBytes = statSync(file).size
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return out
}

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2))
const ratio = (ref: number, ours: number) => `${(ref / ours).toFixed(1)}×`
const kib = (b: number[]) => `${(median(b) / 1024).toFixed(0)} KiB`

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!
  const cluster = await startPostgis(PORT)
  let pgr: PostgisResult
  try {
    pgr = await postgisSide(cluster)
  } finally {
    await cluster.stop()
  }
  const node = await nodeSide()
  // BENCH_NO_SW=1 measures the Node host only (a quick run while working); the table then repeats it.
  const sw = process.env.BENCH_NO_SW ? node : await swSide()
  const rows = LAYERS.map((spec) => {
    const p = median(pgr.tiles[spec.key]!.uncached)
    const n = node.tiles[spec.key]!, s = sw.tiles[spec.key]!
    const ours = (t: TileTimes) => `${fmt(median(t.uncached))} ms (${ratio(p, median(t.uncached))}) | ${fmt(median(t.uncachedWork))} ms (${ratio(p, median(t.uncachedWork))}) | ` +
      `${fmt(median(t.cached))} / ${fmt(median(t.cachedWork))} ms`
    return `| ${spec.label} | ${fmt(p)} ms (${kib(pgr.tiles[spec.key]!.bytes)}) | ${kib(n.bytes)} | ${ours(n)} | ${ours(s)} |`
  })
  const body = [
    `Machine: ${machine()}; reference: ${pgr.version} (throwaway cluster), \`ST_AsMVT\` over a GiST index, and GDAL's native`,
    `\`ogr2ogr\` (${execFileSync('ogr2ogr', ['--version'], { encoding: 'utf8' }).trim()}). Command: \`npm run bench -- tiles\`.`,
    `The machine is shared: its load average was ${loadBefore.toFixed(1)} when the run started and ${loadavg()[0]!.toFixed(1)} when it ended (2 cores).`,
    '',
    `The same features on every side (\`test/bench/tiles-data.ts\`: seeded, 80 % in 60 clusters over a 2,000 km square in EPSG:3857),`,
    `${PER_ZOOM} distinct tiles per zoom 5–14 (fewer where the data covers fewer), each holding features. PostGIS times are the`,
    'bare `ST_AsMVT` query through `pg` over a Unix socket (its protocol round trip included), run twice per tile and the second',
    'run timed (PostgreSQL\'s buffers warm, no tile cache: it recuts every time). Outpost: "request" is the whole HTTP request as',
    'the client sees it (Node host: its own process, as PostgreSQL is, asked by a keep-alive `node:http` client; worker: `fetch`',
    'in the page, the answer read), "server" the server\'s own work from its `Server-Timing` header (from the app\'s start on the',
    'request to the tile\'s bytes: authentication, routing, resource and permission checks, cache look-up, the cut; not the HTTP',
    'adapter or the transport). Uncached = the first request of a tile; cached = the same tile again (request / server).',
    'Ratio = PostGIS ÷ Outpost (above 1: Outpost faster). Median tile sizes: PostGIS\'s in brackets, ours in their own column.',
    'Each layer\'s tile index (docs/data-out.md) is built before its tiles are timed, as PostGIS\'s GiST index is, and the tile',
    'set is cut once at `extent=4095` before the timed pass (PostGIS: each query run once before it is timed), so neither side',
    `is timed cold; every timed tile is still cut anew. Each of our hosts answers ${WARM_UP.toLocaleString('en')} trivial requests before the floor is`,
    `timed and ${(WARM_UP / 2).toLocaleString('en')} of a cached tile before each layer's tiles (a server in use has compiled its request path;`,
    'PostgreSQL\'s is compiled C). Tiles past 16,384 entries are thinned (PostGIS\'s are not).',
    '',
    '| layer | PostGIS `ST_AsMVT` | Outpost tile | Node host, uncached request | Node host, uncached server | Node host, cached | service worker, uncached request | service worker, uncached server | service worker, cached |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `The floor, the fixed cost of any request (median of ${FLOOR_RUNS}, after the warm-up): PostGIS \`SELECT 1\` through \`pg\` ${fmt(median(pgr.floor))} ms;`,
    `\`GET /api/component/pyramid/pkg_version\` (a JSON constant behind the same authentication and routing) on the Node`,
    `host ${fmt(median(node.floor))} ms, through the service worker ${fmt(median(sw.floor))} ms.`,
    '',
    'Where the uncached tiles were cut (`Server-Timing` desc) and when the index was ready after the layer\'s first tile:',
    ...LAYERS.map((spec) => `${spec.label}: Node host ${sourceCounts(node.tiles[spec.key]!)} (index ${fmt(node.tiles[spec.key]!.indexMs!)} ms); ` +
      `service worker ${sourceCounts(sw.tiles[spec.key]!)} (index ${fmt(sw.tiles[spec.key]!.indexMs!)} ms).`),
    '',
    `First tile after an edit (the tile cached, then one of its features moved by 1 m, median of ${EDITS}): zoom 14 —`,
    `Node host ${fmt(median(node.edit.z14!))} ms, service worker ${fmt(median(sw.edit.z14!))} ms; zoom 10 — Node host ${fmt(median(node.edit.z10!))} ms,`,
    `service worker ${fmt(median(sw.edit.z10!))} ms (target < 100 ms).`,
    '',
    `GeoPackage export of the 100,000 points (\`export?format=GPKG&zipped=false\`, median of ${EXPORTS}): native \`ogr2ogr\` from the`,
    `PostGIS table ${fmt(median(pgr.export))} ms (${(pgr.exportBytes / 1048576).toFixed(1)} MiB); Node host ${fmt(median(node.export))} ms`,
    `(${(median(node.export) / median(pgr.export)).toFixed(2)}× native's time; ${(node.exportBytes / 1048576).toFixed(1)} MiB); service worker ${fmt(median(sw.export))} ms`,
    `(${(median(sw.export) / median(pgr.export)).toFixed(2)}× native's time). Target: within 3× of native.`,
  ].join('\n')
  writeSection('Vector tiles and export', body)
  console.log(body)
}

main().catch((err) => { console.error(err); process.exit(1) })
