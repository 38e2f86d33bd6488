/**
 * @module core/outbound
 * Every answer read from another server (a team's server the app syncs with, its own origin)
 * goes through here: the body is streamed and counted and stops at a size limit, and the
 * exchange stops when the answer's headers, or the next chunk of its body, keep it waiting
 * too long, or when it takes too long in all. A remote that sends 400 MB, never ends a chunked
 * body or never answers therefore costs at most `maxBytes` of memory and `totalMs` of one
 * request; the rest of the server answers meanwhile. Each failure is a 502 naming the remote's
 * origin (the original's `ExternalServiceError`).
 */
import { ApiError } from './error.ts'
import { concatBytes } from './bytes.ts'
import { bodyChunks } from './limits.ts'

/** The original's class for "the other server failed": this one is fine. */
export const EXTERNAL_SERVICE_ERROR = 'nextgisweb.core.exception.ExternalServiceError'

export interface OutboundLimits {
  /** Largest body, in bytes. */
  maxBytes: number
  /** Longest wait for the answer's headers, and between two chunks of its body. */
  idleMs: number
  /** Longest time for the whole exchange, body included. */
  totalMs: number
}

const MiB = 1024 * 1024

/**
 * The defaults (docs/security.md). `json`: a page of a changes feed, a transaction's answer, a
 * layer's schema; `listing`: a remote tree a person is waiting to see; `file`: an attachment
 * (its cap is the upload limit, see `fileLimits`); `wms`: a remote WMS's capabilities and images.
 */
export const OUTBOUND_LIMITS = {
  json: { maxBytes: 64 * MiB, idleMs: 30_000, totalMs: 120_000 },
  listing: { maxBytes: 64 * MiB, idleMs: 10_000, totalMs: 20_000 },
  file: { maxBytes: 512 * MiB, idleMs: 30_000, totalMs: 600_000 },
  // A remote WMS's capabilities and images: the original's `wmsclient.timeout` is 15 s.
  wms: { maxBytes: 32 * MiB, idleMs: 15_000, totalMs: 30_000 },
} as const satisfies Record<string, OutboundLimits>

export type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>

const size = (n: number) => (n % MiB === 0 ? `${n / MiB} MiB` : `${n} bytes`)

export const remoteTooLarge = (origin: string, limit: number) => new ApiError(502, 'Remote answer too large', {
  message: `The server at ${origin} sent more than ${size(limit)}, the limit of an answer.`,
  data: { url: origin, limit }, exception: EXTERNAL_SERVICE_ERROR })

export const remoteTimedOut = (origin: string, ms: number, what: 'answer' | 'total') => new ApiError(502, 'Remote server timed out', {
  message: what === 'answer' ? `The server at ${origin} sent nothing for ${ms / 1000} s.`
    : `The server at ${origin} did not finish its answer within ${ms / 1000} s.`,
  data: { url: origin, timeout: ms / 1000 }, exception: EXTERNAL_SERVICE_ERROR })

export const remoteBroken = (origin: string, cause: unknown) => new ApiError(502, 'Remote server unreachable', {
  message: `The answer of the server at ${origin} broke off: ${(cause as Error)?.message ?? cause}.`,
  data: { url: origin }, exception: EXTERNAL_SERVICE_ERROR, cause })

/** An answer whose headers have arrived; its body is read at most once, within the limits. */
export interface BoundedResponse {
  readonly status: number
  readonly ok: boolean
  readonly headers: Headers
  bytes(): Promise<Uint8Array>
  text(): Promise<string>
  /** Drops the body unread. */
  discard(): void
}

/**
 * Sends one request through `fetch` within `limits`. A network failure rejects as `fetch`
 * does (the caller decides about retries and names it); a timeout is a 502 `ApiError`.
 */
export async function boundedFetch(fetch: Fetch, url: string, init: RequestInit, limits: OutboundLimits): Promise<BoundedResponse> {
  const origin = new URL(url).origin
  const ctl = new AbortController()
  let why: ApiError | undefined
  const stop = (err: ApiError) => {
    why ??= err
    ctl.abort(err)
  }
  const total = setTimeout(() => stop(remoteTimedOut(origin, limits.totalMs, 'total')), limits.totalMs)
  let idle: ReturnType<typeof setTimeout> | undefined
  const waiting = () => {
    clearTimeout(idle)
    idle = setTimeout(() => stop(remoteTimedOut(origin, limits.idleMs, 'answer')), limits.idleMs)
  }
  const done = () => { clearTimeout(total); clearTimeout(idle) }
  waiting()
  let res: Response
  try {
    res = await fetch(url, { ...init, signal: init.signal ? AbortSignal.any([ctl.signal, init.signal]) : ctl.signal })
  } catch (err) {
    done()
    throw why ?? err
  }
  let used = false
  const bytes = async () => {
    if (used) throw new TypeError('The body was read already')
    used = true
    waiting()
    const chunks: Uint8Array[] = []
    try {
      for await (const chunk of bodyChunks(res, limits.maxBytes, () => remoteTooLarge(origin, limits.maxBytes),
        (cause) => why ?? remoteBroken(origin, cause))) {
        waiting() // the idle timer restarts with every chunk
        chunks.push(chunk)
      }
      return concatBytes(chunks)
    } catch (err) {
      ctl.abort()
      throw err
    } finally {
      done()
    }
  }
  return {
    status: res.status,
    ok: res.ok,
    headers: res.headers,
    bytes,
    text: async () => new TextDecoder().decode(await bytes()),
    discard: () => {
      done()
      if (!used) { used = true; void res.body?.cancel().catch(() => undefined) }
      ctl.abort()
    },
  }
}
