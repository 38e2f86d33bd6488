/**
 * @module host/sw-cookies
 * A service worker neither sees the Cookie header of the requests it intercepts nor can set
 * cookies through the responses it builds (browsers drop both headers), so cookies travel in
 * two private headers instead. The Cookie Store API bridges both ways, so the
 * session login works against the worker as it does against a server.
 */
/// <reference lib="webworker" />
import { COOKIE_COPY, SET_COOKIE_COPY } from '../auth/middleware.ts'

interface CookieStoreLike {
  getAll(): Promise<Array<{ name: string; value: string }>>
  set(opts: { name: string; value: string; path?: string; expires?: number | null; sameSite?: string }): Promise<void>
  delete(opts: { name: string; path?: string } | string): Promise<void>
}

/**
 * Whether a request comes from this origin's own pages. Only pages this worker controls (its
 * own origin's) fetch through it, but a page of any site can navigate here, a form POST
 * included: such a navigation is cross-site request forgery unless its referrer is ours. The
 * worker sees neither Origin nor Sec-Fetch-* headers, so the check is made here, not in the app.
 */
function fromOwnPages(request: Request): boolean {
  if (request.mode !== 'navigate' || request.method === 'GET' || request.method === 'HEAD') return true
  return URL.canParse(request.referrer) && new URL(request.referrer).origin === self.location.origin
}

export async function bridgeCookies(request: Request, handle: (req: Request) => Promise<Response>): Promise<Response> {
  const store = (globalThis as { cookieStore?: CookieStoreLike }).cookieStore
  // A request sent without credentials neither carries nor sets cookies, as in a browser; a
  // write another site navigates to gets none either (it runs as the guest's).
  if (!store || request.credentials === 'omit' || !fromOwnPages(request)) return handle(request)
  let req = request
  const cookies = await store.getAll()
  if (cookies.length) {
    const headers = new Headers(request.headers)
    headers.set(COOKIE_COPY, cookies.map((c) => `${c.name}=${encodeURIComponent(c.value)}`).join('; '))
    // The body passes on as a stream: the app reads it only once it knows who is asking.
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body
    req = new Request(request.url, { method: request.method, headers, body, credentials: request.credentials,
      // @ts-expect-error `duplex` is needed for a streamed body; the WebWorker types lack it.
      duplex: 'half' })
  }
  const res = await handle(req)
  const line = res.headers.get(SET_COOKIE_COPY)
  if (line) {
    const [pair, ...attrs] = line.split(';').map((s) => s.trim())
    const [name, ...v] = pair!.split('=')
    const value = decodeURIComponent(v.join('='))
    const maxAge = attrs.find((a) => a.toLowerCase().startsWith('max-age='))
    if (!value || maxAge === 'Max-Age=0') await store.delete({ name: name!, path: '/' })
    else await store.set({ name: name!, value, path: '/', sameSite: 'lax',
      expires: maxAge ? Date.now() + Number(maxAge.split('=')[1]) * 1000 : null })
  }
  return res
}

/** Removes the Set-Cookie copy; called for every response, credentials or not. */
export function stripCookieCopy(headers: Headers): void {
  headers.delete(SET_COOKIE_COPY)
}
