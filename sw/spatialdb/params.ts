/**
 * @module spatialdb/params
 * The connection parameters as clients send them (reference ngw-services §4.1), shared by
 * the `spatialdb_connection` member and the diagnostics' draft connection.
 */
import { validationError } from '../core/error.ts'
import { expectKind, locationOf } from '../core/validate.ts'

/** libpq's modes (the original's, 5.0+). */
export const SSLMODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const

/** A TCP port: an integer or a text of digits (the spec says string, the original int), or null for 5432. */
export function portOf(v: unknown, path: string): number | null {
  if (v === null) return null
  const n = typeof v === 'string' && /^[0-9]{1,5}$/.test(v.trim()) ? Number(v.trim()) : v
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 65535) {
    throw validationError(`Port must be a number from 1 to 65535 (or null for 5432) - at \`${path}\``, { location: locationOf(path) })
  }
  return n
}

export function sslmodeOf(v: unknown, path: string): string | null {
  const s = expectKind<string | null>('str', v, path, true)
  if (s !== null && !(SSLMODES as readonly string[]).includes(s)) {
    throw validationError(`Invalid sslmode '${s}'; expected one of ${SSLMODES.join(', ')} or null - at \`${path}\``, { location: locationOf(path) })
  }
  return s
}

/** A non-empty text (a host name, a database or user name). */
export function nameOf(v: unknown, path: string): string {
  const s = expectKind<string>('str', v, path).trim()
  if (!s) throw validationError(`Must not be empty - at \`${path}\``, { location: locationOf(path) })
  return s
}

/** `Field \`x\` is required`, msgspec's words. */
export const required = (field: string, path: string) =>
  validationError(`Object missing required field \`${field}\` - at \`${path}\``, { location: locationOf(path) })
