/**
 * @module core/error
 * The one error type of the backend. Every failure that reaches a client is an `ApiError`,
 * rendered once (in `app.ts`) as NextGIS Web's JSON error body.
 */

export type ErrorContact = 'support' | 'administrator'

/** NextGIS Web's error body (reference §2.2), plus `guru_meditation` for ≤5.4 clients. */
export interface ErrorBody {
  title: string
  message?: string
  detail?: string
  contact: ErrorContact
  status_code: number
  exception: string
  request_id?: string
  guru_meditation?: string
  data: Record<string, unknown>
}

export interface ApiErrorOptions {
  message?: string
  detail?: string
  /** Fully qualified name of the original's exception class. */
  exception?: string
  contact?: ErrorContact
  data?: Record<string, unknown>
  /** Response headers that go with the body (`Retry-After` of a 429). */
  headers?: Record<string, string>
  cause?: unknown
}

export class ApiError extends Error {
  readonly status: number
  readonly title: string
  readonly opts: ApiErrorOptions

  constructor(status: number, title: string, opts: ApiErrorOptions = {}) {
    super(opts.message ?? title, { cause: opts.cause })
    this.name = 'ApiError'
    this.status = status
    this.title = title
    this.opts = opts
  }

  get exception(): string {
    return this.opts.exception ?? 'nextgisweb.core.exception.UserException'
  }

  toBody(requestId?: string): ErrorBody {
    const body: ErrorBody = { title: this.title, contact: this.opts.contact ?? 'support',
      status_code: this.status, exception: this.exception, data: this.opts.data ?? {} }
    // Key order as the original emits it; message and detail are omitted when empty.
    const ordered: ErrorBody = { title: body.title } as ErrorBody
    if (this.opts.message) ordered.message = this.opts.message
    if (this.opts.detail) ordered.detail = this.opts.detail
    ordered.contact = body.contact
    ordered.status_code = body.status_code
    ordered.exception = body.exception
    if (requestId) {
      ordered.request_id = requestId
      ordered.guru_meditation = requestId
    }
    ordered.data = body.data
    return ordered
  }
}

const CORE = 'nextgisweb.core.exception'

/** 422 with the generic ValidationError class; `location` mirrors msgspec's `$.path`. */
export const validationError = (message: string, data: Record<string, unknown> = {}) =>
  new ApiError(422, 'Validation error', { message, data, exception: `${CORE}.ValidationError` })

export const invalidParameter = (name: string, message: string) =>
  new ApiError(422, 'Invalid parameter', { message, data: { location: ['query', name] },
    exception: `${CORE}.ValidationError` })

export const parameterRequired = (name: string) =>
  new ApiError(422, 'Parameter required', { message: `Required parameter '${name}' is missing.`,
    data: { location: ['query', name] }, exception: `${CORE}.ValidationError` })

export const malformedJsonBody = (cause?: unknown) =>
  new ApiError(400, 'Malformed JSON body', { message: 'The JSON body of the request is malformed or invalid.',
    exception: 'nextgisweb.pyramid.tomb.exception.MalformedJSONBody', cause })

export const insufficientPermissions = (permission: string, scope: string, resourceId: number) =>
  new ApiError(403, 'Insufficient permissions', {
    message: `Insufficient '${permission}' permission in scope '${scope}' on resource id = ${resourceId}.`,
    contact: 'administrator', data: { resource: { id: resourceId }, permission, scope },
    exception: `${CORE}.InsufficientPermissions` })

/** 413: a request body over its documented limit (JSON bodies, logins); uploads have their own class. */
export const payloadTooLarge = (limit: number) =>
  new ApiError(413, 'Request entity too large', { message: `The request body exceeds the limit of ${limit} bytes.`,
    data: { limit }, exception: 'nextgisweb.pyramid.exception.PyramidHTTPError' })

export const forbidden = (message: string) =>
  new ApiError(403, 'Forbidden', { message, contact: 'administrator', exception: `${CORE}.ForbiddenError` })

export const pageNotFound = () =>
  new ApiError(404, 'Page not found', { message: 'The page may have been deleted or an error in the address.',
    exception: 'nextgisweb.pyramid.exception.PyramidHTTPError' })

/** 503: the store failed (quota, I/O). The request's changes were rolled back. */
export const operationalError = (message: string, cause?: unknown) =>
  new ApiError(503, 'Service unavailable', { message, exception: `${CORE}.OperationalError`, cause })

/**
 * 507: the storage is full — `what` is 'memory' (the browser's or the WASM heap), 'quota'
 * (the browser's storage quota) or 'disk'. Nothing of the request was kept.
 */
export const insufficientStorage = (what: 'memory' | 'quota' | 'disk', message: string, cause?: unknown) =>
  new ApiError(507, 'Insufficient storage', { message, data: { storage: what },
    exception: `${CORE}.InsufficientStorage`, cause })

export const internalServerError = (cause?: unknown) =>
  new ApiError(500, 'Internal server error', {
    message: 'The server encountered an internal error or misconfiguration and was unable to complete your request.',
    exception: 'nextgisweb.pyramid.exception.InternalServerError', cause })

/**
 * 503: a team's own database (a `spatialdb_connection`'s) failed a query or cannot be reached
 * while serving a request (reference ngw-services.md §4.1: the original's ExternalDatabaseError).
 * `detail` names the PostgreSQL error code; the message never repeats a password.
 */
export const externalDatabaseError = (detail: string, cause?: unknown) =>
  new ApiError(503, 'External database error', { message: 'External database error', detail,
    exception: `${CORE}.ExternalDatabaseError`, cause })
