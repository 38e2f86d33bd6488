/**
 * @module resource/permissions
 * Effective permissions (reference §3.4). This server has two roles: administrators may do
 * everything; everyone else, the guest included, may read.
 */
import type { Principal } from '../auth/types.ts'

const PERMISSIONS: Record<string, string[]> = {
  resource: ['read', 'create', 'update', 'delete', 'manage_children', 'change_permissions'],
  data: ['read', 'write'],
  connection: ['read', 'write', 'connect'],
  service: ['connect', 'configure'],
}

export const SCOPES = Object.fromEntries(Object.entries(PERMISSIONS).map(([sid, perms]) => [sid, {
  identity: sid, label: sid[0]!.toUpperCase() + sid.slice(1),
  permissions: Object.fromEntries(perms.map((p) => [p, { identity: p, label: p }])) }]))

const READS = new Set(['resource.read', 'data.read', 'connection.read', 'connection.connect', 'service.connect'])

/** The effective permissions of `user` on a resource of a class with `classScopes`. */
export function permissionsOf(user: Principal, classScopes: readonly string[]): Record<string, Record<string, boolean>> {
  const scopes = new Set(['resource', ...classScopes])
  return Object.fromEntries([...scopes].map((sid) => [sid, Object.fromEntries((PERMISSIONS[sid] ?? []).map((p) =>
    [p, user.isAdmin || READS.has(`${sid}.${p}`)]))]))
}
