/**
 * @module core/cors
 * CORS for the API as the original answers it (reference §1.5): only for origins in the
 * allowed list (`https://*.example.com` matches its subdomains), `Access-Control-Allow-Origin`
 * echoing the origin with credentials allowed; a preflight (OPTIONS with
 * `Access-Control-Request-Method`) is a 200 naming the requested method and the headers
 * clients send. The app in a browser reaches its team's server across origins this way.
 */

/** Request headers a preflight allows: the original's, plus TUS's for uploads. */
const ALLOW_HEADERS = 'Authorization, Accept, Accept-Language, Content-Language, Content-Type, Range, '
  + 'Upload-Offset, Upload-Length, Upload-Defer-Length, Upload-Metadata, Tus-Resumable, X-Lunkwill, Idempotency-Key'
const EXPOSE_HEADERS = 'Location, Upload-Offset, Upload-Length, Tus-Resumable, Content-Disposition, Idempotent-Replayed, Server-Timing'

/** Whether `origin` is one of `allowed` (exact, or a `*.` subdomain pattern). */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => {
    if (a === origin || a === '*') return true
    const m = /^(https?:\/\/)\*\.(.+)$/.exec(a)
    return !!m && origin.startsWith(m[1]!) && origin.endsWith(`.${m[2]}`) && !origin.slice(m[1]!.length).includes('/')
  })
}

/** The CORS headers of an answer to `request`, or `undefined` when its origin is not allowed. */
export function corsHeaders(request: Request, allowed: readonly string[]): Record<string, string> | undefined {
  const origin = request.headers.get('origin')
  if (!origin || !allowed.length || !originAllowed(origin, allowed)) return undefined
  return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true',
    'access-control-expose-headers': EXPOSE_HEADERS, vary: 'Origin' }
}

/** The answer to a preflight from an allowed origin; `undefined` for any other request. */
export function preflight(request: Request, allowed: readonly string[]): Response | undefined {
  const method = request.headers.get('access-control-request-method')
  if (request.method !== 'OPTIONS' || !method) return undefined
  const headers = corsHeaders(request, allowed)
  if (!headers) return undefined
  return new Response('', { status: 200, headers: { ...headers, 'content-type': 'text/plain',
    'access-control-allow-methods': method, 'access-control-allow-headers': ALLOW_HEADERS, 'access-control-max-age': '600' } })
}
