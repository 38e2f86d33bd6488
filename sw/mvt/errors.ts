/**
 * @module mvt/errors
 */
import { validationError } from '../core/error.ts'

/** A resource in `resource=` whose class is not a feature layer (reference §9: 422). */
export const notFeatureLayer = (id: number) =>
  validationError(`Resource (ID=${id}) is not a feature layer.`, { resource_id: id })
