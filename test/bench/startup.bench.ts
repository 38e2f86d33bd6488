/**
 * Start-up and single requests (issue 2, "Done when"): the cold start of each host to its
 * first API answer, `GET /api/resource/0`, and one durable write (`POST` of a group), in
 * Chromium's service worker and on the Node host; plus the first GDAL request (cold GDAL
 * start). Reference: the same single write and read in PostgreSQL through psql with
 * `synchronous_commit=on` (a local cluster started here; installed with apt-get if missing).
 *
 * Run: `npm run bench -- startup` (builds the app first when dist/ is missing).
 */
import { spawnSync, execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, chownSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
// @ts-expect-error plain JS helper shared with the scripts
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs'
import { machine, median, timeRuns, writeSection } from './report.ts'
import { NodeHost, PASSWORD } from './storage-hosts.ts'

const AUTH = 'Basic ' + Buffer.from(`administrator:${PASSWORD}`).toString('base64')
const COLD_RUNS = 5
const RUNS = 30
const WELLS = readFileSync('test/fixtures/wells.geojson', 'utf8')
const tmp = mkdtempSync(join(tmpdir(), 'outpost-bench-'))
const children: ChildProcess[] = []
process.on('exit', () => { for (const c of children) c.kill('SIGKILL'); rmSync(tmp, { recursive: true, force: true }) })

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2))

/** The Node host over `dir`: started, and stopped with the run whatever happens. */
async function startNode(dir: string): Promise<NodeHost> {
  const h = new NodeHost(dir)
  await h.start()
  children.push(h.proc)
  return h
}

const groupBody = () => JSON.stringify({ resource: { cls: 'resource_group', parent: { id: 0 }, display_name: `g ${Math.random()}` } })

async function nodeBench() {
  const dir = join(tmp, 'node-data')
  // A first start creates the database; the measured starts reopen it, as a restart does.
  const first = await startNode(dir)
  await fetch(`${first.base}/api/resource/0`, { headers: { authorization: AUTH } }).then((r) => r.text())
  await first.stop()
  const cold: number[] = []
  for (let i = 0; i < COLD_RUNS; i++) {
    const t0 = performance.now()
    const h = await startNode(dir)
    const res = await fetch(`${h.base}/api/resource/0`, { headers: { authorization: AUTH } })
    if (res.status !== 200) throw new Error(`GET /api/resource/0 → ${res.status}`)
    await res.text()
    cold.push(performance.now() - t0)
    await h.stop()
  }
  const h = await startNode(dir)
  const gdalT0 = performance.now()
  const gdalRes = await fetch(`${h.base}/api/component/outpost/gdal/inspect?name=wells.geojson`, { method: 'POST', body: WELLS, headers: { authorization: AUTH } })
  if (gdalRes.status !== 200) throw new Error(`inspect → ${gdalRes.status}`)
  await gdalRes.text()
  const gdalFirst = performance.now() - gdalT0
  const gdalWarm = await timeRuns(10, async () => {
    await (await fetch(`${h.base}/api/component/outpost/gdal/inspect?name=wells.geojson`, { method: 'POST', body: WELLS, headers: { authorization: AUTH } })).text()
  })
  const read = await timeRuns(RUNS, async () => { await (await fetch(`${h.base}/api/resource/0`, { headers: { authorization: AUTH } })).text() }, 3)
  const write = await timeRuns(RUNS, async () => {
    const r = await fetch(`${h.base}/api/resource/`, { method: 'POST', body: groupBody(), headers: { authorization: AUTH } })
    if (r.status !== 201) throw new Error(`POST → ${r.status}`)
    await r.text()
  }, 3)
  await h.stop()
  return { cold, read, write, gdalFirst, gdalWarm }
}

/** Times one request from inside the page, so it goes through the service worker. */
function timeInPage(page: Page, path: string, init: { method?: string; body?: string } = {}): Promise<{ ms: number; status: number; host: string | null }> {
  return page.evaluate(async ({ path, init, auth }) => {
    const t0 = performance.now()
    const res = await fetch(path, { ...init, headers: { authorization: auth } })
    await res.text()
    return { ms: performance.now() - t0, status: res.status, host: res.headers.get('x-outpost-host') }
  }, { path, init, auth: 'Basic ' + btoa('administrator:admin') })
}

async function stopWorkers(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page)
  await cdp.send('ServiceWorker.enable')
  await cdp.send('ServiceWorker.stopAllWorkers')
  await cdp.detach()
  await new Promise((r) => setTimeout(r, 300))
}

async function swBench() {
  if (!existsSync('dist/service-worker.js') || !existsSync('dist/gdal/gdal3WebAssembly.wasm')) {
    const r = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' })
    if (r.status !== 0) throw new Error('vite build failed')
  }
  // The Node host only serves the built files here; every /api/ request is the worker's.
  const server = new NodeHost(undefined, 'dist')
  await server.start()
  children.push(server.proc)
  const executablePath = findChromium()
  if (!executablePath) throw new Error('No Chromium: apt-get install -y chromium')
  // A persistent profile: IndexedDB on disk, as for a real user (incognito keeps it in memory).
  const context = await chromium.launchPersistentContext(join(tmp, 'profile'), { executablePath, args: ['--headless', ...CHROMIUM_ARGS] })
  try {
    const page = context.pages()[0] ?? await context.newPage()
    await page.goto(`${server.base}/`)
    await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 30_000 })
    const started = async () => (await page.evaluate(async () => (await (await fetch('/api/component/pyramid/ping')).json()).started)) as number
    const check = (r: { status: number; host: string | null }, want: number) => {
      if (r.status !== want || r.host !== 'service-worker') throw new Error(`worker answered ${r.status} (${r.host})`)
    }
    check(await timeInPage(page, '/api/resource/0'), 200)
    const cold: number[] = []
    for (let i = 0; i < COLD_RUNS; i++) {
      const before = await started()
      await stopWorkers(context, page)
      const r = await timeInPage(page, '/api/resource/0')
      check(r, 200)
      if ((await started()) === before) throw new Error('the worker was not restarted')
      cold.push(r.ms)
    }
    const read: number[] = []
    const write: number[] = []
    for (let i = 0; i < RUNS + 3; i++) {
      const a = await timeInPage(page, '/api/resource/0')
      check(a, 200)
      const b = await timeInPage(page, '/api/resource/', { method: 'POST', body: groupBody() })
      check(b, 201)
      if (i >= 3) { read.push(a.ms); write.push(b.ms) }
    }
    const inspect = () => timeInPage(page, '/api/component/outpost/gdal/inspect?name=wells.geojson', { method: 'POST', body: WELLS })
    // First GDAL use ever: the 40 MB of .wasm/.data come from the server into the engine cache.
    const download = await inspect()
    check(download, 200)
    // Then from a stopped worker with the files cached: worker start + GDAL start.
    const gdalCold: number[] = []
    for (let i = 0; i < 3; i++) {
      await stopWorkers(context, page)
      await timeInPage(page, '/api/resource/0')
      const r = await inspect()
      check(r, 200)
      gdalCold.push(r.ms)
    }
    const gdalWarm: number[] = []
    for (let i = 0; i < 10; i++) gdalWarm.push((await inspect()).ms)
    return { cold, read, write, gdalDownload: download.ms, gdalCold, gdalWarm }
  } finally {
    await context.close()
    await server.stop()
  }
}

/** PostgreSQL through psql: the same single write and read, each in its own transaction. */
function postgresBench(): { write: number[]; read: number[]; version: string; fdatasyncUs?: number } | string {
  const bin = (name: string) => {
    for (const p of [`/usr/local/bin/${name}`, `/usr/bin/${name}`]) if (existsSync(p)) return p
    try { return execFileSync('sh', ['-c', `ls /usr/lib/postgresql/*/bin/${name} | tail -1`], { encoding: 'utf8' }).trim() || undefined } catch { return undefined }
  }
  if (!bin('initdb') && process.getuid?.() === 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env })
    spawnSync('apt-get', ['install', '-y', '-qq', 'postgresql'], { stdio: 'inherit', env })
  }
  const initdb = bin('initdb'); const pgCtl = bin('pg_ctl'); const psql = bin('psql')
  if (!initdb || !pgCtl || !psql) return 'PostgreSQL is not installed and could not be installed with apt-get.'
  const dir = join(tmp, 'pg')
  const asPg = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : []
  const run = (args: string[]) => {
    const r = spawnSync(asPg[0] ?? args[0]!, [...asPg.slice(1), ...(asPg.length ? args : args.slice(1))], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`)
    return r.stdout
  }
  spawnSync('mkdir', ['-p', dir])
  if (asPg.length) {
    const ids = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()
    const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()
    chownSync(dir, Number(ids), Number(gid))
    chownSync(tmp, Number(ids), Number(gid))
  }
  run([initdb, '-D', join(dir, 'data'), '-A', 'trust', '-U', 'postgres'])
  run([pgCtl, '-D', join(dir, 'data'), '-w', '-l', join(dir, 'log'), '-o', `-k ${dir} -c listen_addresses='' -c synchronous_commit=on -c fsync=on`, 'start'])
  try {
    const n = RUNS + 3
    const script = ['CREATE TABLE resource (id serial PRIMARY KEY, cls text NOT NULL, parent_id int, display_name text NOT NULL);',
      "INSERT INTO resource (cls, display_name) VALUES ('resource_group', 'Main resource group');",
      'SHOW synchronous_commit;', '\\timing on',
      ...Array.from({ length: n }, (_, i) => `INSERT INTO resource (cls, parent_id, display_name) VALUES ('resource_group', 1, 'g ${i}');`),
      ...Array.from({ length: n }, () => 'SELECT * FROM resource WHERE id = 1;')].join('\n')
    const file = join(dir, 'bench.sql')
    writeFileSync(file, script)
    const out = run([psql, '-h', dir, '-U', 'postgres', '-X', '-q', '-f', file])
    if (!/\bon\b/.test(out)) throw new Error('synchronous_commit is not on')
    const times = [...out.matchAll(/Time: ([\d.]+) ms/g)].map((m) => Number(m[1]))
    const version = run([psql, '-h', dir, '-U', 'postgres', '-X', '-tA', '-c', 'SHOW server_version']).trim()
    // What one flush costs on this disk: it bounds every durable write, ours and PostgreSQL's.
    const testFsync = bin('pg_test_fsync')
    const fsyncOut = testFsync ? spawnSync(testFsync, ['-s', '1', '-f', join(tmp, 'fsync.test')], { encoding: 'utf8', timeout: 60_000 }).stdout ?? '' : ''
    const fdatasync = /fdatasync\s+[\d.]+ ops\/sec\s+(\d+) usecs\/op/.exec(fsyncOut)?.[1]
    return { write: times.slice(3, n), read: times.slice(n + 3, 2 * n), version, fdatasyncUs: fdatasync ? Number(fdatasync) : undefined }
  } finally {
    run([pgCtl, '-D', join(dir, 'data'), '-w', '-m', 'fast', 'stop'])
  }
}

const node = await nodeBench()
console.log('node', { cold: node.cold.map(fmt), read: fmt(median(node.read)), write: fmt(median(node.write)) })
const sw = await swBench()
console.log('sw', { cold: sw.cold.map(fmt), read: fmt(median(sw.read)), write: fmt(median(sw.write)) })
let pg: ReturnType<typeof postgresBench>
try { pg = postgresBench() } catch (err) { pg = `PostgreSQL could not be run here: ${(err as Error).message.split('\n')[0]}` }
console.log('pg', typeof pg === 'string' ? pg : { read: fmt(median(pg.read)), write: fmt(median(pg.write)) })

const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`
const pgRow = (label: string, xs: number[] | undefined, ours: [number, number]) =>
  xs ? `| ${label} | ${fmt(median(xs))} ms | ${ratio(ours[0], median(xs))} / ${ratio(ours[1], median(xs))} |` : ''
writeSection('Start-up and single requests', `
Machine: ${machine()}. Medians in ms, measured by \`test/bench/startup.bench.ts\` (${COLD_RUNS} cold starts, ${RUNS} requests each, after warm-up).
Browser times are taken inside the page around \`fetch\` (through the service worker, persistent profile: IndexedDB on disk,
\`durability: 'strict'\`); Node times by an HTTP client on the same machine (the data folder on disk, fsync on every write).

| | service worker (Chromium) | Node host |
|---|---|---|
| cold start → first answer of \`GET /api/resource/0\` | ${fmt(median(sw.cold))} | ${fmt(median(node.cold))} |
| \`GET /api/resource/0\` | ${fmt(median(sw.read))} | ${fmt(median(node.read))} |
| durable single write: \`POST /api/resource/\` (a group) | ${fmt(median(sw.write))} | ${fmt(median(node.write))} |
| first GDAL request, GDAL files already cached (worker stopped before) | ${fmt(median(sw.gdalCold))} | ${fmt(node.gdalFirst)} |
| GDAL request once started (\`gdal/inspect\` of a 3-point GeoJSON) | ${fmt(median(sw.gdalWarm))} | ${fmt(median(node.gdalWarm))} |
| first GDAL request ever (downloads 40 MB into the engine cache) | ${fmt(sw.gdalDownload)} | – |

- Worker cold start: the worker is stopped through the DevTools protocol (\`ServiceWorker.stopAllWorkers\`); the time runs from
  the page's \`fetch\` until the answer is read, and covers starting the worker script, SQLite-WASM, loading the database
  image from IndexedDB and checking the password. Each run was checked to be a new worker (\`pyramid/ping\` \`started\`).
- Node cold start: from spawning \`node --import tsx sw/host/node-main.ts --data <dir>\` (an existing folder) to the answer,
  so it includes Node's start and tsx's TypeScript transform of the sources (\`npm run serve\` starts the compiled build in dist-node/ since issue 22; its start is in "Node host memory").
- GDAL never starts on the start-up path: it starts on the first request that needs it.

${typeof pg === 'string' ? `Reference: ${pg}` : `Reference: PostgreSQL ${pg.version} (local cluster, Unix socket, \`synchronous_commit=on\`, \`fsync=on\`), psql's \`\\timing\`
for each statement in its own transaction (autocommit). Ratio = ours / PostgreSQL (service worker / Node).

| PostgreSQL | median | ratio (service worker / Node) |
|---|---|---|
${pgRow('`INSERT` of one row (durable commit)', pg.write, [median(sw.write), median(node.write)])}
${pgRow('`SELECT` of one row by primary key', pg.read, [median(sw.read), median(node.read)])}

PostgreSQL answers over a socket without HTTP, JSON or authentication, so the ratios overstate our own overhead
for reads; the write comparison is the durable commit that both must wait for.${pg.fdatasyncUs ? ` On this disk one fdatasync of 8 kB
takes about ${pg.fdatasyncUs} µs (\`pg_test_fsync\`), so a durable commit is cheap here: the time of our writes is our own work
(the changed pages, the HTTP round trip; in Node SQLite's write-ahead log is fsynced once per commit).` : ''}`}
`)
console.log('wrote docs/benchmarks.md')
process.exit(0)
