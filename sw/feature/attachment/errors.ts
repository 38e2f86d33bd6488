/**
 * @module feature/attachment/errors
 * The feature_attachment exceptions (reference §2.5, §6). Where the original answers 500
 * (thumbnail of a non-image, a bad `size`, a clashing keyname) these answer 422
 * (docs/attachments.md).
 */
import { ApiError, invalidParameter, validationError } from '../../core/error.ts'

export const attachmentNotFound = (resourceId: number, featureId: number, attachmentId: number) =>
  new ApiError(404, 'Attachment not found', {
    message: `Attachment with id = ${attachmentId} was not found in feature with id = ${featureId}.`,
    detail: 'The attachment may have been deleted or an error in the address.',
    data: { resource_id: resourceId, feature_id: featureId, attachment_id: attachmentId },
    exception: 'nextgisweb.feature_attachment.exception.AttachmentNotFound' })

export const invalidImageSize = (raw: string) =>
  invalidParameter('size', `Invalid value '${raw}' of size; expected WIDTHxHEIGHT, both at least 1.`)

export const notAnImage = (mime: string) =>
  validationError(`The attachment is not an image (${mime}); only image/jpeg and image/png have thumbnails.`)

export const imageNotReadable = (reason: string) =>
  validationError(`The attachment's image cannot be read: ${reason}`)

export const keynameNotUnique = (keyname: string) =>
  validationError(`Attachment keyname '${keyname}' is not unique within the feature.`, { keyname })

export const fileUploadRequired = (path: string) =>
  validationError(`A new attachment needs \`file_upload\` - at \`${path}\``, { location: ['body', path] })

export const attachmentNotOfFeature = (id: number, fid: number, path: string) =>
  validationError(`Attachment id = ${id} does not belong to feature ${fid} - at \`${path}\``)
