/**
 * @module ogc/wms-errors
 * The WMS exceptions (reference ngw-services §2.7): each an `ApiError` whose `data.code` is
 * the OGC exception code; `wms-exception.ts` renders them as a ServiceExceptionReport.
 */
import { ApiError } from '../core/error.ts'

const VALIDATION = 'nextgisweb.core.exception.ValidationError'

const coded = (status: number, code: string | undefined, message: string) =>
  new ApiError(status, 'Validation error', { message, exception: VALIDATION, data: code ? { code } : {} })

export const layerNotDefined = (name: string) => coded(422, 'LayerNotDefined', `Unknown layer: '${name}'.`)
export const styleNotDefined = (name: string) => coded(422, 'StyleNotDefined', `Unknown style: '${name}'.`)
export const invalidFormat = (format: string) => coded(422, 'InvalidFormat', `Invalid FORMAT parameter: '${format}'.`)
/** `InvalidSRS`; a 1.3.0 answer names it `InvalidCRS` (wms-exception.ts). */
export const invalidSrs = (message: string) => coded(422, 'InvalidSRS', message)
export const layerNotQueryable = (name: string) => coded(422, 'LayerNotQueryable', `Layer '${name}' not queryable.`)
export const invalidPoint = (message: string) => coded(422, 'InvalidPoint', message)
export const invalidValue = (message: string) => coded(422, undefined, message)
/** The original answers a missing parameter with a 500 (a KeyError); a 400 says what is missing. */
export const missingParameter = (name: string) =>
  new ApiError(400, 'Bad request', { message: `Required parameter '${name}' is missing.`,
    exception: 'nextgisweb.pyramid.exception.PyramidHTTPError', data: { code: 'MissingParameterValue' } })
export const badRequest = (message: string, code?: string) =>
  new ApiError(400, 'Bad request', { message, exception: 'nextgisweb.pyramid.exception.PyramidHTTPError',
    data: code ? { code } : {} })
export const noLegend = () => coded(422, undefined, 'Legend is not available for this layer')
