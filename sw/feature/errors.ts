/**
 * @module feature/errors
 * The feature layer's exceptions (reference §2.5), one factory each. Where the original
 * answers 500 on user input (unknown srs, unknown order_by field, bad operator), these
 * answer 422 (docs/features.md).
 */
import { ApiError, invalidParameter, validationError } from '../core/error.ts'

const FL = 'nextgisweb.feature_layer.exception'

export const featureNotFound = (resourceId: number, featureId: number) =>
  new ApiError(404, 'Feature not found', {
    message: `Feature with id = ${featureId} was not found in resource with id = ${resourceId}.`,
    detail: 'The feature may have been deleted or an error in the address.',
    data: { resource_id: resourceId, feature_id: featureId }, exception: `${FL}.FeatureNotFound` })

/**
 * A field was deleted (by another process) while a request that still knew it ran: its column is
 * gone. Sent again, the request runs with the layer's fields as they are now.
 */
export const fieldsChanged = (resourceId: number) =>
  new ApiError(409, 'Conflict', {
    message: `The fields of layer ${resourceId} changed while this request ran; send it again.`,
    data: { resource_id: resourceId }, exception: 'outpost.feature_layer.exception.FieldsChanged' })

/** Bad geometry input; `at` is the JSON path or query parameter it came from. */
export const geometryNotValid = (reason: string, at: string) =>
  validationError(`Geometry is not valid: ${reason} - at \`${at}\``, { location: at.startsWith('$') ? ['body', at] : ['query', at] })

export const geometryTypeMismatch = (got: string, want: string, at: string) =>
  validationError(`Geometry type (${got}) does not match geometry column type (${want}) - at \`${at}\``)

export const unknownSrs = (srsId: number, at: string) =>
  invalidParameter(at, `Spatial reference system id = ${srsId} is not known.`)

export const unknownField = (keyname: string, at: string) =>
  invalidParameter(at, `Unknown field '${keyname}'.`)

export const badFieldValue = (keyname: string, message: string, at: string) =>
  validationError(`Invalid value for field '${keyname}': ${message} - at \`${at}\``, { field: keyname })
