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

export const SYNC_RUNNING = 'outpost.sync.exception.SyncRunning'
export const syncRunning = (id: number) => new ApiError(409, 'Sync running', {
  message: `A sync of layer ${id} is already running.`, data: { resource_id: id }, exception: SYNC_RUNNING })

/** Whether `err` is the remote refusing this connection's account (401/403 on a request of ours). */
export const remoteRefused = (err: unknown): err is ApiError =>
  err instanceof ApiError && (err.opts.data?.remote_status === 401 || err.opts.data?.remote_status === 403)

/** Who a connection logs in as, as messages name it. */
export const loginOf = (username: string | null): string => username ?? 'a guest (no login)'

/**
 * The remote refuses to let the connection's account read what a link or a pull needs. A 422
 * and not a 502 or 403: this server and the remote both work, and this person may use both;
 * the connection's account lacks the remote's permission (or its password is wrong), which
 * only the remote's administrator or the connection's settings can change. Nothing is made.
 */
export function remoteReadRefused(url: string, username: string | null, status: number, resource: number): ApiError {
  const login = loginOf(username)
  const message = status === 401 && username !== null
    ? `The server ${url} did not accept the login ${login} (a wrong password, or a disabled account): check the connection's user name and password.`
    : `The server ${url} does not let ${login} read resource ${resource}: taking a layer offline and syncing it need read access `
      + '(resource.read and data.read) there. Ask its administrator for it, or connect with another account.'
  return new ApiError(422, 'Remote access refused', { message, data: { url, login: username, remote_status: status, resource },
    exception: 'outpost.sync.exception.RemoteAccessRefused' })
}

/** The title of a push the remote refused (`push_refused` of a report and of the state). */
export const WRITE_REFUSED = 'Changes refused by the server'

/** `err` as `remoteReadRefused` when the remote refused a read of `resource` by the account of `creds`; otherwise `err`. */
export const asReadRefusal = (err: unknown, creds: { url: string; username: string | null }, resource: number): unknown =>
  remoteRefused(err) ? remoteReadRefused(creds.url, creds.username, err.opts.data!.remote_status as number, resource) : err

/**
 * What a round says when the remote refuses our writes (401/403 on a push): the pull went on,
 * the changes wait here. `changes`: local features and attachments waiting.
 */
export function writeRefusedMessage(url: string, username: string | null, changes: number): string {
  return `The server ${url} refuses changes from ${loginOf(username)}: they may read this layer but not write it. `
    + `Your ${changes} change${changes === 1 ? ' is' : 's are'} kept here and will be sent when they are allowed.`
}
