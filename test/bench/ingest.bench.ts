/**
 * Ingest benchmark: vector layers from 100,000 points and 20,000 polygons, as GeoJSON and as a
 * zipped shapefile, on the Node host (its own process, file store) and in Chromium against the
 * service worker (IndexedDB), side by side with Debian's native `ogr2ogr` loading the same
 * files into a GeoPackage; plus 1,000,000 points as GeoJSON (Chromium and native). Peak memory
 * is recorded next to the times: native and Node host as the process's peak RSS, Chromium as
 * the growth of its processes' summed RSS over the run. Results go to the "Ingest" section of
 * docs/benchmarks.md.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { machine, median, writeSection } from './report.ts'
// @ts-expect-error plain JS helper shared with the scripts
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs'

const PORT = Number(process.env.E2E_PORT ?? 4206)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const BIG = Number(process.env.BENCH_BIG ?? 1_000_000)
const dir = mkdtempSync(join(tmpdir(), 'outpost-bench-ingest-'))

interface Dataset { label: string; file: string; runs: number; node: boolean }
interface Sample { ms: number; peakMiB: number }

// ---- data ----

/** `n` features in EPSG:4326 spread over the world, four attributes each; polygons are 12-gons. */
function geojson(n: number, polygons: boolean): string {
  const rows = Math.ceil(n / 1000)
  const parts: string[] = []
  for (let i = 0; i < n; i++) {
    const x = -170 + (i % 1000) * 0.34
    const y = -80 + Math.floor(i / 1000) * (160 / rows)
    let g: string
    if (!polygons) g = `{"type":"Point","coordinates":[${x.toFixed(6)},${y.toFixed(6)}]}`
    else {
      const ring: string[] = []
      for (let k = 0; k <= 12; k++) { const a = ((k % 12) / 12) * 2 * Math.PI; ring.push(`[${(x + 0.1 * Math.cos(a)).toFixed(6)},${(y + 0.05 * Math.sin(a)).toFixed(6)}]`) }
      g = `{"type":"Polygon","coordinates":[[${ring.join(',')}]]}`
    }
    parts.push(`{"type":"Feature","properties":{"name":"feature ${i}","value":${(i * 0.37).toFixed(2)},"count":${i % 1000},"day":"2024-0${1 + (i % 9)}-1${i % 10}"},"geometry":${g}}`)
  }
  return `{"type":"FeatureCollection","features":[\n${parts.join(',\n')}\n]}\n`
}

/** The GeoJSON as a zipped shapefile, written by native ogr2ogr. */
function shapefileZip(src: string, name: string): string {
  const shpDir = mkdtempSync(join(dir, 'shp-'))
  execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', '-lco', 'ENCODING=UTF-8', join(shpDir, `${name}.shp`), src])
  const files: Record<string, Uint8Array> = {}
  for (const f of readdirSync(shpDir)) files[f] = readFileSync(join(shpDir, f))
  const out = join(dir, `${name}.zip`)
  writeFileSync(out, zipSync(files, { level: 1 }))
  return out
}

function makeData(): Dataset[] {
  const p = join(dir, 'points-100k.geojson')
  writeFileSync(p, geojson(100_000, false))
  const poly = join(dir, 'polygons-20k.geojson')
  writeFileSync(poly, geojson(20_000, true))
  const big = join(dir, 'points-1m.geojson')
  writeFileSync(big, geojson(BIG, false))
  return [
    { label: '100,000 points, GeoJSON', file: p, runs: RUNS, node: true },
    { label: '100,000 points, zipped shapefile', file: shapefileZip(p, 'points'), runs: RUNS, node: true },
    { label: '20,000 polygons, GeoJSON', file: poly, runs: RUNS, node: true },
    { label: '20,000 polygons, zipped shapefile', file: shapefileZip(poly, 'polygons'), runs: RUNS, node: true },
    { label: `${BIG.toLocaleString('en')} points, GeoJSON`, file: big, runs: 1, node: false },
  ]
}

const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`

// ---- native ogr2ogr ----

function ensureGdal(): string {
  if (spawnSync('ogr2ogr', ['--version']).status !== 0) {
    console.log('installing gdal-bin with apt-get…')
    execFileSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gdal-bin'], { stdio: 'inherit' })
  }
  return execFileSync('ogr2ogr', ['--version'], { encoding: 'utf8' }).trim()
}

function nativeRun(d: Dataset): Sample {
  const out = join(dir, 'native.gpkg')
  rmSync(out, { force: true })
  const src = d.file.endsWith('.zip') ? `/vsizip/${d.file}` : d.file
  const t0 = performance.now()
  const r = spawnSync('/usr/bin/time', ['-f', '%M', 'ogr2ogr', '-f', 'GPKG', '-t_srs', 'EPSG:3857', out, src], { encoding: 'utf8' })
  const ms = performance.now() - t0
  if (r.status !== 0) throw new Error(`ogr2ogr failed: ${r.stderr}`)
  return { ms, peakMiB: Number(r.stderr.trim().split('\n').pop()) / 1024 }
}

// ---- Node host, its own process ----

interface Host { base: string; pid: number; proc: ChildProcess; data: string }

async function startHost(): Promise<Host> {
  const data = mkdtempSync(join(dir, 'node-data-'))
  const proc = spawn(process.execPath, ['--import', 'tsx', 'sw/host/node-main.ts', '--data', data, '--port', '0'],
    { env: { ...process.env, OUTPOST_ADMIN_PASSWORD: 'bench' }, stdio: ['ignore', 'pipe', 'inherit'] })
  const base = await new Promise<string>((resolve, reject) => {
    let out = ''
    proc.stdout!.on('data', (b: Buffer) => {
      out += b.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    proc.on('exit', (code) => reject(new Error(`host exited ${code}`)))
  })
  return { base, pid: proc.pid!, proc, data }
}

function peakRss(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(m?.[1] ?? 0) * 1024
}

const AUTH_NODE = 'Basic ' + btoa('administrator:bench')

/** Upload (raw PUT) and create; the time of both. */
async function ingestOverHttp(base: string, auth: string, name: string, bytes: Uint8Array): Promise<{ ms: number; id: number }> {
  const t0 = performance.now()
  const up = await fetch(`${base}/api/component/file_upload/`, { method: 'PUT', body: bytes as Uint8Array<ArrayBuffer>,
    headers: { authorization: auth, 'content-disposition': `attachment; filename="${name}"` } })
  if (up.status !== 201) throw new Error(`upload ${up.status} ${await up.text()}`)
  const source = await up.json()
  const res = await fetch(`${base}/api/resource/`, { method: 'POST', headers: { authorization: auth }, body: JSON.stringify({
    resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `${name} ${Math.random()}` }, vector_layer: { srs: { id: 3857 }, source } }) })
  const body = await res.json()
  if (res.status !== 201) throw new Error(`create ${res.status} ${JSON.stringify(body).slice(0, 400)}`)
  return { ms: performance.now() - t0, id: body.id }
}

async function nodeRun(d: Dataset): Promise<Sample> {
  const host = await startHost()
  try {
    // GDAL starts on first use: start it first, as a running server has it.
    await ingestOverHttp(host.base, AUTH_NODE, 'warm.geojson', new TextEncoder().encode(geojson(10, false)))
    const bytes = new Uint8Array(readFileSync(d.file))
    const { ms } = await ingestOverHttp(host.base, AUTH_NODE, d.file.split('/').pop()!, bytes)
    return { ms, peakMiB: peakRss(host.pid) / 2 ** 20 }
  } finally {
    host.proc.kill('SIGTERM')
    await new Promise((r) => host.proc.once('exit', r))
    rmSync(host.data, { recursive: true, force: true })
  }
}

// ---- Chromium, the service worker ----

/** Serves the data files to the page (cross-origin, so the worker leaves these fetches alone). */
function dataServer(): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const file = join(dir, decodeURIComponent(new URL(req.url!, 'http://x').pathname).slice(1))
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-length': statSync(file).size })
    res.end(readFileSync(file))
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const a = server.address()
    resolve({ server, base: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}` })
  }))
}

/** Summed RSS of the processes of the browser whose profile is `profile`. */
function browserRss(profile: string): number {
  let sum = 0
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(profile)) continue
      sum += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
    } catch { /* gone */ }
  }
  return sum
}

interface Browser { context: BrowserContext; page: Page; profile: string; preview: ChildProcess; data: { server: Server; base: string } }

async function startBrowser(): Promise<Browser> {
  const preview = spawn('npx', ['vite', 'preview', '--port', String(PORT), '--strictPort'], { stdio: 'ignore', detached: true })
  const profile = mkdtempSync(join(dir, 'chromium-'))
  const context = await chromium.launchPersistentContext(profile, { executablePath: findChromium(), args: ['--headless', ...CHROMIUM_ARGS] })
  let page: Page | undefined
  for (let i = 0; i < 60 && !page; i++) {
    try {
      const p = await context.newPage()
      await p.goto(`http://127.0.0.1:${PORT}/`)
      page = p
    } catch { await new Promise((r) => setTimeout(r, 500)) }
  }
  if (!page) throw new Error('vite preview did not start')
  await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 30_000 })
  // A page the worker controls that is not the app: nothing else shares the threads.
  await page.goto(`http://127.0.0.1:${PORT}/api/component/pyramid/route`)
  return { context, page, profile, preview, data: await dataServer() }
}

async function browserRun(b: Browser, d: Dataset): Promise<Sample> {
  const name = d.file.split('/').pop()!
  // The file is in the page (a Blob) before the clock starts, as a dropped file is.
  await b.page.evaluate(async (url) => {
    (globalThis as { benchFile?: Blob }).benchFile = await (await fetch(url)).blob()
  }, `${b.data.base}/${name}`)
  const base = browserRss(b.profile)
  let peak = base
  const timer = setInterval(() => { peak = Math.max(peak, browserRss(b.profile)) }, 100)
  try {
    const ms = await b.page.evaluate(async ({ name, auth }) => {
      const t0 = performance.now()
      const up = await fetch('/api/component/file_upload/', { method: 'PUT', body: (globalThis as { benchFile?: Blob }).benchFile,
        headers: { authorization: auth, 'content-disposition': `attachment; filename="${name}"` } })
      if (up.status !== 201) throw new Error(`upload ${up.status}`)
      const source = await up.json()
      const res = await fetch('/api/resource/', { method: 'POST', headers: { authorization: auth }, body: JSON.stringify({
        resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `${name} ${Math.random()}` }, vector_layer: { srs: { id: 3857 }, source } }) })
      if (res.status !== 201) throw new Error(`create ${res.status} ${(await res.text()).slice(0, 400)}`)
      return performance.now() - t0
    }, { name, auth: 'Basic ' + btoa('administrator:admin') })
    return { ms, peakMiB: (peak - base) / 2 ** 20 }
  } finally {
    clearInterval(timer)
    await b.page.evaluate(() => { delete (globalThis as { benchFile?: Blob }).benchFile })
  }
}

async function stopBrowser(b: Browser): Promise<void> {
  await b.context.close()
  try { if (b.preview.pid) process.kill(-b.preview.pid, 'SIGTERM') } catch { /* gone */ }
  b.data.server.close()
}

// ---- the run ----

const fmtS = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const ratio = (ours: number, native: number) => `${(ours / native).toFixed(1)}×`

async function main(): Promise<void> {
  const gdalVersion = ensureGdal()
  if (!process.env.BENCH_SKIP_BUILD) execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' })
  const data = makeData()
  const browser = await startBrowser()
  const rows: string[] = []
  const all: string[] = []
  try {
    // Warm the worker's GDAL (downloaded and started on first use) before anything is timed.
    await browser.page.evaluate(async () => {
      const up = await fetch('/api/component/file_upload/', { method: 'PUT', body: '{"type":"FeatureCollection","features":[]}',
        headers: { authorization: 'Basic ' + btoa('administrator:admin'), 'content-disposition': 'attachment; filename="warm.geojson"' } })
      await fetch('/api/component/outpost/ingest/inspect', { method: 'POST', headers: { authorization: 'Basic ' + btoa('administrator:admin') },
        body: JSON.stringify({ source: await up.json() }) })
    })
    for (const d of data) {
      const native: Sample[] = []
      const node: Sample[] = []
      const sw: Sample[] = []
      for (let i = 0; i < d.runs; i++) {
        // Interleaved, so a busy moment of the shared machine falls on all sides alike.
        native.push(nativeRun(d))
        if (d.node) node.push(await nodeRun(d))
        sw.push(await browserRun(browser, d))
        console.log(`${d.label} run ${i + 1}: native ${fmtS(native.at(-1)!.ms)}, node ${node.length ? fmtS(node.at(-1)!.ms) : '-'}, chromium ${fmtS(sw.at(-1)!.ms)}`)
      }
      const n = median(native.map((s) => s.ms))
      const peak = (s: Sample[]) => `${Math.max(...s.map((x) => x.peakMiB)).toFixed(0)} MiB`
      const nodeCell = node.length ? `${fmtS(median(node.map((s) => s.ms)))} (${ratio(median(node.map((s) => s.ms)), n)}), ${peak(node)}` : '—'
      const swMs = median(sw.map((s) => s.ms))
      rows.push(`| ${d.label} (${mib(statSync(d.file).size)}) | ${fmtS(n)}, ${peak(native)} | ${nodeCell} | ${fmtS(swMs)} (${ratio(swMs, n)}), +${peak(sw)} |`)
      all.push(`${d.label}: native ${native.map((s) => fmtS(s.ms)).join(', ')}; node ${node.map((s) => fmtS(s.ms)).join(', ') || '—'}; chromium ${sw.map((s) => fmtS(s.ms)).join(', ')}`)
    }
  } finally {
    await stopBrowser(browser)
    rmSync(dir, { recursive: true, force: true })
  }
  const body = [
    `Machine: ${machine()}; reference: ${gdalVersion} (Debian \`gdal-bin\`), \`ogr2ogr -f GPKG -t_srs EPSG:3857\` into a new GeoPackage.`,
    '',
    'Outpost times are the whole path a client takes: upload the file (raw PUT) and create the layer (`POST /api/resource/`',
    'with `vector_layer.source`, EPSG:3857), until the layer is durable and answered; GDAL already started. The Node host runs',
    `in its own process with a file store, restarted per run; the service worker in Chromium with IndexedDB. Median of ${RUNS}`,
    'runs (the 1,000,000-point file: one). Memory: peak RSS of the native and Node processes; for Chromium the peak growth',
    'of all its processes\' summed RSS during the run (the file was already in the page as a Blob).',
    '',
    '| file | native ogr2ogr, peak RSS | Node host (× native), peak RSS | service worker (× native), RSS growth |',
    '|---|---|---|---|',
    ...rows,
    '',
    'Targets: within 3× of native, and the 1,000,000-point GeoJSON in Chromium within 5× of native.',
    `Every run, in order (the machine is shared): ${all.join('; ')}.`,
  ].join('\n')
  writeSection('Ingest', body)
  console.log(body)
}

main().catch((err) => { console.error(err); process.exit(1) })
