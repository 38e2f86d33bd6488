/**
 * @module render/errors
 * The original's render exceptions (reference §9).
 */
import { validationError } from '../core/error.ts'

export const notRenderable = (id: number) =>
  validationError(`Resource (ID=${id}) cannot be rendered.`, { resource_id: id })
