/**
 * @module pyramid/errors
 */
import { ApiError } from '../core/error.ts'

export const srsNotFound = (id: number) =>
  new ApiError(404, 'Spatial reference system not found', { message: `Spatial reference system with id = ${id} was not found.`,
    data: { srs_id: id }, exception: 'nextgisweb.spatial_ref_sys.exception.SRSNotFound' })
