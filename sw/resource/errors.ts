/**
 * @module resource/errors
 * The original's resource exceptions (reference §2.5), one factory each.
 */
import { ApiError, validationError } from '../core/error.ts'

const RES = 'nextgisweb.resource.exception'

export const resourceNotFound = (id: number) =>
  new ApiError(404, 'Resource not found', { message: `Resource with id = ${id} was not found.`,
    detail: 'The resource may have been deleted or an error in the address. Correct the address or go to the home page and try to find the desired resource.',
    data: { resource_id: id }, exception: `${RES}.ResourceNotFound` })

export const displayNameNotUnique = (conflictId: number) =>
  new ApiError(422, 'Display name is not unique', {
    message: `Resource with same display name already exists (id = ${conflictId}).`,
    detail: 'Within a single parent resource, each resource must have a unique display name. Please enter a different name.',
    data: { resource_id: conflictId }, exception: `${RES}.DisplayNameNotUnique` })

export const keynameNotUnique = (conflictId: number) =>
  validationError(`Resource keyname is not unique (used by resource id = ${conflictId}).`, { resource_id: conflictId })

export const hierarchyError = (message: string) =>
  new ApiError(422, 'Hierarchy error', { message, exception: `${RES}.HierarchyError` })

export const rootDeleteError = () =>
  new ApiError(422, 'Root resource could not be deleted', { message: 'Root resource could not be deleted.',
    exception: `${RES}.ResourceRootDeleteError` })

export const unknownClass = (cls: string) =>
  validationError(`Resource class '${cls}' is not supported by this server - at \`$.resource.cls\``, { cls })
