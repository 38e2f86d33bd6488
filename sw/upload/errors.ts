/**
 * @module upload/errors
 * The original's file_upload exceptions (`file_upload/api.py`, `file_upload/model.py`) and the
 * plain Pyramid HTTP errors its TUS views raise, rendered as `PyramidHTTPError` with Pyramid's
 * titles (reference §2.5).
 */
import { ApiError } from '../core/error.ts'

const MODEL = 'nextgisweb.file_upload.model'
const PYRAMID_HTTP = 'nextgisweb.pyramid.exception.PyramidHTTPError'

/** Over the size limit, or (TUS) past the declared `Upload-Length`, which is then `maxSize`. */
export const uploadTooLarge = (maxSize: number, message = `The uploaded file exceeds the limit of ${maxSize} bytes.`) =>
  new ApiError(413, 'Uploaded file too large', {
    message,
    data: { max_size: maxSize }, exception: 'nextgisweb.file_upload.api.UploadedFileTooLarge' })

/**
 * Unknown or expired upload id. The original raises it as a ValidationError (422) where an
 * upload is referenced from a body, and as 404 on the upload's own routes.
 */
/**
 * 402 (the original's status for quotas): anonymous uploads would take the host's pending
 * uploads past its quota. Logged-in users are not held to it.
 */
export const uploadQuotaExceeded = (quota: number) =>
  new ApiError(402, 'Upload quota exceeded', {
    message: `Anonymous uploads are limited to ${quota} bytes of uploads not yet used on this server; log in, or try again later.`,
    data: { quota }, exception: 'nextgisweb.file_upload.exception.UploadQuotaExceeded' })

export const fileUploadNotFound = (id: string, status: 404 | 422 = 422) =>
  new ApiError(status, 'Uploaded file not found', {
    message: `Uploaded file with id = ${id} was not found; it may have expired.`,
    data: { id }, exception: `${MODEL}.FileUploadNotFound` })

export const fileUploadNotCompleted = (id: string) =>
  new ApiError(422, 'Upload is not completed', {
    message: `Upload ${id} has not received all of its bytes yet.`,
    data: { id }, exception: `${MODEL}.FileUploadNotCompleted` })

/** Missing or unreadable TUS header (`Upload-Length`, `Upload-Offset`), or a malformed form. */
export const badRequest = (message: string) =>
  new ApiError(400, 'Bad request', { message, exception: PYRAMID_HTTP })

/** PATCH at an offset other than the upload's current one. */
export const offsetConflict = (sent: number, current: number) =>
  new ApiError(409, 'Conflict', {
    message: `Upload-Offset ${sent} does not match the upload's offset ${current}.`,
    data: { upload_offset: current }, exception: PYRAMID_HTTP })

/** A `Tus-Resumable` version other than 1.0.0, or none where the original requires it. */
export const tusVersionUnsupported = () =>
  new ApiError(412, 'Precondition Failed', {
    message: 'The Tus-Resumable header must be 1.0.0.', exception: PYRAMID_HTTP })

export const unsupportedMediaType = () =>
  new ApiError(415, 'Unsupported Media Type', {
    message: 'A TUS PATCH must be sent with Content-Type: application/offset+octet-stream.',
    exception: PYRAMID_HTTP })
