/**
 * Import through the app: a person drops a 1,000-feature zipped shapefile on the app in Chromium
 * (production build, service worker) and waits for the layer on the map. Timed from the page,
 * stage by stage: the dialog shows what GDAL detected (upload + inspect), "Create layer" until
 * the dialog closes (convert, check, write), the layer in the tree, its features drawn. Three
 * ways: GDAL cold (first use: its 40 MB fetched and started), worker cold (stopped by the
 * browser, GDAL's files cached), warm (the worker running, GDAL started). Beside it, GDAL's own
 * time: native `ogr2ogr` of the same file into a GeoPackage in the same run. Results go to the
 * "Import through the app" section of docs/benchmarks.md.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { machine, median, writeSection } from './report.ts'
// @ts-expect-error plain JS helper shared with the scripts
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs'

const PORT = Number(process.env.E2E_PORT ?? 4208)
const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const N = 1000
const dir = mkdtempSync(join(tmpdir(), 'outpost-bench-import-'))

/** `n` points with four attributes, as GeoJSON, then zipped as a shapefile by native ogr2ogr. */
function shapefileZip(n: number): { zip: string; bytes: Uint8Array } {
  const features = Array.from({ length: n }, (_, i) => `{"type":"Feature","properties":{"name":"well ${i}","depth":${(i * 0.37).toFixed(2)},"count":${i % 100},"day":"2024-01-1${i % 10}"},"geometry":{"type":"Point","coordinates":[${(30 + (i % 40) * 0.01).toFixed(4)},${(60 + Math.floor(i / 40) * 0.01).toFixed(4)}]}}`)
  const src = join(dir, 'wells.geojson')
  writeFileSync(src, `{"type":"FeatureCollection","features":[${features.join(',')}]}`)
  const shp = mkdtempSync(join(dir, 'shp-'))
  execFileSync('ogr2ogr', ['-f', 'ESRI Shapefile', '-lco', 'ENCODING=UTF-8', join(shp, 'wells.shp'), src])
  const files: Record<string, Uint8Array> = {}
  for (const f of readdirSync(shp)) files[f] = readFileSync(join(shp, f))
  const zip = join(dir, 'wells.zip')
  const bytes = zipSync(files, { level: 1 })
  writeFileSync(zip, bytes)
  return { zip, bytes }
}

function nativeMs(zip: string): number {
  const out = join(dir, 'native.gpkg')
  rmSync(out, { force: true })
  const t0 = performance.now()
  const r = spawnSync('ogr2ogr', ['-f', 'GPKG', '-t_srs', 'EPSG:3857', out, `/vsizip/${zip}`], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`ogr2ogr failed: ${r.stderr}`)
  return performance.now() - t0
}

interface Stages { inspected: number; answered: number; created: number; listed: number; drawn: number
  /** The server's own times (ms): the inspection's Server-Timing, the create's stages from its progress. */
  server: Record<string, number> }

async function stopWorker(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page)
  await cdp.send('ServiceWorker.enable')
  await cdp.send('ServiceWorker.stopAllWorkers')
  await cdp.detach()
}

/** Drops the file on the app and times each stage up to the layer's features drawn on the map. */
async function importOnce(page: Page, name: string, bytes: Uint8Array): Promise<Stages> {
  const t0 = Date.now()
  const inspect = page.waitForResponse((r) => r.url().endsWith('/api/component/outpost/ingest/inspect'), { timeout: 120_000 })
  const createReq = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/resource/' && r.method() === 'POST', { timeout: 240_000 })
  await page.evaluate(({ name, b64 }) => {
    const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))
    const dt = new DataTransfer()
    dt.items.add(new File([data], `${name}.zip`))
    for (const type of ['dragenter', 'dragover', 'drop']) document.body.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }))
  }, { name, b64: Buffer.from(bytes).toString('base64') })
  const dialog = page.getByTestId('dialog-ingest')
  await dialog.getByTestId('ingest-driver').waitFor({ timeout: 120_000 })
  const inspected = Date.now() - t0
  const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/resource/' && r.request().method() === 'POST', { timeout: 240_000 })
    .then(() => Date.now() - t0)
  await dialog.getByTestId('ingest-create').click()
  await dialog.waitFor({ state: 'hidden', timeout: 120_000 })
  const created = Date.now() - t0
  const answered = await answer
  await page.locator(`[data-testid="tree-node"][data-name="${name}"]`).waitFor({ timeout: 60_000 })
  const listed = Date.now() - t0
  const panel = page.getByTestId('field-panel')
  if (!(await panel.isVisible())) await page.getByTestId('field-open').click()
  await page.waitForFunction((n) => document.querySelector('[data-testid="field-panel"]')?.getAttribute('data-map-features') === String(n), N, { timeout: 60_000 })
  const drawn = Date.now() - t0
  const server: Record<string, number> = {}
  for (const m of ((await inspect).headers()['server-timing'] ?? '').matchAll(/(\w+);dur=(\d+)/g)) server[`inspect: ${m[1]}`] = Number(m[2])
  const token = (await createReq).headers()['x-outpost-progress']
  const progress = await page.evaluate(async (t) => (await fetch(`/api/component/outpost/progress/${t}`)).json(), token)
  // A build before the stage timings (BENCH_DIST of an older commit, for before/after) has none.
  for (const [k, v] of Object.entries((progress.timings ?? {}) as Record<string, number>)) server[`create: ${k}`] = v
  return { inspected, answered, created, listed, drawn, server }
}

async function login(page: Page): Promise<void> {
  await page.getByTestId('login-button').click()
  await page.getByTestId('login-name').fill('administrator')
  await page.getByTestId('login-password').fill('admin')
  await page.getByTestId('login-submit').click()
  await page.getByTestId('new-password').fill('bench-secret')
  await page.getByTestId('confirm-password').fill('bench-secret')
  await page.getByTestId('password-submit').click()
  await page.getByTestId('password-change-form').waitFor({ state: 'detached' })
}

/**
 * The same benchmark against a build of 9dbfc90 (before issue 20's import work: GDAL started
 * only by the upload's inspection, no keep-alive, no stage timings), measured once and kept here
 * so each rewrite of the section keeps it (`BENCH_DIST=<that build>` reproduces it).
 */
const BEFORE = [
  'Before (9dbfc90, `BENCH_DIST=<its dist> npm run bench -- import-ui`, 2026-11-26, load average 15–19 on the 2 cores):',
  'drop → drawn GDAL cold 17.1 s, worker cold 24.6 s, warm 2.9 s (a second run: 24.8 s, 26.4 s, 2.2 s; native 1.0 s);',
  'worker cold, drop → inspected 17.6 s (GDAL started only after the upload). On a quiet machine (load ~1, same path by a',
  'Playwright spec) the old build took 6.4 s GDAL cold and 1.7 s warm: the cold paths scale with the machine\'s load, the',
  'GDAL start (40 MB compiled, its data unpacked, on the worker\'s one thread) and the first calls into GDAL and SQLite',
  'after it (2–10× their warm time until V8 has optimised them) being most of it.',
].join('\n')

async function main(): Promise<void> {
  if (spawnSync('ogr2ogr', ['--version']).status !== 0) throw new Error('ogr2ogr is missing: apt-get install gdal-bin')
  const gdalVersion = execFileSync('ogr2ogr', ['--version'], { encoding: 'utf8' }).trim()
  if (!process.env.BENCH_SKIP_BUILD) execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'ignore' })
  const { zip, bytes } = shapefileZip(N)
  // BENCH_DIST: another build (an older commit's, for before/after numbers).
  const preview = spawn('npx', ['vite', 'preview', '--port', String(PORT), '--strictPort', ...(process.env.BENCH_DIST ? ['--outDir', process.env.BENCH_DIST] : [])],
    { stdio: 'ignore', detached: true })
  const context = await chromium.launchPersistentContext(mkdtempSync(join(dir, 'chromium-')),
    { executablePath: findChromium(), args: ['--headless', ...CHROMIUM_ARGS], viewport: { width: 1280, height: 800 } })
  const rows: Array<{ label: string; runs: Stages[] }> = [
    { label: 'GDAL cold (first use: fetched and started)', runs: [] },
    { label: 'worker cold (stopped; GDAL cached)', runs: [] },
    { label: 'warm (worker and GDAL running)', runs: [] },
  ]
  let k = 0
  try {
    const page = await context.newPage()
    for (let i = 0; ; i++) {
      try { await page.goto(`http://127.0.0.1:${PORT}/`); break } catch (err) { if (i > 60) throw err; await new Promise((r) => setTimeout(r, 500)) }
    }
    await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 60_000 })
    await page.reload()
    await page.getByTestId('login-button').waitFor({ timeout: 60_000 })
    await login(page)
    rows[0]!.runs.push(await importOnce(page, `wells${k++}`, bytes))
    for (let r = 0; r < RUNS; r++) {
      await stopWorker(context, page)
      rows[1]!.runs.push(await importOnce(page, `wells${k++}`, bytes))
      rows[2]!.runs.push(await importOnce(page, `wells${k++}`, bytes))
    }
  } finally {
    await context.close()
    try { process.kill(-preview.pid!, 'SIGTERM') } catch { /* gone */ }
  }
  const native = median(Array.from({ length: RUNS }, () => nativeMs(zip)))
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`
  const table = rows.map(({ label, runs }) => {
    const m = (key: Exclude<keyof Stages, 'server'>) => median(runs.map((r) => r[key]))
    return `| ${label} | ${runs.length} | ${s(m('inspected'))} | ${s(m('answered') - m('inspected'))} | ${s(m('created') - m('inspected'))} | ${s(m('listed'))} | ${s(m('drawn'))} | ${(m('drawn') / native).toFixed(0)}× |`
  })
  const keys = [...new Set(rows.flatMap((r) => r.runs.flatMap((x) => Object.keys(x.server))))]
  const serverTable = [
    `| server stage (ms, medians) | ${rows.map((r) => r.label.split(' (')[0]).join(' | ')} |`,
    `|---|${rows.map(() => '---').join('|')}|`,
    ...keys.map((k) => `| ${k} | ${rows.map((r) => String(median(r.runs.map((x) => x.server[k] ?? 0)))).join(' | ')} |`),
  ]
  const body = [
    `Machine: ${machine()}; reference: ${gdalVersion} (Debian \`gdal-bin\`). Command: \`npm run bench -- import-ui\` (test/bench/import-ui.bench.ts).`,
    '',
    `A zipped shapefile of ${N.toLocaleString('en')} points (four attributes, ${(bytes.length / 1024).toFixed(0)} KB) dropped on the app in Chromium (1280×800, the production build, the service worker),`,
    'timed from the page: the drop until the dialog shows what GDAL detected (upload and inspect); "Create layer" until the dialog closes (convert, check, write, save);',
    'the drop until the layer is in the tree, and until its features are drawn on the map (`data-map-features`). Medians; targets: under 3 s warm, under 10 s with a cold worker.',
    '',
    '| path | runs | drop → inspected | create → answered | create → dialog closed | drop → in the tree | drop → drawn | vs native |',
    '|---|---|---|---|---|---|---|---|',
    ...table,
    `| native \`ogr2ogr -f GPKG -t_srs EPSG:3857\` of the same zip | ${RUNS} | | | | | ${s(native)} | 1× |`,
    '',
    BEFORE,
    '',
    'Where the server\'s time goes (the inspection\'s `Server-Timing`; the create\'s `timings` from its progress, `gdal` being GDAL\'s start):',
    '',
    ...serverTable,
  ].join('\n')
  console.log(body)
  if (!process.env.BENCH_DIST) writeSection('Import through the app', body)
  rmSync(dir, { recursive: true, force: true })
}

await main()
