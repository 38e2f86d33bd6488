/**
 * @module catalogue/errors
 * The catalogue answers errors as Django REST framework does (reference §11): `{"detail": …}`
 * or, for filters, `{"<parameter>": ["<message>"]}`, not NextGIS Web's error body. They are
 * still `ApiError`s; the catalogue's routes render `data.drf` as the body.
 */
import { ApiError } from '../core/error.ts'

const DRF = 'rest_framework.exceptions'

const drfError = (status: number, exception: string, drf: Record<string, unknown>) =>
  new ApiError(status, exception, { exception: `${DRF}.${exception}`, data: { drf } })

export const notFound = () => drfError(404, 'NotFound', { detail: 'Not found.' })

export const methodNotAllowed = (method: string) =>
  drfError(405, 'MethodNotAllowed', { detail: `Method "${method}" not allowed.` })

export const notAcceptable = () =>
  drfError(406, 'NotAcceptable', { detail: 'Could not satisfy the request Accept header.' })

export const authenticationFailed = () =>
  drfError(401, 'AuthenticationFailed', { detail: 'Invalid username/password.' })

/** A filter's validation error, as django-filter reports it through DRF. */
export const filterError = (param: string, message: string) =>
  drfError(400, 'ValidationError', { [param]: [message] })

export const invalidChoice = (param: string, value: string) =>
  filterError(param, `Select a valid choice. ${value} is not one of the available choices.`)

/** The DRF body of an error made here, or `undefined` for any other error. */
export function drfBody(err: unknown): Record<string, unknown> | undefined {
  if (err instanceof ApiError && err.exception.startsWith(`${DRF}.`)) return err.opts.data?.drf as Record<string, unknown>
  return undefined
}
