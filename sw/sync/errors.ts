/**
 * @module sync/errors
 * Failures of the exchange with a team's server, as the original's external service errors
 * (502: this server is fine, the other one failed or could not be reached), and the sync
 * component's own 404s and 422s.
 */
import { ApiError, validationError } from '../core/error.ts'

const EXTERNAL = 'nextgisweb.core.exception.ExternalServiceError'

/** Why a request failed, with the network layer's reason when it gives one (`fetch failed` says little). */
function reason(err: unknown): string {
  const e = err as { message?: string; cause?: { message?: string; code?: string } } | undefined
  const inner = e?.cause?.code ?? e?.cause?.message
  return inner ? `${e?.message ?? err} (${inner})` : String(e?.message ?? err)
}

export const remoteUnreachable = (url: string, cause: unknown) => new ApiError(502, 'Remote server unreachable', {
  message: `The server at ${url} could not be reached: ${reason(cause)}.`, data: { url },
  exception: EXTERNAL, cause })

/** The remote answered with an error; its own error body is kept in `data.remote`. */
export const remoteFailed = (url: string, status: number, body: unknown) => {
  const remote = body && typeof body === 'object' ? body as Record<string, unknown> : undefined
  const why = status === 401 || status === 403 ? 'refused the login or the permission'
    : `answered ${status}${remote?.title ? ` (${String(remote.title)})` : ''}`
  return new ApiError(502, 'Remote server error', { message: `The server at ${url} ${why}.`,
    data: { url, remote_status: status, remote: remote ?? null }, exception: EXTERNAL })
}

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
