/**
 * @module diagnostics/errors
 */
import { ApiError } from '../core/error.ts'

export const emptyBody = () =>
  new ApiError(422, 'Validation error', { message: 'The request body is empty: send the file\'s bytes.',
    data: { location: ['body'] }, exception: 'nextgisweb.core.exception.ValidationError' })
