/**
 * @module feature/row-values
 * Attribute values read from a `RowCursor` (a GeoPackage storage's rows) in the forms the data-out formats write: dates
 * and times as their ISO text (as stored), booleans as booleans, whole numbers beyond 2^53
 * as exact decimal text (`bigint_format=compat`), as `fromColumn(…, 'iso', 'compat')` does.
 */
import type { FieldType, FieldValue, RowCursor } from './types.ts'

export type { RowCursor } from './types.ts'

/** `RowCursor.type` codes: SQLite's fundamental datatypes (sqlite3.h), which the storage's cursors answer. */
const SQLITE_INTEGER = 1
const SQLITE_NULL = 5

export type RowValue = string | number | boolean | null

/** How a field's values are written: the MVT value kind and JSON/CSV typing follow from it. */
export type ValueKind = 'int' | 'double' | 'bool' | 'string'

export const VALUE_KIND: Record<FieldType, ValueKind> = {
  INTEGER: 'int', BIGINT: 'int', REAL: 'double', BOOLEAN: 'bool',
  STRING: 'string', DATE: 'string', TIME: 'string', DATETIME: 'string',
}

/** Column `i` of the current row as a value of a field of type `type`. */
export function rowValue(r: RowCursor, i: number, type: FieldType): RowValue {
  const t = r.type(i)
  if (t === SQLITE_NULL) return null
  switch (type) {
    case 'INTEGER': case 'REAL': return r.number(i)
    case 'BIGINT': {
      const v = r.number(i)
      // Beyond 2^53 the double is not the stored integer: its exact text instead.
      return t === SQLITE_INTEGER && !Number.isSafeInteger(v) ? r.text(i) : v
    }
    case 'BOOLEAN': return r.int(i) !== 0
    default: return r.text(i)
  }
}

/** A canonical value (`feature/types.ts`: booleans 0/1, bigint past 2^53) in the same forms. */
export function canonicalValue(v: FieldValue, type: FieldType): RowValue {
  if (v === null || v === undefined) return null
  if (type === 'BOOLEAN') return v !== 0 && v !== '0'
  if (typeof v === 'bigint') return v.toString()
  if (v instanceof Uint8Array) return null
  return v
}
