/**
 * @module diagnostics/errors
 */
import { ApiError } from '../core/error.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'

/** The original's message when GDAL cannot open an uploaded source (vector_layer). */
export const gdalOpenFailed = (name: string, detail?: string) =>
  new ApiError(422, 'Validation error', { message: 'GDAL library failed to open file.', detail,
    data: { name }, exception: VALIDATION })

export const emptyBody = () =>
  new ApiError(422, 'Validation error', { message: 'The request body is empty: send the file\'s bytes.',
    data: { location: ['body'] }, exception: VALIDATION })
