/**
 * @module auth/errors
 * The original's authentication exceptions (reference §2.5, §3).
 */
import { ApiError } from '../core/error.ts'

const AUTH = 'nextgisweb.auth.exception'

export const invalidCredentials = () =>
  new ApiError(401, 'Invalid credentials', { message: 'Invalid login or password.',
    exception: `${AUTH}.InvalidCredentialsException` })

export const invalidAuthorizationHeader = () =>
  new ApiError(400, 'Invalid authorization header', { message: 'The Authorization header could not be parsed.',
    exception: `${AUTH}.InvalidAuthorizationHeader` })

export const authenticationRequired = () =>
  new ApiError(401, 'Unauthorized', { message: 'Authentication required.',
    exception: `${AUTH}.UnauthorizedException` })

export const userDisabled = () =>
  new ApiError(401, 'User disabled', { message: 'This user account is disabled.',
    exception: `${AUTH}.UserDisabledException` })

export const userNotFound = (id: number) =>
  new ApiError(404, 'User not found', { message: `User with id = ${id} was not found.`, data: { user_id: id },
    exception: `${AUTH}.UserNotFound` })
