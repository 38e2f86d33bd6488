/**
 * @module ogc/client/errors
 * Failures of a remote WMS (the original's `ExternalServiceError`, a 502: this server is fine,
 * the other one failed). A remote's own text is told only from a well-formed WMS
 * ServiceException (its code and a short, clean text), never from another kind of body: a
 * connection pointed at another service of the network would otherwise read its answers back.
 */
import { ApiError } from '../../core/error.ts'
import { EXTERNAL_SERVICE_ERROR as EXTERNAL } from '../../core/outbound.ts'
import { MAX_HOPS } from '../../core/hops.ts'

/** Longest text kept of a remote's exception. */
const REASON_CHARS = 200

/** `text` short and without control characters. */
export function shortText(text: string): string {
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/\s+/g, ' ').trim()
  return clean.length > REASON_CHARS ? clean.slice(0, REASON_CHARS - 1) + '…' : clean
}

/** The remote answered a WMS ServiceException (`code` as it gave it, or null). */
export const wmsException = (origin: string, what: string, code: string | null, text: string) =>
  new ApiError(502, 'WMS exception', {
    message: `The WMS at ${origin} answered ${what} with an exception${code ? ` (${code})` : ''}: ${shortText(text) || 'no text'}.`,
    data: { url: origin, code }, exception: EXTERNAL })

/** The code our WMS server reports a request loop with (its ServiceException's `code`). */
export const LOOP_CODE = 'RequestLoop'

/**
 * A WMS request that would be `MAX_HOPS` deep in WMS requests (core/hops.ts): a layer of a WMS
 * service drawn, directly or through other services, from that same service. Every level
 * above answers this same error, not an exception wrapped in an exception.
 */
export const wmsLoop = (origin: string) => new ApiError(502, 'WMS request loop', {
  message: `A map from the WMS at ${origin} needs a map from a WMS again, more than ${MAX_HOPS} requests deep: a WMS layer is drawn, directly or through other services, from the WMS service it is a layer of.`,
  data: { url: origin, code: LOOP_CODE }, exception: EXTERNAL })

/** The remote answered something that is not what was asked for: `wrong` says what it was. */
export const wmsMalformed = (origin: string, what: string, wrong: string, contentType: string | null) =>
  new ApiError(502, 'Remote answer malformed', {
    message: `The WMS at ${origin} answered ${what} with ${wrong}.`,
    data: { url: origin, content_type: contentType === null ? null : shortText(contentType.split(';')[0]!) }, exception: EXTERNAL })

/** The remote answered an HTTP error status. */
export const wmsFailed = (origin: string, what: string, status: number, contentType: string | null) =>
  new ApiError(502, 'Remote server error', {
    message: `The WMS at ${origin} answered ${what} with HTTP ${status}${status === 401 || status === 403 ? ' (the login or the permission was refused)' : ''}.`,
    data: { url: origin, remote_status: status, content_type: contentType === null ? null : shortText(contentType.split(';')[0]!) },
    exception: EXTERNAL })

/**
 * The remote could not be reached and no image of this view was kept from an earlier visit.
 * From a browser a remote that does not allow the app's origin (CORS) fails exactly like one
 * that is down: the message names both, and the origin to allow.
 */
export const wmsUnreachable = (origin: string, cause: unknown, appOrigin: string | undefined, kept: boolean) => {
  const e = cause as { message?: string; cause?: { message?: string; code?: string } } | undefined
  const inner = e?.cause?.code ?? e?.cause?.message
  const why = inner ? `${e?.message ?? cause} (${inner})` : String(e?.message ?? cause)
  const cors = appOrigin !== undefined && origin !== appOrigin
    ? ` Either this device is offline, or the WMS is down, or it does not allow requests from this app's origin ${appOrigin} (it must send CORS headers: Access-Control-Allow-Origin).`
    : ''
  const keptText = kept ? ' No image of this view was kept from an earlier visit.' : ''
  return new ApiError(502, 'Remote server unreachable', { message: `The WMS at ${origin} could not be reached: ${why}.${cors}${keptText}`,
    data: { url: origin, ...(cors ? { app_origin: appOrigin } : {}) }, exception: EXTERNAL, cause })
}
