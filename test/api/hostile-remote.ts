/**
 * A hostile "team's server" for the tests of outbound limits (issue 19): a node:http server
 * whose first path segment chooses how it misbehaves. A remote connection to
 * `${base}/<mode>` makes every request of the backend go to `/<mode>/api/...`. Big bodies are
 * generated as they are sent (backpressure respected), never held in memory. Every answer
 * allows any origin, so the service worker can read it across origins as well.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'

/** Bytes in the "huge" answer (declared in Content-Length). */
export const HUGE_BYTES = 400 * 1024 * 1024
/** What a service on the host's own network might answer: must never come back to a client. */
export const INTERNAL_SECRET = 'internal-token-5f3a9c'

export type HostileMode = 'huge' | 'chunked' | 'silent' | 'stall' | 'not-array' | 'truncated' | 'nulls' | 'deep'
  | 'not-json' | 'html-error' | 'ngw-error' | 'redirect' | 'ok'

const CHUNK = Buffer.alloc(64 * 1024, 0x20) // spaces: valid JSON whitespace, however much of it

export class HostileRemote {
  #server?: Server
  base = ''
  /** Bytes sent per mode so far (how far a big body got before the backend hung up). */
  readonly sent = new Map<string, number>()
  /** Requests that arrived per mode. */
  readonly arrived = new Map<string, number>()
  /** Requests whose connection the backend closed (it gave up on the answer). */
  readonly closed = new Map<string, number>()
  /** Where `redirect` sends to (set by a test). */
  redirectTo = ''

  async start(host = '127.0.0.1'): Promise<this> {
    this.#server = createServer((req, res) => this.#answer(req, res))
    await new Promise<void>((resolve) => this.#server!.listen(0, host, resolve))
    const addr = this.#server.address()
    this.base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`
    return this
  }

  get port(): number { return Number(new URL(this.base).port) }

  /** The URL of a connection to this server that misbehaves as `mode`. */
  url(mode: HostileMode): string { return `${this.base}/${mode}` }

  /** Resolves once a request for `mode` has arrived (count `n`). */
  async waitArrived(mode: HostileMode, n = 1): Promise<void> {
    while ((this.arrived.get(mode) ?? 0) < n) await new Promise((r) => setTimeout(r, 10))
  }

  close(): Promise<void> {
    this.#server?.closeAllConnections()
    return new Promise((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()))
  }

  #answer(req: IncomingMessage, res: ServerResponse): void {
    const mode = (req.url ?? '/').split('/')[1] as HostileMode
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': '*' }
    if (req.method === 'OPTIONS') { res.writeHead(204, cors).end(); return }
    this.arrived.set(mode, (this.arrived.get(mode) ?? 0) + 1)
    res.on('close', () => { if (!res.writableFinished) this.closed.set(mode, (this.closed.get(mode) ?? 0) + 1) })
    const json = (status: number, text: string, type = 'application/json'): void => {
      res.writeHead(status, { ...cors, 'content-type': type }).end(text)
    }
    switch (mode) {
      case 'huge': return this.#stream(mode, res, { ...cors, 'content-type': 'application/json', 'content-length': String(HUGE_BYTES) }, HUGE_BYTES)
      case 'chunked': return this.#stream(mode, res, { ...cors, 'content-type': 'application/json' }, Infinity)
      case 'silent': return // the headers never come
      case 'stall': res.writeHead(200, { ...cors, 'content-type': 'application/json' }); res.write('['); return
      case 'not-array': return json(200, '{"not":"an array"}')
      case 'truncated': return json(200, '[{"resource":{"id":1,"cls":"vector_layer","display_na')
      case 'nulls': return json(200, '[null,5,{"resource":null}]')
      case 'deep': return json(200, '['.repeat(200_000) + ']'.repeat(200_000))
      case 'not-json': return json(200, `<html><body>${INTERNAL_SECRET}</body></html>`, 'text/html')
      case 'html-error': return json(500, `<html><body>admin console: ${INTERNAL_SECRET}</body></html>`, 'text/html; charset=utf-8')
      case 'ngw-error': return json(404, JSON.stringify({ title: 'Not found '.repeat(100) + '\u0000\u001b[31m', status_code: 404,
        exception: 'nextgisweb.resource.exception.ResourceNotFound', message: INTERNAL_SECRET, data: { secret: INTERNAL_SECRET } }))
      case 'redirect': res.writeHead(302, { ...cors, location: this.redirectTo }).end(); return
      case 'ok': return json(200, '[{"resource":{"id":7,"cls":"resource_group","display_name":"Team data","children":true}}]')
      default: return json(404, '{}')
    }
  }

  /** Sends `total` bytes of spaces (or forever), at the pace the reader takes them. */
  #stream(mode: string, res: ServerResponse, headers: Record<string, string>, total: number): void {
    res.writeHead(200, headers)
    let left = total
    const pump = () => {
      while (left > 0 && !res.destroyed) {
        const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left)
        left -= chunk.length
        this.sent.set(mode, (this.sent.get(mode) ?? 0) + chunk.length)
        if (!res.write(chunk)) { res.once('drain', pump); return }
      }
      if (left <= 0) res.end()
    }
    pump()
  }
}

/** Run as a script (`node --import tsx test/api/hostile-remote.ts`): serves in its own process and prints its base URL. */
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, '/'))) {
  void new HostileRemote().start().then((h) => console.log(`hostile on ${h.base}`))
}
