/**
 * No request holds the thread that answers the others (issue 19, item 2), on the Node host as
 * its own process: while a long ingest and 100,000-feature exports run, `ping` and a feature
 * read are answered at once. The ingest's GDAL conversion runs in the host's GDAL thread, the
 * exports give way every few milliseconds (`core/yield`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { apiOf, kill, startHost, type Host } from './node-process.ts'
import type { Api } from './harness.ts'
import { NODE_ADMIN_AUTH } from './node-client.ts'
import { pointsGeojson } from './ingest-files.ts'
import { newGroup } from './cases/ingest.ts'

let dir: string
let host: Host
let api: Api
let group: number
let exported: number

const AUTH = { authorization: NODE_ADMIN_AUTH }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The time a GET takes to be answered in full (ms) and its status. */
async function timed(path: string): Promise<{ ms: number; status: number }> {
  const t = performance.now()
  const res = await fetch(host.base + path, { headers: AUTH }).catch((err) => { throw new Error(`GET ${path} after ${(performance.now() - t).toFixed(0)} ms: ${err}`, { cause: err }) })
  await res.arrayBuffer()
  return { ms: performance.now() - t, status: res.status }
}

/** Uploads `text` over real HTTP (multipart) and returns its `upload_meta` entry. */
async function upload(name: string, text: string): Promise<Record<string, unknown>> {
  const form = new FormData()
  form.append('file', new Blob([text]), name)
  const res = await fetch(`${host.base}/api/component/file_upload/`, { method: 'POST', headers: AUTH, body: form })
  expect(res.ok).toBe(true)
  return ((await res.json()) as { upload_meta: Array<Record<string, unknown>> }).upload_meta[0]!
}

const layerFrom = (source: Record<string, unknown>, name: string) => api.request('POST', '/api/resource/', {
  body: { resource: { cls: 'vector_layer', parent: { id: group }, display_name: name }, vector_layer: { srs: { id: 3857 }, source } } })

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outpost-offthread-'))
  host = await startHost(dir)
  host.proc.stderr!.on('data', (b: Buffer) => process.stderr.write(b))
  host.proc.once('exit', (code, signal) => process.stderr.write(`host exited: ${code} ${signal}\n`))
  api = apiOf(host.base)
  group = await newGroup(api, expect)
  const res = await layerFrom(await upload('export.geojson', pointsGeojson(100_000)), 'export')
  expect(res.status).toBe(201)
  exported = res.body.id
}, 240_000)

afterAll(async () => {
  if (host) await kill(host)
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('Nothing stalls the others on the Node host', () => {
  it('while a long ingest and 100,000-feature exports run, ping and a feature read answer within 200 ms', async () => {
    const source = await upload('long.geojson', pointsGeojson(250_000))
    let ingestDone = false
    const ingest = layerFrom(source, 'long').finally(() => { ingestDone = true })
    // Exports one after another for as long as the ingest runs: one is always in flight.
    let exports = 0
    let exportInFlight = false
    const exporting = (async () => {
      while (!ingestDone) {
        exportInFlight = true
        const { status } = await timed(`/api/resource/${exported}/export?format=GeoJSON&srs=4326&zipped=false`)
        exportInFlight = false
        expect(status).toBe(200)
        exports++
      }
    })()
    const pings: number[] = []
    const reads: number[] = []
    await sleep(300)
    while (!ingestDone && pings.length < 40) {
      const ping = await timed('/api/component/pyramid/ping')
      const read = await timed(`/api/resource/${exported}/feature/${1 + pings.length}`)
      // Counted only while both are really in flight.
      if (!ingestDone && exportInFlight) {
        expect(ping.status).toBe(200)
        expect(read.status).toBe(200)
        pings.push(ping.ms)
        reads.push(read.ms)
      }
      await sleep(100)
    }
    expect((await ingest).status).toBe(201)
    await exporting
    console.log(`offthread: ${pings.length} samples, ${exports} exports; ping median ${median(pings).toFixed(1)} ms max ${Math.max(...pings).toFixed(1)} ms;`
      + ` read median ${median(reads).toFixed(1)} ms max ${Math.max(...reads).toFixed(1)} ms`)
    expect(pings.length).toBeGreaterThanOrEqual(5)
    expect(exports).toBeGreaterThanOrEqual(1)
    expect(median(pings)).toBeLessThan(200)
    expect(median(reads)).toBeLessThan(200)
  }, 300_000)
})
