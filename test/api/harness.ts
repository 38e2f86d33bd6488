/**
 * The API contract as host-neutral cases: each case talks to an `Api` and asserts with the
 * runner's `expect`. `node-host.test.ts` runs them against the Node host over real HTTP;
 * `test/e2e/api-sw.spec.ts` runs the same cases inside Chromium against the service worker.
 */
import type { expect as vitestExpect } from 'vitest'

export interface ApiResponse {
  status: number
  headers: Record<string, string>
  text: string
  /** The raw body bytes as standard base64 (for binary responses such as images). */
  bodyBase64?: string
  /** The parsed JSON body, or undefined when the body is not JSON. */
  body: any // reason: tests index into arbitrary JSON
}

export type Auth = 'admin' | 'guest' | { login: string; password: string }

export interface RequestOptions {
  /** Sent as JSON text (without a Content-Type, as browser clients do). */
  body?: unknown
  /** Sent verbatim instead of `body`. */
  raw?: string
  /** Sent as these bytes (standard base64) instead of `body` or `raw`. */
  bytesBase64?: string
  /** Sent as a `multipart/form-data` body built by the client (which sets the boundary). */
  form?: FormPart[]
  headers?: Record<string, string>
  /** Who sends the request. @default 'admin' */
  auth?: Auth
  /** 'include' sends and keeps cookies, as a browser session does. @default 'omit' */
  credentials?: 'omit' | 'include'
}

/** One form field: a file part when `base64` is set, a text field otherwise. */
export interface FormPart {
  name: string
  value?: string
  /** The part's file name. @default 'blob' */
  filename?: string
  /** The part's media type; empty lets the client choose. */
  type?: string
  base64?: string
}

export interface Api {
  host: 'node' | 'service-worker'
  /** Where the API is, as its own clients reach it (`http://127.0.0.1:port`, the page's origin), when known. */
  origin?: string
  request(method: string, path: string, opts?: RequestOptions): Promise<ApiResponse>
  /**
   * Sends the requests one after another and answers them in order. A host may do it in one
   * round trip (the service worker's: one page call instead of one per request).
   */
  requestAll?(requests: ReadonlyArray<ApiRequest>): Promise<ApiResponse[]>
}

/** One request for `requestAll`. */
export type ApiRequest = [method: string, path: string, opts?: RequestOptions]

/** `requests` one after another, through `api.requestAll` where the host has it. */
export async function requestAll(api: Api, requests: ReadonlyArray<ApiRequest>): Promise<ApiResponse[]> {
  if (api.requestAll) return api.requestAll(requests)
  const out: ApiResponse[] = []
  for (const [method, path, opts] of requests) out.push(await api.request(method, path, opts))
  return out
}

export type Expect = typeof vitestExpect

export interface ApiCase {
  name: string
  run(api: Api, expect: Expect): Promise<void>
}

/** Plain data describing one request, so it can cross into a browser page. */
export interface WireRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
  bytesBase64?: string
  form?: FormPart[]
  credentials: 'omit' | 'include'
}

export function toWire(method: string, path: string, opts: RequestOptions, adminPassword: string): WireRequest {
  const headers: Record<string, string> = { ...opts.headers }
  const auth = opts.auth ?? 'admin'
  if (auth !== 'guest') {
    const [login, password] = auth === 'admin' ? ['administrator', adminPassword] : [auth.login, auth.password]
    headers.authorization = 'Basic ' + btoa(String.fromCharCode(...new TextEncoder().encode(`${login}:${password}`)))
  }
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body))
  return { method, path, headers, body, bytesBase64: opts.bytesBase64, form: opts.form, credentials: opts.credentials ?? 'omit' }
}

export function fromWire(status: number, headers: Record<string, string>, text: string, bodyBase64?: string): ApiResponse {
  let body: unknown
  try { body = text ? JSON.parse(text) : undefined } catch { body = undefined }
  return { status, headers, text, body, bodyBase64 }
}

/** Standard base64 of a string's UTF-8 bytes, or of bytes. */
export function base64(data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data
  // Node's Buffer where there is one: a string append per byte took 7.7 s for a 10 MB upload,
  // and Node's btoa 2.3 s.
  if (typeof Buffer !== 'undefined') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
  let bin = ''
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(bin)
}

/** A unique name per call, so that cases sharing one server never collide. */
let counter = 0
export function uniq(prefix: string): string {
  return `${prefix} ${Date.now().toString(36)}-${(counter++).toString(36)}`
}

/** Asserts the original's JSON error body with the given status and exception class. */
export function expectError(expect: Expect, res: ApiResponse, status: number, exception: string): void {
  expect(res.status).toBe(status)
  expect(res.headers['content-type']).toBe('application/json')
  expect(res.body).toMatchObject({ status_code: status, exception })
  expect(typeof res.body.title).toBe('string')
  expect(res.body.title.length).toBeGreaterThan(0)
  expect(typeof res.body.data).toBe('object')
  expect(res.headers['www-authenticate']).toBeUndefined()
}
