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
  new ApiError(422, 'Resource display name is not unique', {
    message: `Resource with same display name already exists (id = ${conflictId}).`,
    detail: 'Within a single parent resource, each resource must have unique display name. Give the resource a different display name or rename existing.',
    data: { resource_id: conflictId, serializer: 'resource' }, exception: `${RES}.DisplayNameNotUnique` })

export const keynameNotUnique = (conflictId: number) =>
  validationError(`Resource keyname is not unique (used by resource id = ${conflictId}).`, { resource_id: conflictId })

export const hierarchyError = (message: string) =>
  new ApiError(422, 'Hierarchy error', { message, exception: `${RES}.HierarchyError` })

/** A HierarchyError in the original, so its title is that class's. */
export const rootDeleteError = () =>
  new ApiError(422, 'Hierarchy error', { message: 'Root resource could not be deleted.',
    exception: `${RES}.ResourceRootDeleteError` })

/** The tree guard's messages (the storage's refusals, tagged `outpost:tree:<kind>`), as the original words them. */
const TREE_MESSAGES: Record<string, string> = {
  root_move: 'The root resource cannot be moved.',
  parent_required: 'Every resource other than the root needs a parent.',
  cycle: 'A resource cannot be moved into itself or into one of its descendants.',
}

/**
 * The 422 of a storage refusal that carries a tree tag (both implementations' schemas raise
 * `outpost:tree:<kind>` on a root moved or deleted, a missing parent, a cycle); undefined for
 * any other error, which the caller rethrows.
 */
export function treeRefusal(err: unknown): ApiError | undefined {
  const kind = /outpost:tree:(\w+)/.exec(String((err as Error)?.message))?.[1]
  if (kind === 'root_delete') return rootDeleteError()
  if (kind && TREE_MESSAGES[kind]) return hierarchyError(TREE_MESSAGES[kind]!)
  return undefined
}

export const unknownClass = (cls: string) =>
  validationError(`Resource class '${cls}' is not supported by this server - at \`$.resource.cls\``, { cls })

/**
 * A create (or move) under a parent the user may not create in: the original's ForbiddenError,
 * raised while its `resource` serializer sets the `parent` attribute, hence `data`.
 */
export const createForbidden = (cls: string | undefined) =>
  new ApiError(403, 'Forbidden', { message: cls === undefined ? 'You are not allowed to create or move a resource here.'
    : `You are not allowed to create or move a resource of type '${cls}' here.`,
    contact: 'administrator', data: { attribute: 'parent', serializer: 'resource' }, exception: 'nextgisweb.core.exception.ForbiddenError' })
