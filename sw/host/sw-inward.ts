/**
 * @module host/sw-inward
 * A request the worker sends to its own origin's `/api/` goes to the network (the static host
 * serving the app), not to itself: its own fetch does not pass through its fetch handler. The
 * WMS client's requests for such a URL (a WMS service of this very app as the remote) are
 * therefore answered by the app in-process, as if they had come in: with the credentials the
 * request carries (the connection's Basic login) and nothing of the page's (no session cookie),
 * so the permissions are that user's. The caller's limits (size, time) still apply to the
 * answer, and a chain of such requests ends at `MAX_HOPS` (core/hops.ts).
 */
/// <reference lib="webworker" />
import { COOKIE_COPY } from '../auth/middleware.ts'
import type { Fetch } from '../core/outbound.ts'
import { backendPath, toBackend } from './sw-scope.ts'

/**
 * A fetch that answers `origin`'s API under `base` with `app`, and sends every other request
 * to `network`.
 */
export function inwardFetch(origin: string, base: string, app: (request: Request) => Promise<Response>, network: Fetch): Fetch {
  return async (input, init) => {
    const request = new Request(input, init)
    const url = new URL(request.url)
    if (url.origin !== origin || backendPath(base, url.pathname) === undefined) return network(request)
    // Only what the request itself carries says who asks; a session cookie could not be sent anyway.
    const headers = new Headers(request.headers)
    headers.delete('cookie')
    headers.delete(COOKIE_COPY)
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body
    const inner = new Request(request.url, { method: request.method, headers, body, credentials: 'omit', signal: request.signal,
      // @ts-expect-error `duplex` is needed for a streamed body; the WebWorker types lack it.
      duplex: 'half' })
    return app(toBackend(base, inner))
  }
}
