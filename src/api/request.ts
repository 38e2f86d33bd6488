/**
 * @module api/request
 * The one way the UI talks to the backend: JSON over `fetch`, with the session cookie.
 * A failed request becomes a `ServerError` (the backend answered with its JSON error body)
 * or a `NetworkError` (no answer at all), so a view can show either to the person.
 */
import { apiUrl } from './base.ts'

/** The backend's JSON error body (NextGIS Web's shape). */
export interface ErrorBody {
  title: string
  message?: string
  detail?: string
  status_code: number
  exception: string
  data?: Record<string, unknown>
}

export class ServerError extends Error {
  readonly title: string
  readonly detail?: string
  readonly status: number
  readonly exception: string
  readonly data: Record<string, unknown>

  constructor(body: ErrorBody) {
    super(body.message ?? body.title)
    this.name = 'ServerError'
    this.title = body.title
    this.detail = body.detail
    this.status = body.status_code
    this.exception = body.exception
    this.data = body.data ?? {}
  }
}

export class NetworkError extends Error {
  readonly title = 'Network error'

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'NetworkError'
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
  /** Sent as JSON. */
  json?: unknown
  query?: Record<string, string | number | boolean | undefined>
  /** Sent as it is (a file upload's FormData) instead of `json`. */
  body?: BodyInit
  headers?: Record<string, string>
  signal?: AbortSignal
}

/** A random key; `crypto.randomUUID` needs a secure context, which a LAN address over http is not. */
function newKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')
}

function isErrorBody(v: unknown): v is ErrorBody {
  return typeof v === 'object' && v !== null && typeof (v as ErrorBody).title === 'string'
    && typeof (v as ErrorBody).status_code === 'number'
}

/** Sends one request to the backend and returns its parsed JSON body. */
export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  let url = apiUrl(path)
  if (opts.query) {
    const params = new URLSearchParams()
    for (const [k, v] of Object.entries(opts.query)) if (v !== undefined) params.set(k, String(v))
    const qs = params.toString()
    if (qs) url += `?${qs}`
  }
  const headers: Record<string, string> = { Accept: 'application/json', ...opts.headers }
  if (opts.json !== undefined) headers['Content-Type'] = 'application/json'
  // A write runs once even if Chromium hands it to a new worker after stopping the one that
  // had it (the backend answers a known key from its record). Own origin only: another
  // server's CORS may not allow the header.
  const method = opts.method ?? 'GET'
  if (method !== 'GET' && path.startsWith('/') && !('Idempotency-Key' in headers)) headers['Idempotency-Key'] = newKey()
  let res: Response
  try {
    res = await fetch(url, { method, headers, credentials: 'include', signal: opts.signal,
      body: opts.json === undefined ? opts.body : JSON.stringify(opts.json) })
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err
    throw new NetworkError(`The server could not be reached (${opts.method ?? 'GET'} ${path}).`, { cause: err })
  }
  const text = await res.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  if (!res.ok) {
    if (isErrorBody(body)) throw new ServerError(body)
    throw new ServerError({ title: `HTTP ${res.status}`, message: res.statusText || text.slice(0, 200),
      status_code: res.status, exception: 'unknown' })
  }
  return body as T
}

/** Title and message of any error, for showing to a person. */
export function describeError(err: unknown): { title: string; message: string } {
  if (err instanceof ServerError || err instanceof NetworkError) return { title: err.title, message: err.message }
  if (err instanceof Error) return { title: 'Unexpected error', message: err.message }
  return { title: 'Unexpected error', message: String(err) }
}
