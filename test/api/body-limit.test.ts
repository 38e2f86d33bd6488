import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request, type Server } from 'node:http'
import { startNodeApi, NODE_ADMIN_AUTH } from './node-client.ts'
import { JSON_BODY_LIMIT } from '../../sw/core/limits.ts'

// Bodies that only a client of its own making sends: no Content-Length (chunked) and more
// bytes than the limit. The server stops reading at the limit instead of buffering it all.
let server: Server
let base: string
beforeAll(async () => { ({ server, base } = await startNodeApi()) })
// The refused bodies' connections are cut, not waited for.
afterAll(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))

const AUTH = { authorization: NODE_ADMIN_AUTH }

/** A chunked body of `total` bytes of JSON-ish text, counting what the server pulled. */
function endless(total: number) {
  const chunk = new TextEncoder().encode(' '.repeat(1 << 20))
  const sent = { bytes: 0 }
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent.bytes >= total) { controller.close(); return }
      sent.bytes += chunk.length
      controller.enqueue(chunk)
    },
  })
  return { body, sent }
}

describe('JSON body limit on the Node host', () => {
  it('answers 413 with the JSON error once a chunked body passes the limit, without reading the rest', async () => {
    const { body, sent } = endless(JSON_BODY_LIMIT * 4)
    const res = await fetch(`${base}/api/resource/`, { method: 'POST', headers: AUTH, body, duplex: 'half' } as RequestInit)
    expect(res.status).toBe(413)
    expect(await res.json()).toMatchObject({ status_code: 413, exception: 'nextgisweb.pyramid.exception.PyramidHTTPError',
      data: { limit: JSON_BODY_LIMIT } })
    expect(sent.bytes).toBeLessThan(JSON_BODY_LIMIT * 2)
  })

  it('refuses a declared Content-Length over the limit before reading any of the body', async () => {
    // Headers only: the body never comes, so only an answer made from the header can arrive.
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${base}/api/resource/`, { method: 'POST',
        headers: { ...AUTH, 'content-length': String(JSON_BODY_LIMIT + 1) } }, (res) => {
        let text = ''
        res.on('data', (c: Buffer) => { text += c })
        res.on('end', () => { resolve({ status: res.statusCode!, body: text }); req.destroy() })
      })
      req.on('error', reject)
      req.flushHeaders()
    })
    expect(status).toBe(413)
    expect(JSON.parse(body).data.limit).toBe(JSON_BODY_LIMIT)
  })
})
