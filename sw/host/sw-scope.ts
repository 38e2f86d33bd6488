/**
 * @module host/sw-scope
 * The worker serves the app from its scope's directory, which need not be the site root: a
 * static host may put dist/ under `/demo/`. The backend's routes are `/api/…` (as the
 * original's and the Node host's), so a request for `/demo/api/…` reaches it as `/api/…`, and
 * a `Location` it answers with goes back under the scope. At the root nothing is rewritten.
 */
/// <reference lib="webworker" />
import { isApiPath } from '../core/http.ts'

/** The worker's directory path: `/`, or e.g. `/demo/`. */
export function scopePath(scope: string): string {
  return new URL(scope).pathname
}

/** The app's own file `name` (a precache entry, `/` relative) under the scope. */
export function inScope(base: string, name: string): string {
  return base + name.replace(/^\/+/, '')
}

/** The backend path of an API request under the scope (`/demo/api/x` → `/api/x`), or undefined for any other path. */
export function backendPath(base: string, pathname: string): string | undefined {
  if (!pathname.startsWith(base)) return undefined
  const rest = `/${pathname.slice(base.length)}`
  return isApiPath(rest) ? rest : undefined
}

/** `request` with its path moved from under the scope to the backend's `/api/…` (the body passes on as a stream). */
export function toBackend(base: string, request: Request): Request {
  if (base === '/') return request
  const url = new URL(request.url)
  const path = backendPath(base, url.pathname)
  if (path === undefined) return request
  url.pathname = path
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body
  return new Request(url, { method: request.method, headers: request.headers, body, credentials: request.credentials,
    signal: request.signal, redirect: request.redirect,
    // @ts-expect-error `duplex` is needed for a streamed body; the WebWorker types lack it.
    duplex: 'half' })
}

/** A `Location` the backend answered with (TUS uploads), moved back under the scope. */
export function fromBackend(base: string, headers: Headers, origin: string): void {
  const location = headers.get('location')
  if (base === '/' || !location || !URL.canParse(location, origin)) return
  const url = new URL(location, origin)
  if (url.origin !== origin || backendPath('/', url.pathname) === undefined) return
  url.pathname = base + url.pathname.slice(1)
  headers.set('location', /^https?:/i.test(location) ? url.href : url.pathname + url.search)
}
