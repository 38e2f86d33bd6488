/**
 * `npm run bench -- node-memory`: the Node host's resident memory (RSS, from /proc), before and
 * after issue 22 item 4, in one run: today's main from its TypeScript sources through tsx (as
 * `npm run serve` started it), this tree through tsx, and this tree as `npm run serve` starts it
 * now (compiled, dist-node/). For each: idle after the start on a new data folder with the demo
 * and one request; after one GDAL request; after the GDAL thread's idle time; then after a
 * 400,000-point layer is loaded by batch PATCHes of 10,000, against that layer's bytes on disk.
 * Writes the section "Node host memory" of docs/benchmarks.md.
 */
import { execSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
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

/** Today's main (the commit this branch started from) as files, with this tree's node_modules. */
function mainTree(): { dir: string; sha: string } {
  const sha = execSync('git merge-base HEAD main', { encoding: 'utf8' }).trim()
  const dir = mkdtempSync(join(tmpdir(), 'outpost-main-'))
  execSync(`git archive ${sha} sw wasm public package.json | tar -x -C ${dir}`)
  symlinkSync(resolve('node_modules'), join(dir, 'node_modules'))
  return { dir, sha }
}

const load = loadavg()[0]!.toFixed(1)
if (!buildNode()) throw new Error('the Node host did not build')
const serve = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { serve: string } }).scripts.serve
const serveArgs = serve.split(/\s+/).slice(1) // after `node`: its flags and scripts/serve.mjs, which imports dist-node/ in-process
const main = mainTree()
const rows: Row[] = []
try {
  rows.push(await measure(`main ${main.sha.slice(0, 7)}, tsx`, { entry: ['--import', 'tsx', 'sw/host/node-main.ts'], cwd: main.dir }))
  rows.push(await measure('this tree, tsx', { entry: ['--import', 'tsx', 'sw/host/node-main.ts'] }))
  rows.push(await measure('this tree, compiled (`npm run serve`)', { entry: serveArgs }))
} finally {
  rmSync(main.dir, { recursive: true, force: true })
}
const loadAfter = loadavg()[0]!.toFixed(1)
mkdirSync('docs', { recursive: true })

const lines = rows.map((r) => `| ${r.label} | ${(r.start / 1000).toFixed(1)} s | ${MiB(r.idle)} | ${MiB(r.gdal)} | ${MiB(r.gdalLater)} | ${MiB(r.loaded)} (${(r.loaded / r.data).toFixed(1)}×) | ${MiB(r.peak)} | ${MiB(r.data)} | ${r.loadS.toFixed(1)} s |`)
writeSection('Node host memory', `
Machine: ${machine()}; load average ${load} at the start, ${loadAfter} at the end.
Command: \`npm run bench -- node-memory\` (test/bench/node-memory.bench.ts). RSS of the host's
process from /proc (MiB), in one run: today's main (the commit this tree started from) from its
TypeScript sources through tsx, as \`npm run serve\` started it; this tree the same way; and this
tree as \`npm run serve\` starts it now (\`${serve}\`, i.e. compiled JavaScript from dist-node/).
Each process starts on a new data folder with the demo (\`--demo\`). In a first one, "idle" is ${SETTLE_MS / 1000} s after the
first request, "GDAL" ${SETTLE_MS / 1000} s after one GDAL inspect of a 3-point GeoJSON, "GDAL +${GDAL_LATER_MS / 1000} s" that long after it (past
the GDAL thread's idle time, ${GDAL_IDLE_MS / 1000} s). In a second, fresh one ${POINTS.toLocaleString('en')} points are loaded by batch PATCHes of
10,000; "loaded" is ${LOADED_SETTLE_MS / 1000} s after the last, with its ratio to the layer's bytes on disk ("data", database and WAL);
"peak" is that process's largest RSS.

| host | start | idle | GDAL | GDAL +${GDAL_LATER_MS / 1000} s | loaded (× data) | peak | data | load |
|---|---|---|---|---|---|---|---|---|
${lines.join('\n')}

Targets (issue 22): under 100 MiB idle; under 3× the data's size after the load.
`)
