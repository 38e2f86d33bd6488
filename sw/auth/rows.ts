/**
 * @module auth/rows
 * Principals' rows in and out, shared by the data port's implementations (sw/sqlite/main/
 * and sw/postgres/main/ principals.ts and sessions.ts): the user a row makes, and the column
 * each field of a patch sets. The SQL stays in the implementations.
 */
import type { PrincipalPatch } from './repository.ts'
import { GUEST_ID, type Principal } from './types.ts'

/** A user's row with its membership of `administrators` (reference §5.1) as `is_admin`. */
export interface UserRow {
  id: number; keyname: string; display_name: string; is_admin: number | boolean; disabled: number
  password_hash: string | null; must_change_password: number; language: string | null
}

export function toPrincipal(r: UserRow): Principal {
  return { id: r.id, keyname: r.keyname, displayName: r.display_name, isAdmin: !!r.is_admin,
    isGuest: r.id === GUEST_ID, disabled: !!r.disabled, mustChangePassword: !!r.must_change_password, language: r.language }
}

/** The column each field of a patch sets, and how its value is stored (flags as 0/1). */
const PRINCIPAL_PATCH: { [K in keyof Required<PrincipalPatch>]: [string, (v: NonNullable<PrincipalPatch[K]> | null) => unknown] } = {
  keyname: ['keyname', (v) => v],
  displayName: ['display_name', (v) => v],
  description: ['description', (v) => v],
  disabled: ['disabled', (v) => v ? 1 : 0],
  passwordHash: ['password_hash', (v) => v],
  language: ['language', (v) => v],
  mustChangePassword: ['must_change_password', (v) => v ? 1 : 0],
}

/** The columns and values a patch sets, in PRINCIPAL_PATCH's order; fields left `undefined` are not touched. */
export function patchColumns(patch: PrincipalPatch): Array<[column: string, value: unknown]> {
  const out: Array<[string, unknown]> = []
  for (const [field, [column, store]] of Object.entries(PRINCIPAL_PATCH) as Array<[keyof PrincipalPatch, [string, (v: unknown) => unknown]]>) {
    if (patch[field] !== undefined) out.push([column, store(patch[field])])
  }
  return out
}
