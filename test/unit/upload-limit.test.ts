import type { Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp, nodePlatform, serve } from '../../sw/host/node.ts'

const LIMIT = 16
const TOO_LARGE = 'nextgisweb.file_upload.api.UploadedFileTooLarge'
let server: Server
let base: string

beforeAll(async () => {
  const app = createApp(nodePlatform({ admin: { password: 'unit-test-pw', mustChange: false }, log: () => {}, uploadMaxSize: LIMIT }))
  server = await serve(app, { port: 0 })
  const addr = server.address()
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/api/component/file_upload/`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

async function expectTooLarge(res: Response) {
  expect(res.status).toBe(413)
  expect(res.headers.get('content-type')).toBe('application/json')
  expect(await res.json()).toMatchObject({ status_code: 413, exception: TOO_LARGE, title: 'Uploaded file too large' })
}

const bytes = (n: number) => new Uint8Array(n).fill(65)

describe('upload size limit on the Node host (uploadMaxSize = 16)', () => {
  it('reports the limit in settings and OPTIONS', async () => {
    const settings = await (await fetch(base.replace('file_upload/', 'pyramid/settings?component=file_upload'))).json()
    expect(settings.maxSize).toBe(LIMIT)
    expect((await fetch(base, { method: 'OPTIONS' })).headers.get('tus-max-size')).toBe(String(LIMIT))
  })

  it('refuses a multipart file over the limit and stores none of the form', async () => {
    const fd = new FormData()
    fd.append('files[]', new Blob([bytes(LIMIT)]), 'ok.txt')
    fd.append('files[]', new Blob([bytes(LIMIT + 1)]), 'big.txt')
    await expectTooLarge(await fetch(base, { method: 'POST', body: fd }))
    const one = new FormData()
    one.append('file', new Blob([bytes(LIMIT)]), 'ok.txt')
    const ok = await fetch(base, { method: 'POST', body: one })
    expect(ok.status).toBe(200)
    expect((await ok.json()).upload_meta[0].size).toBe(LIMIT)
  })

  it('refuses a raw body over the limit, with or without a Content-Length', async () => {
    await expectTooLarge(await fetch(base, { method: 'PUT', body: bytes(LIMIT + 1) }))
    await expectTooLarge(await fetch(base + 'upload', { method: 'POST', body: bytes(LIMIT + 1) }))
    // A streamed body (chunked, no Content-Length) is cut off once it passes the limit.
    const stream = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(bytes(10)); c.enqueue(bytes(10)); c.close() } })
    // @ts-expect-error Node's fetch needs `duplex` for a streamed body; the DOM types lack it.
    await expectTooLarge(await fetch(base, { method: 'PUT', body: stream, duplex: 'half' }))
    expect((await fetch(base, { method: 'PUT', body: bytes(LIMIT) })).status).toBe(201)
  })

  it('refuses a TUS Upload-Length over the limit at creation', async () => {
    await expectTooLarge(await fetch(base, { method: 'POST', headers: { 'tus-resumable': '1.0.0', 'upload-length': String(LIMIT + 1) } }))
    expect((await fetch(base, { method: 'POST', headers: { 'tus-resumable': '1.0.0', 'upload-length': String(LIMIT) } })).status).toBe(201)
  })
})
