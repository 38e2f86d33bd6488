/**
 * @module sync/client
 * A client of a team's server, speaking the resource API (reference §5, §6, §7, §12) through
 * the platform's outbound fetch with HTTP Basic credentials. Every URL it follows stays on
 * the connection's origin: the `fetch`/`continue` URLs a server gives are re-based onto it
 * (a server behind a proxy may name itself otherwise), and credentials go nowhere else.
 */
import { toBase64 } from '../core/bytes.ts'
import type { Credentials } from './types.ts'
import { remoteFailed, remoteUnreachable } from './errors.ts'
import { parseRemoteJson } from './remote-json.ts'

/** How long one request to the remote may take. */
const TIMEOUT_MS = 120_000
/** Retries of a request the network failed, and the pause before each. */
const RETRIES = 1
const RETRY_MS = 300

export interface RemoteAnswer {
  status: number
  body: any // reason: remote JSON, checked where it is used
}

type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>

export class RemoteClient {
  readonly #auth: string | undefined

  constructor(readonly creds: Credentials, readonly fetch: Fetch) {
    if (creds.username !== null) {
      this.#auth = 'Basic ' + toBase64(new TextEncoder().encode(`${creds.username}:${creds.password ?? ''}`))
    }
  }

  /** `path` (or an absolute URL of the remote, re-based onto the connection) as a URL. */
  url(path: string): string {
    const rel = /^https?:\/\//.test(path) ? (({ pathname, search }) => pathname + search)(new URL(path)) : path
    const base = new URL(this.creds.url)
    const prefix = base.pathname.replace(/\/+$/, '')
    return base.origin + (rel.startsWith(prefix + '/') ? rel : prefix + rel)
  }

  async #send(method: string, path: string, body?: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
    const url = this.url(path)
    const h: Record<string, string> = { accept: 'application/json', ...headers }
    if (this.#auth) h.authorization = this.#auth
    // Once more after a network failure: a kept-alive connection the server just closed fails
    // the next request sent on it. Every request of the protocol may go twice (a transaction's
    // operations and commit are idempotent; a second upload or transaction stays unused).
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.fetch(url, { method, headers: h, body, credentials: 'omit', signal: AbortSignal.timeout(TIMEOUT_MS) })
      } catch (err) {
        if (attempt >= RETRIES) throw remoteUnreachable(this.creds.url, err)
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS))
      }
    }
  }

  /**
   * One JSON request; answers with the status and body. Statuses in `accept` are answers;
   * any other non-2xx is a 502 carrying the remote's error body.
   */
  async json(method: string, path: string, body?: unknown, accept: number[] = []): Promise<RemoteAnswer> {
    const res = await this.#send(method, path, body === undefined ? undefined : JSON.stringify(body),
      body === undefined ? {} : { 'content-type': 'application/json' })
    let text: string
    try {
      text = await res.text()
    } catch (err) {
      throw remoteUnreachable(this.creds.url, err)
    }
    let parsed: unknown
    try { parsed = text ? parseRemoteJson(text) : undefined } catch { parsed = text }
    if (!res.ok && !accept.includes(res.status)) throw remoteFailed(this.creds.url, res.status, parsed)
    return { status: res.status, body: parsed }
  }

  async get(path: string): Promise<any> { // reason: remote JSON
    return (await this.json('GET', path)).body
  }

  /** Bytes of `path` (an attachment's file). */
  async bytes(path: string): Promise<Uint8Array> {
    const res = await this.#send('GET', path)
    if (!res.ok) throw remoteFailed(this.creds.url, res.status, await res.text().catch(() => ''))
    try {
      return new Uint8Array(await res.arrayBuffer())
    } catch (err) {
      throw remoteUnreachable(this.creds.url, err)
    }
  }

  /**
   * Uploads a file (multipart POST, reference §7: the one form a browser may send across
   * origins without asking for extra headers); returns the upload id.
   */
  async upload(bytes: Uint8Array, name: string | null, mime: string): Promise<string> {
    const form = new FormData()
    form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime }), name ?? 'file')
    const res = await this.#send('POST', '/api/component/file_upload/', form)
    const body = await res.json().catch(() => undefined) as { upload_meta?: { id?: string }[] } | undefined
    const id = body?.upload_meta?.[0]?.id
    if (!res.ok || typeof id !== 'string') throw remoteFailed(this.creds.url, res.status, body)
    return id
  }
}
