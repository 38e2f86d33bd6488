/**
 * @module sync/errors
 * Failures of the exchange with a team's server, as the original's external service errors
 * (502: this server is fine, the other one failed or could not be reached), and the sync
 * component's own 404s and 422s.
 */
import { ApiError, validationError } from '../core/error.ts'
import { EXTERNAL_SERVICE_ERROR as EXTERNAL } from '../core/outbound.ts'

/** Longest text kept of a remote's error field. */
const REASON_CHARS = 200

/** Why a request failed, with the network layer's reason when it gives one (`fetch failed` says little). */
function reason(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string; code?: string } } | undefined
  const inner = e?.cause?.code ?? e?.cause?.message
  return inner ? `${e?.message ?? err} (${inner})` : String(e?.message ?? err)
}

/**
 * The remote did not answer. From a browser (`appOrigin`: the app's origin) a server that
 * answers but does not allow that origin (CORS) fails exactly as one that is down, with a bare
 * TypeError ("Failed to fetch"): the message names both causes and the origin to allow.
 */
export function remoteUnreachable(url: string, cause: unknown, appOrigin?: string): ApiError {
  const sameOrigin = appOrigin !== undefined && URL.canParse(url) && new URL(url).origin === appOrigin
  const cors = appOrigin !== undefined && !sameOrigin && cause instanceof TypeError
  const message = cors
    ? `The server at ${url} could not be reached from this browser (${reason(cause)}). Either it does not allow this app's origin: `
      + `start it with --cors ${appOrigin} (Outpost: npm start -- --cors ${appOrigin}; another server: allow CORS for ${appOrigin}); `
      + 'or it is not running at that address: check the address and that the server is running.'
    : `The server at ${url} could not be reached: ${reason(cause)}.`
  return new ApiError(502, 'Remote server unreachable', { message, data: { url, ...(cors ? { app_origin: appOrigin } : {}) },
    exception: EXTERNAL, cause })
}

/** A text of the remote's, short and without control characters, for an error body; `undefined` when it is not text. */
function short(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim()
  return clean.length > REASON_CHARS ? clean.slice(0, REASON_CHARS - 1) + '…' : clean
}

/**
 * What is told of a remote's error answer: of the original's JSON error body only its title,
 * status code and exception class (short strings); of anything else only its content type.
 * The body itself is never echoed: a connection pointed at another service of the network
 * would otherwise read that service's answers back.
 */
export function remoteReason(status: number, body: unknown, contentType: string | null): Record<string, unknown> {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : undefined
  const title = short(b?.title), exception = short(b?.exception)
  if (b && (title !== undefined || exception !== undefined)) {
    return { title: title ?? null, status_code: Number.isSafeInteger(b.status_code) ? b.status_code : status, exception: exception ?? null }
  }
  return { status_code: status, content_type: short(contentType?.split(';')[0]) ?? null }
}

/** The remote answered with an error; `data.remote` has a short reason (`remoteReason`), never its body. */
export const remoteFailed = (url: string, status: number, body: unknown, contentType: string | null = 'application/json') => {
  const remote = remoteReason(status, body, contentType)
  const why = status === 401 || status === 403 ? 'refused the login or the permission'
    : `answered ${status}${typeof remote.title === 'string' ? ` (${remote.title})` : ''}`
  return new ApiError(502, 'Remote server error', { message: `The server at ${url} ${why}.`,
    data: { url, remote_status: status, remote }, exception: EXTERNAL })
}

/** The remote answered something this server cannot read: `what` names the request, `wrong` what was wrong. */
export const remoteMalformed = (url: string, what: string, wrong: string) => new ApiError(502, 'Remote answer malformed', {
  message: `The server at ${url} answered ${what} with ${wrong}.`, data: { url }, exception: EXTERNAL })

export const remoteIncompatible = (message: string) => new ApiError(502, 'Remote layer incompatible', { message,
  exception: EXTERNAL })

export const notLinked = (id: number) => new ApiError(404, 'Layer not linked', {
  message: `Resource id = ${id} is not a layer linked to a remote layer.`, data: { resource_id: id },
  exception: 'outpost.sync.exception.NotLinked' })

export const conflictNotFound = (id: number) => new ApiError(404, 'Conflict not found', {
  message: `Conflict id = ${id} was not found (it may have been resolved).`, data: { conflict_id: id },
  exception: 'outpost.sync.exception.ConflictNotFound' })

export const connectionNotFound = (id: number) =>
  validationError(`Resource id = ${id} is not a remote connection - at \`$.vector_layer.remote.connection\``)

export const syncRunning = (id: number) => new ApiError(409, 'Sync running', {
  message: `A sync of layer ${id} is already running.`, data: { resource_id: id }, exception: 'outpost.sync.exception.SyncRunning' })
