/**
 * @module auth/errors
 * The original's authentication exceptions (reference §2.5, §3).
 */
import { ApiError } from '../core/error.ts'

const AUTH = 'nextgisweb.auth.exception'

// These two carry no `message`, as the original's: ngw-connector rejects with the body's
// `message`, and a wrong password is then an `undefined` rejection that its `connect()`
// swallows (the session goes on as the guest). A message would make it fail instead.
export const invalidCredentials = () =>
  new ApiError(401, 'Invalid credentials', { exception: `${AUTH}.InvalidCredentialsException` })

export const invalidAuthorizationHeader = () =>
  new ApiError(400, 'Invalid authorization header', { exception: `${AUTH}.InvalidAuthorizationHeader` })

/** A guest where a user is required: the original raises Pyramid's HTTPUnauthorized, hence its class. */
export const authenticationRequired = () =>
  new ApiError(401, 'Unauthorized', { message: 'Unauthorized', exception: 'nextgisweb.pyramid.exception.PyramidHTTPError' })

export const userDisabled = () =>
  new ApiError(401, 'User disabled', { message: 'This user account is disabled.',
    exception: `${AUTH}.UserDisabledException` })

export const userNotFound = (id: number) =>
  new ApiError(404, 'User not found', { message: `User with id = ${id} was not found.`, data: { user_id: id },
    exception: `${AUTH}.UserNotFound` })

/** 429 while a login name (or client address) is locked after failed attempts (auth/rate-limit.ts). */
export const tooManyAttempts = (waitMs: number) => {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000))
  return new ApiError(429, 'Too many attempts', {
    message: `Too many failed login attempts. Try again in ${seconds} s.`, data: { retry_after: seconds },
    headers: { 'retry-after': String(seconds) }, exception: `${AUTH}.TooManyAttempts` })
}

/** A cookie-authenticated write whose Origin (or Referer) is not this server's: cross-site request forgery. */
export const crossOriginRefused = () =>
  new ApiError(403, 'Forbidden', {
    message: 'A request authenticated by the session cookie must come from this server\'s own origin.',
    contact: 'administrator', exception: `${AUTH}.CrossOriginRequestRefused` })

export const oldPasswordWrong = () =>
  new ApiError(422, 'Validation error', { message: 'The old password is wrong - at `$.old_password`',
    data: { location: ['body', 'old_password'] }, exception: 'nextgisweb.core.exception.ValidationError' })
