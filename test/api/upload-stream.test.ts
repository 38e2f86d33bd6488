import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'node:http'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createApp, nodePlatform, serve } from '../../sw/host/node.ts'
import { basicAuth } from './node-client.ts'

// Uploads go from the socket into the store file by file: a 96 MiB upload must not appear
// in memory whole. Measured on the Node host with a file store (the memory store keeps what
// it is given, by design).
const SIZE = 96 * 1024 * 1024
let server: Server
let base: string
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outpost-upload-'))
  const app = createApp(nodePlatform({ dataDir: dir, admin: { password: 'stream-test-pw', mustChange: false }, log: () => {} }))
  server = await serve(app, { port: 0 })
  const addr = server.address()
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/api/component/file_upload/`
})
afterAll(async () => {
  await new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  await rm(dir, { recursive: true, force: true })
})

const AUTH = { authorization: basicAuth('administrator', 'stream-test-pw') }

/** `size` bytes in 256 KiB chunks, made as they are pulled, optionally framed as a form part. */
function body(size: number, head = '', tail = ''): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(256 * 1024).fill(97)
  let sent = -1
  return new ReadableStream({
    pull(c) {
      if (sent < 0) { sent = 0; if (head) { c.enqueue(new TextEncoder().encode(head)); return } }
      if (sent >= size) { if (tail) c.enqueue(new TextEncoder().encode(tail)); c.close(); return }
      const n = Math.min(chunk.length, size - sent)
      sent += n
      c.enqueue(n === chunk.length ? chunk : chunk.subarray(0, n))
    },
  })
}

// A collection before each sample: what is measured is what the upload keeps alive, not the
// garbage a loaded machine has not collected yet (that made the bound flaky under load).
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Runs `fn` and returns the most memory held alive in ArrayBuffers above the start while it ran. */
async function peakBuffers(fn: () => Promise<void>): Promise<number> {
  gc()
  const start = process.memoryUsage().arrayBuffers
  let peak = 0
  const timer = setInterval(() => { gc(); peak = Math.max(peak, process.memoryUsage().arrayBuffers - start) }, 250)
  try { await fn() } finally { clearInterval(timer) }
  return peak
}

describe('uploads stream into the store', () => {
  it('a raw PUT of 96 MiB without Content-Length never holds the file in memory', async () => {
    let record: { size: number; id: string } | undefined
    const peak = await peakBuffers(async () => {
      const res = await fetch(base, { method: 'PUT', headers: AUTH, body: body(SIZE), duplex: 'half' } as RequestInit)
      expect(res.status).toBe(201)
      record = await res.json()
    })
    expect(record!.size).toBe(SIZE)
    expect((await stat(join(dir, 'blobs', `upload-${record!.id}`))).size).toBe(SIZE)
    expect(peak).toBeLessThan(SIZE / 2)
  })

  it('a multipart form of 96 MiB streams its file part too', async () => {
    const boundary = 'outpost-test-boundary'
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`
    const tail = `\r\n--${boundary}--\r\n`
    let meta: { size: number; name: string } | undefined
    const peak = await peakBuffers(async () => {
      const res = await fetch(base, { method: 'POST', headers: { ...AUTH, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: body(SIZE, head, tail), duplex: 'half' } as RequestInit)
      expect(res.status).toBe(200)
      meta = (await res.json()).upload_meta[0]
    })
    expect(meta).toMatchObject({ size: SIZE, name: 'big.bin' })
    expect(peak).toBeLessThan(SIZE / 2)
  })
})
