/**
 * @module postgres/features/values
 * Field values between PostgreSQL's column types and their canonical form (feature/values.ts):
 * dates and times read back as the ISO text SQLite stores (`to_char`), booleans as 0/1, BIGINT
 * as a number, or a bigint past 2^53 (read as text: `int8` parses to a number, which rounds).
 * Going in, the canonical values are what PostgreSQL's input functions accept ('2024-05-01',
 * '12:00:00', '2024-05-01T12:00:00', 0/1 for booleans), so they are bound as they are.
 */
import type { FieldType, FieldValue } from '../../feature/types.ts'

/** The expression reading `col` (of type `type`) in canonical form. */
export function canonical(col: string, type: FieldType): string {
  switch (type) {
    case 'BIGINT': return `${col}::text`
    case 'BOOLEAN': return `${col}::int`
    case 'DATE': return `to_char(${col}, 'YYYY-MM-DD')`
    case 'TIME': return `to_char(${col}, 'HH24:MI:SS')`
    case 'DATETIME': return `to_char(${col}, 'YYYY-MM-DD"T"HH24:MI:SS')`
    default: return col
  }
}

/** The canonical value as text, as SQLite's `CAST(x AS TEXT)` gives it (for LIKE and the search). */
export function asText(col: string, type: FieldType | 'FID'): string {
  if (type === 'STRING') return col
  if (type === 'FID') return `${col}::text`
  // SQLite writes a whole mantissa with '.0' ('2.0', '1.0e+20'); PostgreSQL's shortest form leaves it out.
  if (type === 'REAL') return `regexp_replace(${col}::text, '^(-?[0-9]+)(e|$)', '\\1.0\\2')`
  return `(${canonical(col, type)})::text`
}

/** Field value `col` of type `type`, for comparing and ordering: strings by code point, as SQLite's BINARY collation. */
export function sortable(col: string, type: FieldType): string {
  return type === 'STRING' ? `${col} COLLATE "C"` : col
}

/** A value `canonical` read, in its canonical JavaScript form. */
export function fromCanonical(type: FieldType, v: unknown): FieldValue {
  if (v === null || v === undefined) return null
  if (type === 'BIGINT') {
    const n = Number(v)
    return Number.isSafeInteger(n) ? n : BigInt(v as string)
  }
  return v as FieldValue
}
