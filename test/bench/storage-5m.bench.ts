/**
 * Storage, opt-in step (issue 8): a 5,000,000-point layer in Chromium's service worker —
 * past the old ceiling of about 3.4 million points per layer, where the whole image had to
 * fit twice in the 2 GiB WASM heap. Ingests it through batch PATCHes, edits it, stops the
 * worker and reads it back. Rewrites the "Storage: 5,000,000 points in Chromium" section.
 *
 * The points come a strip at a time (each batch of 10,000 in a strip of its own, as imports
 * of real data mostly come); BENCH_RANDOM=1 spreads every batch over the whole layer, the
 * worst case for the R*Tree (each batch then rewrites pages all over the index, see the
 * "Storage" section). Run: `npm run bench -- storage-5m` (BENCH_HUGE changes the size).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { machine, writeSection } from './report.ts'
import { SwHost } from './storage-hosts.ts'
import { editMedian, fillLayer, firstRead, intersectsMedian } from './storage-layers.ts'

const HUGE = Number(process.env.BENCH_HUGE ?? 5_000_000)
const STRIPS = !process.env.BENCH_RANDOM
const MiB = 2 ** 20
const tmp = mkdtempSync(join(tmpdir(), 'outpost-storage-5m-'))
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }))

const fmt = (ms: number) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(ms >= 100 ? 0 : 1)} ms`)
const mib = (b: number) => `${(b / MiB).toFixed(0)} MiB`

async function main(): Promise<void> {
  const host = new SwHost(join(tmp, 'profile'))
  await host.start()
  try {
    const layer = await fillLayer(host, HUGE, true, STRIPS)
    const afterIngest = await host.memory()
    const edit = await editMedian(host, layer)
    const box = await intersectsMedian(host, layer)
    const before = await host.started()
    await host.stopWorker()
    const cold = await firstRead(host, layer)
    if ((await host.started()) === before) throw new Error('the worker was not restarted')
    const count = (await host.request('GET', `/api/resource/${layer.id}/feature_count`)).body as { total_count: number }
    if (count.total_count !== HUGE) throw new Error(`the layer has ${count.total_count} features after the restart`)
    const editAfter = await editMedian(host, layer)
    const mem = await host.memory()
    const sorted = [...layer.batches].sort((a, b) => a - b)
    const body = `
Machine: ${machine()}. Command: \`npm run bench -- storage-5m\`. One ${HUGE.toLocaleString('en')}-point layer (4 fields) in the
service worker (persistent profile, IndexedDB on disk), filled through ${layer.batches.length} batch PATCHes of 10,000
${STRIPS ? 'with the points of each batch in a strip of their own (a region at a time)' : 'each spread over the whole layer (BENCH_RANDOM=1)'}.

| | |
|---|---|
| ingest, total | ${fmt(layer.ingestMs)} (batches: median ${fmt(sorted[sorted.length >> 1]!)}, slowest ${fmt(sorted[sorted.length - 1]!)}) |
| one feature edit, durable (median of 15) | ${fmt(edit)}; after the worker stop ${fmt(editAfter)} |
| list with \`intersects\` on a 1 km² box | ${fmt(box.ms)} (${box.found} points) |
| worker stopped → first feature read | ${fmt(cold)} (${mib(mem.pages)} of pages loaded: ${fmt(cold / (mem.pages / 1e8))} per 100 MB) |
| \`feature_count\` after the restart | ${count.total_count.toLocaleString('en')} |
| memory after ingesting | pages in JS memory ${mib(afterIngest.pages)}, WASM heap ${mib(afterIngest.wasm)}, worker's JS heap ${mib(afterIngest.jsHeap)}, renderer processes ${mib(afterIngest.renderers)} |
| memory after the restart and edits | pages in JS memory ${mib(mem.pages)}, WASM heap ${mib(mem.wasm)}, worker's JS heap ${mib(mem.jsHeap)}, renderer processes ${mib(mem.renderers)} |

The pages live in JS memory outside the WASM heap, which holds only SQLite's page cache: the layer is far past the
old ceiling (about 3.4 million points, a 512 MiB image that had to fit twice in the 2 GiB WASM heap).
`
    writeSection(`Storage: ${HUGE.toLocaleString('en')} points in Chromium${STRIPS ? '' : ', every batch over the whole layer'}`, body)
    console.log(body)
  } finally {
    await host.stop()
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1) })
