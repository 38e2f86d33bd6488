/**
 * @module catalogue/http
 * Request and response conventions of the catalogue (reference §4, §6, §11, §12): DRF JSON,
 * the headers every answer carries, CORS, and the `next`/`previous` links of a page.
 */
import { quotePlus } from '../core/text.ts'

export const ALLOW = 'GET, HEAD, OPTIONS'

/** A JSON answer from already serialized text, with the headers of DRF's JSON views. */
export function drfResponse(text: string, status = 200, extra: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { 'content-type': 'application/json', allow: ALLOW, vary: 'Accept', ...extra } })
}

/** `<scheme>://<host>` as the client reached us, honouring a proxy's X-Forwarded-* headers. */
export function origin(request: Request): string {
  const url = new URL(request.url)
  const proto = request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() || url.protocol.replace(/:$/, '')
  const host = request.headers.get('x-forwarded-host')?.split(',')[0]?.trim() || url.host
  return `${proto}://${host}`
}

/**
 * DRF's `replace_query_param`/`remove_query_param`: the request's absolute URL with `set`
 * applied (null removes), every parameter kept (blank ones too) and sorted by key.
 */
export function pageLink(request: Request, set: Record<string, string | null>): string {
  const url = new URL(request.url)
  const groups = new Map<string, string[]>()
  for (const [k, v] of url.searchParams) {
    const list = groups.get(k) ?? []
    list.push(v)
    groups.set(k, list)
  }
  for (const [k, v] of Object.entries(set)) {
    if (v === null) groups.delete(k)
    else groups.set(k, [v])
  }
  const keys = [...groups.keys()].sort()
  const query = keys.flatMap((k) => groups.get(k)!.map((v) => `${quotePlus(k)}=${quotePlus(v)}`)).join('&')
  return `${origin(request)}${url.pathname}${query ? `?${query}` : ''}`
}

/** CORS headers for a request with an Origin to an /api/ path (django-cors-headers 1.2.2). */
export function corsHeaders(method: string): Record<string, string> {
  const h: Record<string, string> = {
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'content-range, x-content-range',
  }
  if (method === 'OPTIONS') {
    h['access-control-allow-headers'] = 'x-requested-with, content-type, accept, origin, authorization, x-csrftoken, user-agent, accept-encoding, range, x-range'
    h['access-control-allow-methods'] = 'GET, OPTIONS'
    h['access-control-max-age'] = '86400'
  }
  return h
}

/** True when the Accept header admits one of `types` (DRF ranks by specificity, ignoring q). */
export function accepts(accept: string | null, types: string[]): boolean {
  if (!accept || !accept.trim()) return true
  return accept.split(',').some((part) => {
    const range = part.split(';')[0]!.trim().toLowerCase()
    if (range === '*/*' || range === '*') return true
    const [main, sub] = range.split('/')
    return types.some((t) => {
      const [tm, ts] = t.split('/')
      return main === tm && (sub === '*' || sub === ts)
    })
  })
}

/** Python `int(s)` for query values: optional sign and surrounding spaces. */
export function pyInt(s: string | undefined): number | undefined {
  if (s === undefined || !/^\s*[+-]?\d+\s*$/.test(s)) return undefined
  return Number(s.trim())
}

/** LimitOffsetPagination's limit: a positive integer, else `undefined` (reference §6). */
export function positiveLimit(s: string | undefined, cutoff?: number): number | undefined {
  const v = pyInt(s)
  if (v === undefined || v <= 0) return undefined
  return cutoff !== undefined ? Math.min(v, cutoff) : v
}

export function nonNegativeOffset(s: string | undefined): number {
  const v = pyInt(s)
  return v === undefined || v < 0 ? 0 : v
}
