/**
 * @module resource/acl-input
 * The `resource.permissions` member on input. This server does not enforce per-resource rules
 * yet (administrators may do everything, everyone else may read: resource/permissions.ts), so
 * storing rules would promise protection it does not give. Rules are refused with a 422 until
 * they are enforced; an empty list, or the list the resource already has (a client putting
 * back what it read), is accepted.
 */
import { validationError } from '../core/error.ts'
import { expectKind } from '../core/validate.ts'

/** The permissions to store (JSON text) for value `v` of `$.resource.permissions`. */
export function permissionsInput(v: unknown, stored = '[]'): string {
  const rules = expectKind<unknown[]>('array', v, '$.resource.permissions')
  const text = JSON.stringify(rules)
  if (rules.length === 0 || text === stored) return text
  throw validationError('Resource permission rules are not supported by this server: it does not enforce them yet, ' +
    'so they are not stored - at `$.resource.permissions`', { location: ['body', 'resource', 'permissions'] })
}
