/**
 * @module sync/client
 * A client of a team's server, speaking the resource API (reference §5, §6, §7, §12) through
 * the platform's outbound fetch with HTTP Basic credentials. Every URL it follows stays on
 * the connection's origin: the `fetch`/`continue` URLs a server gives are re-based onto it
 * (a server behind a proxy may name itself otherwise), and credentials go nowhere else.
 * Every answer is read within limits (`core/outbound.ts`): size, time to answer, time in all.
 */
import { toBase64 } from '../core/bytes.ts'
import { ApiError } from '../core/error.ts'
import { boundedFetch, OUTBOUND_LIMITS, type BoundedResponse, type Fetch, type OutboundLimits } from '../core/outbound.ts'
import type { Platform } from '../platform/platform.ts'
import { uploadMaxSize } from '../upload/limits.ts'
import type { Credentials } from './types.ts'
import { remoteFailed, remoteMalformed, remoteUnreachable } from './errors.ts'
import { parseRemoteJson } from './remote-json.ts'

/** Retries of a request the network failed, and the pause before each. */
const RETRIES = 1
const RETRY_MS = 300

export interface RemoteAnswer {
  status: number
  body: any // reason: remote JSON, checked where it is used
}

/** The limits of each kind of request (`core/outbound.ts`). */
export type RemoteLimits = Record<keyof typeof OUTBOUND_LIMITS, OutboundLimits>

/**
 * A client of `creds` through the platform's outbound fetch and limits; files are capped at the
 * upload limit. In the browser the app's origin goes with it: a request the browser fails
 * there may be CORS, and the message names the origin the team's server must allow.
 */
export function remoteClient(creds: Credentials, platform: Pick<Platform, 'fetch' | 'uploadMaxSize' | 'outboundLimits'>
  & Partial<Pick<Platform, 'host' | 'origin'>>): RemoteClient {
  const limits: RemoteLimits = { ...OUTBOUND_LIMITS, file: { ...OUTBOUND_LIMITS.file, maxBytes: uploadMaxSize(platform) },
    ...platform.outboundLimits }
  const appOrigin = platform.host === 'service-worker' ? platform.origin : undefined
  return new RemoteClient(creds, (input, init) => platform.fetch(input, init), limits, appOrigin)
}

export class RemoteClient {
  readonly #auth: string | undefined

  /** `appOrigin`: the browser app's origin, when requests are the browser's (sync/errors.ts `remoteUnreachable`). */
  constructor(readonly creds: Credentials, readonly fetch: Fetch, readonly limits: RemoteLimits = OUTBOUND_LIMITS,
    readonly appOrigin?: string) {
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

  async #send(method: string, path: string, limits: OutboundLimits, body?: BodyInit, headers: Record<string, string> = {}): Promise<BoundedResponse> {
    const url = this.url(path)
    const h: Record<string, string> = { accept: 'application/json', ...headers }
    if (this.#auth) h.authorization = this.#auth
    // Once more after a network failure: a kept-alive connection the server just closed fails
    // the next request sent on it. Every request of the protocol may go twice (a transaction's
    // operations and commit are idempotent; a second upload or transaction stays unused).
    for (let attempt = 0; ; attempt++) {
      try {
        return await boundedFetch(this.fetch, url, { method, headers: h, body, credentials: 'omit' }, limits)
      } catch (err) {
        // A timeout is not retried: that would double the wait.
        if (err instanceof ApiError) throw err
        if (attempt >= RETRIES) throw remoteUnreachable(this.creds.url, err, this.appOrigin)
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS))
      }
    }
  }

  /**
   * One JSON request; answers with the status and body. Statuses in `accept` are answers;
   * any other non-2xx is a 502 with a short reason (never the remote's whole body). A body
   * that is not JSON is a 502 too. `kind` chooses the limits (a listing a person waits for
   * times out sooner).
   */
  async json(method: string, path: string, body?: unknown, accept: number[] = [], kind: 'json' | 'listing' = 'json'): Promise<RemoteAnswer> {
    const res = await this.#send(method, path, this.limits[kind], body === undefined ? undefined : JSON.stringify(body),
      body === undefined ? {} : { 'content-type': 'application/json' })
    const text = await res.text()
    let parsed: unknown
    let isJson = true
    // A deep nesting that V8 cannot parse (RangeError) lands here too.
    try { parsed = text ? parseRemoteJson(text) : undefined } catch { parsed = text; isJson = false }
    if (!res.ok && !accept.includes(res.status)) throw remoteFailed(this.creds.url, res.status, parsed, res.headers.get('content-type'))
    if (!isJson) throw remoteMalformed(this.creds.url, `${method} ${path}`, 'an answer that is not JSON')
    return { status: res.status, body: parsed }
  }

  async get(path: string, kind: 'json' | 'listing' = 'json'): Promise<any> { // reason: remote JSON
    return (await this.json('GET', path, undefined, [], kind)).body
  }

  /** Bytes of `path` (an attachment's file), at most the upload limit unless `limits` says less (a basemap tile). */
  async bytes(path: string, limits: OutboundLimits = this.limits.file): Promise<Uint8Array> {
    const res = await this.#send('GET', path, limits)
    if (!res.ok) {
      res.discard()
      throw remoteFailed(this.creds.url, res.status, undefined, res.headers.get('content-type'))
    }
    return res.bytes()
  }

  /**
   * Uploads a file (multipart POST, reference §7: the one form a browser may send across
   * origins without asking for extra headers); returns the upload id.
   */
  async upload(bytes: Uint8Array, name: string | null, mime: string): Promise<string> {
    const form = new FormData()
    form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime }), name ?? 'file')
    const res = await this.#send('POST', '/api/component/file_upload/', this.limits.json, form)
    const text = await res.text()
    let body: { upload_meta?: { id?: string }[] } | undefined
    try { body = JSON.parse(text) } catch { body = undefined }
    const id = body?.upload_meta?.[0]?.id
    if (!res.ok) throw remoteFailed(this.creds.url, res.status, body, res.headers.get('content-type'))
    if (typeof id !== 'string') throw remoteMalformed(this.creds.url, 'POST /api/component/file_upload/', 'no upload id')
    return id
  }
}
