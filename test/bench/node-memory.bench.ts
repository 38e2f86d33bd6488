/**
 * `npm run bench -- node-memory`: the Node host's resident memory (RSS, from /proc), compiled
 * (dist-node/), with the V8 flags `npm run serve` had before and the ones it has now, in one run.
 * Idle is taken on IDLE_STARTS fresh starts of each, interleaved (a new data folder with the demo
 * and one request); then, once each: after one GDAL request; after the GDAL thread's idle time;
 * and a fresh host after a 400,000-point layer is loaded by batch PATCHes of 10,000, against that
 * layer's bytes on disk, with the load's time (what a smaller young generation could cost).
 * Writes the section "Node host memory" of docs/benchmarks.md.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { NodeHost, PASSWORD } from './storage-hosts.ts'
import { fillLayer } from './storage-layers.ts'
import { machine, writeSection } from './report.ts'
import { GDAL_IDLE_MS } from '../../wasm/gdal-thread-node.ts'
// @ts-expect-error plain JS build script
import { buildNode } from '../../scripts/build-node.mjs'

const POINTS = 400_000
const SETTLE_MS = 5_000
/** After the layer's last batch: RSS settles within about 15 s (measured at 5, 15, 30 and 60 s: 234, 197, 197, 197 MiB). */
const LOADED_SETTLE_MS = 15_000
/** From the GDAL request to the second reading: past the thread's idle time. */
const GDAL_LATER_MS = GDAL_IDLE_MS + 10_000
const WELLS = readFileSync('test/fixtures/wells.geojson', 'utf8')
const MiB = (b: number) => (b / 2 ** 20).toFixed(0)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function status(pid: number, key: string): number {
  return Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
}

interface Row { label: string; start: number; idle: number; gdal: number; gdalLater: number; loaded: number; peak: number; data: number; loadS: number }

async function started(label: string, run: { entry: string[]; cwd?: string }): Promise<{ host: NodeHost; dir: string; start: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-mem-'))
  const host = new NodeHost(join(dir, 'data'), undefined, { ...run, args: ['--demo'] })
  const start = await host.start()
  const first = await host.request('GET', '/api/resource/0')
  if (first.status !== 200) throw new Error(`${label}: first request ${first.status}`)
  return { host, dir, start }
}

async function stopped(h: { host: NodeHost; dir: string }): Promise<void> {
  await h.host.stop()
  rmSync(h.dir, { recursive: true, force: true })
}

/** Two processes: one idles, uses GDAL once and idles again; a second, fresh one loads the layer. */
async function measure(label: string, run: { entry: string[]; cwd?: string }): Promise<Row> {
  const a = await started(label, run)
  let start: number, idle: number, gdal: number, gdalLater: number
  try {
    start = a.start
    await sleep(SETTLE_MS)
    idle = a.host.rss()
    const res = await fetch(`${a.host.base}/api/component/outpost/gdal/inspect?name=wells.geojson`,
      { method: 'POST', body: WELLS, headers: { authorization: 'Basic ' + Buffer.from(`administrator:${PASSWORD}`).toString('base64') } })
    if (res.status !== 200) throw new Error(`${label}: GDAL ${res.status}`)
    await res.arrayBuffer()
    await sleep(SETTLE_MS)
    gdal = a.host.rss()
    await sleep(GDAL_LATER_MS - SETTLE_MS)
    gdalLater = a.host.rss()
  } finally {
    await stopped(a)
  }
  const b = await started(label, run)
  try {
    const t0 = performance.now()
    const layer = await fillLayer(b.host, POINTS, false)
    const loadS = (performance.now() - t0) / 1000
    await sleep(LOADED_SETTLE_MS)
    const row = { label, start, idle, gdal, gdalLater, loaded: b.host.rss(), peak: status(b.host.proc.pid!, 'VmHWM'), data: b.host.layerBytes(layer.id), loadS }
    console.log(`${label}: idle ${MiB(row.idle)} MiB, after GDAL ${MiB(row.gdal)}, ${GDAL_LATER_MS / 1000} s later ${MiB(row.gdalLater)}; after ${POINTS} points ${MiB(row.loaded)} (peak ${MiB(row.peak)}), layer ${MiB(row.data)} MiB on disk, load ${row.loadS.toFixed(1)} s`)
    return row
  } finally {
    await stopped(b)
  }
}

/** Fresh starts per variant for the idle figure, interleaved: one start varies by ±10 MiB on this machine. */
const IDLE_STARTS = 5

/** Idle RSS of a fresh start (new data folder, demo, one request, SETTLE_MS later). */
async function idleOnce(label: string, run: { entry: string[] }): Promise<number> {
  const h = await started(label, run)
  try { await sleep(SETTLE_MS); return h.host.rss() } finally { await stopped(h) }
}

const load = loadavg()[0]!.toFixed(1)
if (!buildNode()) throw new Error('the Node host did not build')
const serve = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { serve: string } }).scripts.serve
const serveArgs = serve.split(/\s+/).slice(1) // after `node`: its flags and scripts/serve.mjs, which imports dist-node/ in-process
/** The compiled host with the flags `npm run serve` had before V8's worker pool and young generation were capped. */
const BEFORE = ['--max-semi-space-size=4', 'scripts/serve.mjs']
const variants = [
  { label: `before (\`node ${BEFORE.join(' ')}\`)`, entry: BEFORE },
  { label: `now (\`${serve}\`)`, entry: serveArgs },
]
const idles = variants.map(() => [] as number[])
for (let i = 0; i < IDLE_STARTS; i++) {
  for (const [k, v] of variants.entries()) idles[k]!.push(await idleOnce(v.label, v))
}
const rows: Row[] = []
for (const v of variants) rows.push(await measure(v.label, v))
const loadAfter = loadavg()[0]!.toFixed(1)
mkdirSync('docs', { recursive: true })

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
const lines = rows.map((r, k) => `| ${r.label} | ${(r.start / 1000).toFixed(1)} s | ${MiB(median(idles[k]!))} (${idles[k]!.map(MiB).join(', ')}) | ${MiB(r.gdal)} | ${MiB(r.gdalLater)} | ${MiB(r.loaded)} (${(r.loaded / r.data).toFixed(1)}×) | ${MiB(r.peak)} | ${MiB(r.data)} | ${r.loadS.toFixed(1)} s |`)
writeSection('Node host memory', `
Machine: ${machine()}; load average ${load} at the start, ${loadAfter} at the end.
Command: \`npm run bench -- node-memory\` (test/bench/node-memory.bench.ts). RSS of the host's
process from /proc (MiB), in one run, compiled (dist-node/) both times: with the flags \`npm run serve\` had before
(\`node ${BEFORE.join(' ')}\`) and with today's (\`${serve}\`). "idle" is the median of ${IDLE_STARTS} fresh starts of each,
interleaved (each listed in brackets), ${SETTLE_MS / 1000} s after the first request on a new data folder with the demo (\`--demo\`).
In one more process each: "GDAL" ${SETTLE_MS / 1000} s after one GDAL inspect of a 3-point GeoJSON, "GDAL +${GDAL_LATER_MS / 1000} s" that long after it
(past the GDAL thread's idle time, ${GDAL_IDLE_MS / 1000} s). In a fresh one, ${POINTS.toLocaleString('en')} points are loaded by batch PATCHes of
10,000; "loaded" is ${LOADED_SETTLE_MS / 1000} s after the last, with its ratio to the layer's bytes on disk ("data", database and WAL);
"peak" is that process's largest RSS; "load" the load's time.
Before the compiled host (item 4 of issue 22), TypeScript through tsx at run time held 198–229 MiB idle.

| host | start | idle | GDAL | GDAL +${GDAL_LATER_MS / 1000} s | loaded (× data) | peak | data | load |
|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}

Targets (issue 22): under 100 MiB idle; under 3× the data's size after the load.
`)
