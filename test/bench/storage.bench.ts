/**
 * Storage benchmark (issue 8): what a 1,000,000-point layer costs next to a 20,000-point one,
 * on the Node host (a real server process over a data folder) and in Chromium's service
 * worker (persistent profile, IndexedDB on disk), with PostGIS loading the same rows through
 * `INSERT … SELECT FROM unnest(…)` per batch in the same run. Rewrites the "Storage" section
 * of docs/benchmarks.md.
 *
 * Run: `npm run bench -- storage` (BENCH_LARGE=200000 for a shorter run). The 5,000,000-point
 * layer in Chromium is a separate step: `npm run bench -- storage-5m`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { machine, median, writeSection } from './report.ts'
import { startPostgis } from './postgis.ts'
import { NodeHost, SwHost } from './storage-hosts.ts'
import { BATCH, crashDuringEdits, editMedian, fillLayer, firstRead, intersectsMedian, pointsBody, smallBox, type Layer } from './storage-layers.ts'

const SMALL = 20_000
const LARGE = Number(process.env.BENCH_LARGE ?? 1_000_000)
const PORT = Number(process.env.E2E_PORT ?? 4205)
const MiB = 2 ** 20
/** Idle time given to the worker before it is stopped (a browser waits 30 s). */
const IDLE_BEFORE_STOP_MS = 20_000

/** What one host measured on a layer. */
interface Sized {
  ingestMs: number
  batchMs: number
  editMs: number
  intersectsMs: number
  found: number
  firstReadMs?: number
  bytes?: number
  /** Bytes written per batch (the last ten): Node's write(2)s, PostgreSQL's WAL. */
  batchBytes?: number
}
interface Crash { sent: number; acked: number; present: number }
interface Side { small: Sized; large: Sized; crash?: Crash }

const tmp = mkdtempSync(join(tmpdir(), 'outpost-storage-bench-'))
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }))

async function measure(host: NodeHost | SwHost, layer: Layer): Promise<Sized> {
  const edit = await editMedian(host, layer)
  const box = await intersectsMedian(host, layer)
  console.log(`${host.label} ${layer.n}: ingest ${(layer.ingestMs / 1000).toFixed(1)} s, edit ${edit.toFixed(1)} ms, intersects ${box.ms.toFixed(1)} ms (${box.found} points)`)
  return { ingestMs: layer.ingestMs, batchMs: median(layer.batches), editMs: edit, intersectsMs: box.ms, found: box.found, batchBytes: layer.batchBytes }
}

async function nodeSide(): Promise<Side & { rssAfterIngest: number; rss: number; logBytes: number; strips: Layer }> {
  const host = new NodeHost(join(tmp, 'node-data'))
  await host.start()
  try {
    const smallLayer = await fillLayer(host, SMALL)
    const largeLayer = await fillLayer(host, LARGE)
    const small = await measure(host, smallLayer)
    const large = await measure(host, largeLayer)
    const rssAfterIngest = host.rss()
    // A restart: the first read of each layer, and the memory with the large one open and edited.
    // The first request also checks the password: done before, so the read times the layer.
    await host.stop()
    await host.start()
    await host.request('GET', '/api/resource/0')
    large.firstReadMs = await firstRead(host, largeLayer)
    await editMedian(host, largeLayer)
    await intersectsMedian(host, largeLayer)
    const rss = host.rss()
    await host.stop()
    await host.start()
    await host.request('GET', '/api/resource/0')
    small.firstReadMs = await firstRead(host, smallLayer)
    small.bytes = host.layerBytes(smallLayer.id)
    large.bytes = host.layerBytes(largeLayer.id)
    const logBytes = host.layerBytes(largeLayer.id, '-wal')
    // SIGKILL with edits of the large layer in flight, and a restart on the same folder.
    const crash = await crashDuringEdits(host, largeLayer, 60, () => host.stop('SIGKILL'), async () => { await host.start() })
    console.log(`node crash: ${JSON.stringify(crash)}`)
    // The same points a strip at a time: what the R*Tree pages of a random batch cost.
    const strips = await fillLayer(host, LARGE, true, true)
    return { small, large, rssAfterIngest, rss, logBytes, crash, strips }
  } finally {
    await host.stop()
  }
}

type SwMemory = Awaited<ReturnType<SwHost['memory']>>

async function swSide(): Promise<Side & { memory: SwMemory; memoryAfterRestart: SwMemory }> {
  const host = new SwHost(join(tmp, 'profile'))
  await host.start()
  try {
    const smallLayer = await fillLayer(host, SMALL)
    const largeLayer = await fillLayer(host, LARGE)
    const small = await measure(host, smallLayer)
    const large = await measure(host, largeLayer)
    const memory = await host.memory()
    const coldRead = async (layer: Layer) => {
      const before = await host.started()
      await host.stopWorker()
      const ms = await firstRead(host, layer)
      if ((await host.started()) === before) throw new Error('the worker was not restarted')
      return ms
    }
    // A browser stops a worker idle for 30 s; the idle time folds the ingest's page rows back.
    await new Promise((r) => setTimeout(r, IDLE_BEFORE_STOP_MS))
    large.firstReadMs = await coldRead(largeLayer)
    await editMedian(host, largeLayer)
    const memoryAfterRestart = await host.memory()
    large.bytes = memoryAfterRestart.pages
    small.firstReadMs = await coldRead(smallLayer)
    small.bytes = (await host.memory()).pages
    // The worker stopped with edits of the large layer in flight; the next request starts a new one.
    const crash = await crashDuringEdits(host, largeLayer, 60, () => host.stopWorker(), async () => {})
    console.log(`service worker crash: ${JSON.stringify(crash)}`)
    return { small, large, memory, memoryAfterRestart, crash }
  } finally {
    await host.stop()
  }
}

async function postgisSide(): Promise<Side & { version: string }> {
  const { client, version, stop } = await startPostgis(PORT)
  try {
    const one = async (n: number, name: string): Promise<Sized> => {
      await client.query(`CREATE TABLE ${name} (fid serial PRIMARY KEY, geom geometry(Point, 3857), name text, n integer, v double precision, day date)`)
      await client.query(`CREATE INDEX ON ${name} USING gist (geom)`)
      const batches: number[] = []
      // The WAL's insert position, not pg_stat_wal: a backend flushes its statistics at most once a
      // second, so the small layer's two batches read 0 bytes there.
      const walBytes = async () => Number((await client.query(`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0') AS b`)).rows[0].b)
      const lastTen = Math.max(0, Math.ceil(n / BATCH) - 10) * BATCH
      let walBefore = 0
      for (let from = 0; from < n; from += BATCH) {
        if (from === lastTen) walBefore = await walBytes()
        const rows = JSON.parse(pointsBody(from, Math.min(BATCH, n - from), n)) as { geom: string; fields: { name: string; n: number; v: number; day: string } }[]
        const cols = [rows.map((r) => r.geom), rows.map((r) => r.fields.name), rows.map((r) => r.fields.n), rows.map((r) => r.fields.v), rows.map((r) => r.fields.day)]
        const t0 = performance.now()
        await client.query('BEGIN')
        await client.query(`INSERT INTO ${name} (geom, name, n, v, day)
          SELECT ST_GeomFromText(g, 3857), name, n, v, day FROM unnest($1::text[], $2::text[], $3::int[], $4::float8[], $5::date[]) AS u(g, name, n, v, day)`, cols)
        await client.query('COMMIT')
        batches.push(performance.now() - t0)
      }
      const batchBytes = (await walBytes() - walBefore) / Math.min(10, batches.length)
      const edits: number[] = []
      for (let i = 0; i <= 15; i++) {
        const t0 = performance.now()
        await client.query(`UPDATE ${name} SET geom = ST_GeomFromText($1, 3857), name = $2, n = $3 WHERE fid = $4`,
          [`POINT(${4e6 + i} ${7.5e6 + i})`, `edited ${i}`, -i, 1 + ((i * 7919 + 13) % n)])
        if (i) edits.push(performance.now() - t0)
      }
      const boxes: number[] = []
      let found = 0
      for (let i = 0; i <= 15; i++) {
        const t0 = performance.now()
        const r = await client.query(`SELECT fid, ST_AsText(geom) AS geom, name, n, v, day FROM ${name} WHERE ST_Intersects(geom, ST_GeomFromText($1, 3857))`, [smallBox(n, i + 1)])
        if (i) boxes.push(performance.now() - t0)
        found += r.rowCount ?? 0
      }
      const bytes = Number((await client.query(`SELECT pg_total_relation_size('${name}') AS b`)).rows[0].b)
      console.log(`postgis ${n}: ingest ${(batches.reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s, edit ${median(edits).toFixed(2)} ms`)
      return { ingestMs: batches.reduce((a, b) => a + b, 0), batchMs: median(batches), editMs: median(edits), intersectsMs: median(boxes),
        found: Math.round(found / 16), bytes, batchBytes }
    }
    return { small: await one(SMALL, 'small'), large: await one(LARGE, 'large'), version }
  } finally {
    await stop()
  }
}

const fmt = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`)
const mib = (b: number) => `${(b / MiB).toFixed(0)} MiB`
const mib1 = (b: number) => `${(b / MiB).toFixed(1)} MiB`
const pair = (a: number | undefined, b: number | undefined, f: (x: number) => string = fmt) =>
  (a === undefined || b === undefined ? '–' : `${f(a)} → ${f(b)} (${(b / a).toFixed(1)}×)`)
const met = (ok: boolean) => (ok ? 'met' : '**missed**')
const swMemory = (m: SwMemory) => `the worker's JS heap ${mib(m.jsHeap)} and array buffers ${mib(m.buffers)}, of which the layers' pages
  ${mib(m.pages)} and SQLite's WASM heap ${mib(m.wasm)}; Chromium's renderer processes (page and worker) ${mib(m.renderers)} resident`
const crashLine = (what: string, c: Crash) => `${what}: ${c.sent} edits sent, ${c.acked} acknowledged, ${c.present} present after the restart, 0 lost, 0 half-done`

async function main(): Promise<void> {
  const pg = await postgisSide()
  const node = await nodeSide()
  const sw = await swSide()
  const sizes = `${SMALL.toLocaleString('en')} → ${LARGE.toLocaleString('en')} points`
  const row = (what: string, key: keyof Sized, f: (x: number) => string = fmt, withPg = true) =>
    `| ${what} | ${pair(node.small[key] as number, node.large[key] as number, f)} | ${pair(sw.small[key] as number, sw.large[key] as number, f)} | ${withPg ? pair(pg.small[key] as number, pg.large[key] as number, f) : '–'} |`
  const perHundred = (s: Sized) => ((s.firstReadMs ?? 0) / ((s.bytes ?? 1) / 1e8))
  const swCostPer100MB = ((sw.large.firstReadMs! - sw.small.firstReadMs!) / ((sw.large.bytes! - sw.small.bytes!) / 1e8))
  const ingestRatio = (s: Side) => s.large.ingestMs / pg.large.ingestMs
  const large = LARGE.toLocaleString('en')
  const body = `
Machine: ${machine()}; reference: ${pg.version} (throwaway cluster, fsync on), driven by \`pg\` over a Unix socket,
in the same run. Command: \`npm run bench -- storage\`${LARGE !== 1_000_000 ? ` with BENCH_LARGE=${LARGE}` : ''}.

Point layers (4 fields) filled through the API by batch PATCHes of ${BATCH.toLocaleString('en')}, about 100 points per km²
in both. Outpost times are whole HTTP requests from the client, durable before the answer (Node: the data folder on
disk, one fsync per commit; service worker: IndexedDB with strict durability); PostGIS times are the bare SQL.
Each cell reads *small → large (large/small)*: ${sizes}.

| measure | Node host | service worker (Chromium) | PostGIS |
|---|---|---|---|
${row('ingest through batch PATCH, total', 'ingestMs')}
${row(`one batch of ${BATCH.toLocaleString('en')} (median)`, 'batchMs')}
${row('bytes written per batch (the last ten; Node: write(2), PostGIS: WAL)', 'batchBytes', mib1, true)}
${row('one feature edit, durable (median of 15 PUTs)', 'editMs')}
${row('list with \`intersects\` on a 1 km² box (median of 15)', 'intersectsMs')}
${row('first feature read after a restart / a worker stop', 'firstReadMs', fmt, false)}
${row('database size', 'bytes', mib)}

Node's database size counts the write-ahead log (${mib(node.logBytes)} of the large layer's at the end: it is checkpointed and
emptied past 4 MiB). Crashes with six clients editing the ${LARGE.toLocaleString('en')}-point layer: ${crashLine('Node host, SIGKILL', node.crash!)};
${crashLine('service worker stopped (DevTools protocol)', sw.crash!)}.

Memory with the ${large}-point layer open and edited:
- Node host RSS: ${mib(node.rss)} after a restart (first read, 15 edits, 15 box queries), ${(node.rss / node.large.bytes!).toFixed(2)}× its
  ${mib(node.large.bytes!)} on disk; ${mib(node.rssAfterIngest)} right after ingesting both layers (V8's heap still holds the parsed batches).
- Service worker, after a worker stop, the first read and 15 edits: ${swMemory(sw.memoryAfterRestart)}. Right after ingesting
  both layers: ${swMemory(sw.memory)} (the WASM heap grew for the batches and does not shrink while the worker runs).

Targets (${large} points):
- edit < 30 ms and ≤ 2× the small layer's: Node ${fmt(node.large.editMs)} (${(node.large.editMs / node.small.editMs).toFixed(1)}×) ${met(node.large.editMs < 30 && node.large.editMs <= 2 * node.small.editMs)};
  service worker ${fmt(sw.large.editMs)} (${(sw.large.editMs / sw.small.editMs).toFixed(1)}×) ${met(sw.large.editMs < 30 && sw.large.editMs <= 2 * sw.small.editMs)}.
- Node RSS ≤ 2× the data on disk: ${(node.rss / node.large.bytes!).toFixed(2)}× ${met(node.rss <= 2 * node.large.bytes!)}.
- first read after a restart < 100 ms on Node: ${fmt(node.large.firstReadMs!)} ${met(node.large.firstReadMs! < 100)}; after a worker stop
  (following ${IDLE_BEFORE_STOP_MS / 1000} s idle, as a browser stops a worker after 30 s idle)
  < 1.5 s in Chromium: ${fmt(sw.large.firstReadMs!)} ${met(sw.large.firstReadMs! < 1500)} — it loads the whole layer from IndexedDB, about
  ${fmt(swCostPer100MB)} per 100 MB over the small layer's ${fmt(sw.small.firstReadMs!)} (${fmt(perHundred(sw.large))} per 100 MB all told).
- ingest within 2× of PostGIS: Node ${ingestRatio(node).toFixed(1)}× ${met(ingestRatio(node) <= 2)}, service worker ${ingestRatio(sw).toFixed(1)}× ${met(ingestRatio(sw) <= 2)}.
  Each batch spreads its points over the whole layer, so it touches R*Tree nodes all over the index and every page they
  sit on is written with the commit: ${mib1(node.large.batchBytes!)} per batch on Node against ${mib1(node.small.batchBytes!)} in the small layer
  (PostgreSQL logs ${mib1(pg.large.batchBytes!)}: a record per insert; it writes its pages at checkpoints). The same points sent a
  strip at a time load on Node in ${fmt(node.strips.ingestMs)} (${(node.strips.ingestMs / pg.large.ingestMs).toFixed(1)}× PostGIS), writing ${mib1(node.strips.batchBytes!)} per batch.
- \`intersects\` on a small box < 20 ms: Node ${fmt(node.large.intersectsMs)} ${met(node.large.intersectsMs < 20)}, service worker
  ${fmt(sw.large.intersectsMs)} ${met(sw.large.intersectsMs < 20)} (${node.large.found} points per box).
`
  writeSection('Storage', body)
  console.log(body)
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1) })
