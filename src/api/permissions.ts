/**
 * @module api/permissions
 * A resource's permission rules (`resource.permissions`, reference §5.3: a PUT replaces the
 * whole list) and a person's effective permissions on it (§5.7).
 */
import { request } from './request.ts'

export interface AclRule {
  action: 'allow' | 'deny'
  principal: { id: number }
  /** `''` any class, or a resource class. */
  identity: string
  /** `''` every scope; with `permission` `''` the whole scope. */
  scope: string
  permission: string
  propagate: boolean
}

/** `{scope: {permission: allowed}}`, one scope per scope of the resource's class. */
export type Effective = Record<string, Record<string, boolean>>

export const getRules = async (id: number): Promise<AclRule[]> =>
  (await request<{ resource: { permissions?: AclRule[] } }>(`/api/resource/${id}`)).resource.permissions ?? []

export const putRules = (id: number, rules: AclRule[]) =>
  request<unknown>(`/api/resource/${id}`, { method: 'PUT', json: { resource: { permissions: rules } } })

export const getEffective = (id: number) => request<Effective>(`/api/resource/${id}/permission`)

/** Whether `eff` allows `scope.permission`; a scope the class lacks allows nothing. */
export const allows = (eff: Effective | null, scope: string, permission: string): boolean => !!eff?.[scope]?.[permission]
