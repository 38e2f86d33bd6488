/**
 * @module ogc/client/request
 * Requests to a remote WMS (reference ngw-services §3.2, §3.4): the parameters merged into the
 * connection URL's own query (names matched without regard to case, spaces as `%20`: ArcGIS
 * needs it), HTTP Basic when both username and password are set, and every answer read within
 * the `wms` outbound limits (`core/outbound.ts`): size, time to answer, time in all.
 */
import { toBase64 } from '../../core/bytes.ts'
import { ApiError } from '../../core/error.ts'
import { HOPS_HEADER, hopsOf, MAX_HOPS } from '../../core/hops.ts'
import { boundedFetch, OUTBOUND_LIMITS, type BoundedResponse, type OutboundLimits } from '../../core/outbound.ts'
import type { Platform } from '../../platform/platform.ts'
import { CAPABILITIES_MAX_CHARS, CapabilitiesError, parseCapabilities, type Capcache, type WmsVersion } from './capabilities.ts'
import { LOOP_CODE, wmsException, wmsFailed, wmsLoop, wmsMalformed, wmsUnreachable } from './errors.ts'

/** A connection as the client uses it: the password in clear (decrypted by its class). */
export interface WmsConnection {
  id: number
  url: string
  version: WmsVersion
  username: string | null
  password: string | null
}

/** What the client needs of the host. */
export type WmsHost = Pick<Platform, 'fetch' | 'outboundLimits'> & Partial<Pick<Platform, 'host' | 'origin' | 'selfFetch'>>

/** `url` with `params` set in its query: a parameter already there under any case of the name is replaced. */
export function withParams(url: string, params: ReadonlyArray<readonly [string, string]>): string {
  const u = new URL(url)
  const names = new Set(params.map(([k]) => k.toLowerCase()))
  const kept = [...u.searchParams].filter(([k]) => !names.has(k.toLowerCase()))
  const enc = (s: string) => encodeURIComponent(s).replace(/%2C/gi, ',')
  u.search = ''
  const query = [...kept, ...params].map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')
  return `${u.origin}${u.pathname}${query ? `?${query}` : ''}`
}

const limitsOf = (host: WmsHost): OutboundLimits => ({ ...OUTBOUND_LIMITS.wms, ...host.outboundLimits?.wms })

/** The browser app's origin, when the requests are the browser's (CORS may refuse them). */
export const appOriginOf = (host: WmsHost) => (host.host === 'service-worker' ? host.origin : undefined)

/**
 * Sends a GET to the remote; a network failure rejects as `fetch` does, a timeout or an
 * oversized answer is the 502 of `core/outbound.ts`. `signal` is the asking request's: a
 * request that is itself `MAX_HOPS` deep in WMS requests sends none (core/hops.ts).
 */
export async function sendWms(host: WmsHost, conn: WmsConnection, url: string, limits: OutboundLimits, signal?: AbortSignal): Promise<BoundedResponse> {
  const hops = hopsOf(signal) + 1
  if (hops > MAX_HOPS) throw wmsLoop(new URL(conn.url).origin)
  const headers: Record<string, string> = {}
  if (conn.username && conn.password) {
    headers.authorization = 'Basic ' + toBase64(new TextEncoder().encode(`${conn.username}:${conn.password}`))
  }
  // From a browser, a header of ours would make every other origin's WMS answer a CORS preflight first.
  if (host.host !== 'service-worker' || new URL(url).origin === host.origin) headers[HOPS_HEADER] = String(hops)
  return boundedFetch(host.selfFetch ?? host.fetch, url, { headers, credentials: 'omit', signal }, limits)
}

/** The largest answer read as a possible ServiceException report. */
const EXCEPTION_MAX_BYTES = 1024 * 1024

/**
 * The error of an answer with an HTTP error status: the remote's ServiceException when it sent
 * one (a WMS, ours included, answers most errors so), else its status.
 */
async function failure(res: BoundedResponse, origin: string, what: string): Promise<ApiError> {
  const type = res.headers.get('content-type')
  if (!/xml/i.test(type ?? '')) {
    res.discard()
    return wmsFailed(origin, what, res.status, type)
  }
  const text = await res.text()
  if (text.length > EXCEPTION_MAX_BYTES) return wmsFailed(origin, what, res.status, type)
  try {
    parseCapabilities(text)
  } catch (err) {
    if (err instanceof CapabilitiesError && err.kind === 'exception') {
      return err.code === LOOP_CODE ? wmsLoop(origin) : wmsException(origin, what, err.code, err.message)
    }
  }
  return wmsFailed(origin, what, res.status, type)
}

/** Whether a network failure (not an answer, not one of our limits) is what `err` is. */
export const isNetworkFailure = (err: unknown) => !(err instanceof ApiError) && !(err instanceof DOMException && err.name === 'AbortError')

const looksHtml = (contentType: string | null, head: string) =>
  /text\/html/i.test(contentType ?? '') || /^\s*(<!doctype html|<html)/i.test(head)

/**
 * Fetches and reads the remote's capabilities (`capcache: "query"`). Every failure is a 502
 * saying what the remote did: unreachable, an HTTP error, an HTML page, a ServiceException,
 * another version, too large or too slow.
 */
export async function queryCapabilities(host: WmsHost, conn: WmsConnection, signal?: AbortSignal): Promise<Capcache> {
  const origin = new URL(conn.url).origin
  const url = withParams(conn.url, [['service', 'WMS'], ['request', 'GetCapabilities'], ['version', conn.version]])
  const what = 'GetCapabilities'
  let res: BoundedResponse
  try {
    res = await sendWms(host, conn, url, { ...limitsOf(host), maxBytes: CAPABILITIES_MAX_CHARS }, signal)
  } catch (err) {
    if (isNetworkFailure(err)) throw wmsUnreachable(origin, err, appOriginOf(host), false)
    throw err
  }
  const type = res.headers.get('content-type')
  if (!res.ok) throw await failure(res, origin, what)
  const text = await res.text()
  if (looksHtml(type, text.slice(0, 512))) throw wmsMalformed(origin, what, 'an HTML page, not a WMS capabilities document', type)
  try {
    const { version: _version, ...caps } = parseCapabilities(text)
    return caps
  } catch (err) {
    if (!(err instanceof CapabilitiesError)) throw err
    if (err.kind === 'exception') throw wmsException(origin, what, err.code, err.message)
    throw wmsMalformed(origin, what, err.message, type)
  }
}

/** An image the remote answered: its bytes as sent, and whether it is a PNG or a JPEG. */
export interface RemoteImage { bytes: Uint8Array; format: 'png' | 'jpeg' }

/** The kind of image `bytes` are, by their signature; `undefined` for anything else. */
export function imageKind(bytes: Uint8Array): RemoteImage['format'] | undefined {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png'
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'jpeg'
  return undefined
}

/**
 * Sends GetMap `url`; the image, or `null` for the original's "nothing here" answers (204,
 * 404). A network failure is thrown as it is (the caller may have an image kept); everything
 * else that is not an image is a 502 saying what it was.
 */
export async function fetchMap(host: WmsHost, conn: WmsConnection, url: string, signal?: AbortSignal): Promise<RemoteImage | null> {
  const origin = new URL(conn.url).origin
  const what = 'GetMap'
  const res = await sendWms(host, conn, url, limitsOf(host), signal)
  const type = res.headers.get('content-type')
  if (res.status === 204 || res.status === 404) {
    res.discard()
    return null
  }
  if (!res.ok) throw await failure(res, origin, what)
  const bytes = await res.bytes()
  const format = imageKind(bytes)
  if (format) return { bytes, format }
  const head = new TextDecoder().decode(bytes.subarray(0, 512))
  if (looksHtml(type, head)) throw wmsMalformed(origin, what, 'an HTML page, not an image', type)
  if (bytes.length <= EXCEPTION_MAX_BYTES && head.includes('ServiceException')) {
    try {
      parseCapabilities(new TextDecoder().decode(bytes))
    } catch (err) {
      if (err instanceof CapabilitiesError && err.kind === 'exception') throw wmsException(origin, what, err.code, err.message)
    }
  }
  throw wmsMalformed(origin, what, 'an answer that is neither a PNG nor a JPEG image', type)
}
