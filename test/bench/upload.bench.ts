/**
 * Uploads into the Node host over real HTTP with its file store: a raw PUT and a TUS upload
 * in 16 MiB chunks (nextgis_connect's chunk size), against writing the same bytes to a file
 * with fsync (the floor any durable upload pays), measured in the same run.
 */
import { mkdtemp, open, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createApp, nodePlatform, serve } from '../../sw/host/node.ts'
import { machine, median, timeRuns, writeSection } from './report.ts'

const MiB = 2 ** 20
const SIZE = 64 * MiB
const CHUNK = 16 * MiB
const RUNS = 3

const dir = await mkdtemp(join(tmpdir(), 'outpost-bench-upload-'))
const app = createApp(nodePlatform({ dataDir: join(dir, 'data'), admin: { password: 'bench-password', mustChange: false } }))
const server = await serve(app, { port: 0 })
const addr = server.address()
const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/api/component/file_upload/`
const data = new Uint8Array(SIZE)
for (let i = 0; i < SIZE; i += 4096) data[i] = i & 0xff

async function rawPut() {
  const res = await fetch(base, { method: 'PUT', body: data, headers: { 'content-type': 'application/octet-stream' } })
  if (res.status !== 201) throw new Error(`PUT answered ${res.status}`)
}

async function tus() {
  const created = await fetch(base, { method: 'POST', headers: { 'tus-resumable': '1.0.0', 'upload-length': String(SIZE) } })
  const location = created.headers.get('location')!
  for (let off = 0; off < SIZE; off += CHUNK) {
    const res = await fetch(location, { method: 'PATCH', body: data.subarray(off, off + CHUNK),
      headers: { 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream', 'upload-offset': String(off) } })
    if (res.status !== 204) throw new Error(`PATCH answered ${res.status}`)
  }
  const got = await fetch(location)
  if ((await got.json()).size !== SIZE) throw new Error('incomplete')
}

async function fsyncWrite() {
  const fh = await open(join(dir, 'reference.bin'), 'w')
  try {
    await fh.writeFile(data)
    await fh.sync()
  } finally {
    await fh.close()
  }
}

try {
  const ref = median(await timeRuns(RUNS, fsyncWrite))
  const put = median(await timeRuns(RUNS, rawPut))
  const chunked = median(await timeRuns(RUNS, tus))
  const mbps = (ms: number) => (SIZE / MiB / (ms / 1000)).toFixed(0)
  const rows = [
    ['write + fsync (reference)', ref],
    ['raw PUT /api/component/file_upload/', put],
    [`TUS: POST + ${SIZE / CHUNK} PATCHes of 16 MiB + GET`, chunked],
  ] as const
  const table = ['| 64 MiB upload, Node host, file store | median ms | MiB/s | × reference |', '|---|---:|---:|---:|',
    ...rows.map(([name, ms]) => `| ${name} | ${ms.toFixed(0)} | ${mbps(ms)} | ${(ms / ref).toFixed(1)} |`)].join('\n')
  console.log(table)
  writeSection('File upload (Node host)', `${machine()}; ${RUNS} runs each.\n\n${table}\n\n` +
    'Each upload is durable before it is answered (blob file fsynced, then the record in the main database).')
} finally {
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await rm(dir, { recursive: true, force: true })
}
