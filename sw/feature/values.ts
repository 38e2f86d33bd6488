/**
 * @module feature/values
 * Attribute values between JSON and their canonical form (reference §5.2): dates as objects
 * of parts or ISO strings, BIGINT as numbers or strings, BOOLEAN from several spellings.
 * The canonical form (what layers store and filter on) is ISO text for dates and times, 0/1
 * for booleans, numbers for integers (bigint past 2^53).
 */
import type { Field, FieldType, FieldValue } from './types.ts'
import { jsonType } from '../core/http.ts'

export type SqlValue = FieldValue
export type DtFormat = 'obj' | 'iso'
export type BigintFormat = 'compat' | 'string' | 'number'

export class ValueError extends Error {}

const INT32 = [-(2 ** 31), 2 ** 31 - 1]
const INT64 = [-(2n ** 63n), 2n ** 63n - 1n]
const pad = (n: number, w = 2) => String(n).padStart(w, '0')

/** A value as an error message shows it: numbers and short strings as they are, else the JSON type. */
function shown(v: unknown): string {
  if (typeof v === 'number') return String(v)
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)
  return jsonType(v)
}

/**
 * An integer exactly as sent, or a `ValueError`: nothing is rounded. A JSON number past 2^53
 * was already rounded when the body was parsed, so BIGINTs that large must come as strings.
 */
function integer(v: unknown, big: boolean): number | bigint {
  // The common case, without BigInt: a whole number inside the range.
  if (typeof v === 'number' && Number.isInteger(v) && (big ? Number.isSafeInteger(v) : v >= INT32[0]! && v <= INT32[1]!)) return v
  let b: bigint
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new ValueError(`${v} is not an integer`)
    if (!Number.isSafeInteger(v)) throw new ValueError(`${v} is beyond ±2^53, where JSON numbers are not exact; send it as a string`)
    b = BigInt(v)
  } else if (typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v)) {
    b = BigInt(v.trim())
  } else if (typeof v === 'string' && v.trim() !== '' && Number.isSafeInteger(Number(v))) {
    b = BigInt(Number(v)) // '3.0', '1e3': written otherwise, but whole
  } else {
    throw new ValueError(`expected an integer, got ${shown(v)}`)
  }
  const [lo, hi] = big ? INT64 : INT32.map(BigInt)
  if (b < lo! || b > hi!) throw new ValueError(`${b} is out of the ${big ? 'int64' : 'int32'} range`)
  return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function validDate(y: number, m: number, d: number): boolean {
  if (!(y >= 1 && y <= 9999 && m >= 1 && m <= 12 && d >= 1)) return false
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
  return d <= MONTH_DAYS[m - 1]! + (m === 2 && leap ? 1 : 0)
}

const DATE_KEYS = ['year', 'month', 'day']
const TIME_KEYS = ['hour', 'minute', 'second']

/** Reads the obj form: exactly the given keys, each an integer. */
function parts(v: Record<string, unknown>, keys: string[], zeros: string[] = []): number[] {
  // `zeros` may be there when they are 0 (midnight on a date): they say nothing more.
  const extra = Object.keys(v).filter((k) => !keys.includes(k) && !(zeros.includes(k) && v[k] === 0))
  if (extra.length) throw new ValueError(`unexpected key '${extra[0]}'`)
  return keys.map((k) => {
    const x = v[k]
    if (typeof x !== 'number' || !Number.isInteger(x)) throw new ValueError(`key '${k}' must be an integer`)
    return x
  })
}

function dateText(y: number, m: number, d: number): string {
  if (!validDate(y, m, d)) throw new ValueError(`invalid date ${y}-${m}-${d}`)
  return `${pad(y, 4)}-${pad(m)}-${pad(d)}`
}

function timeText(h: number, mi: number, s: number): string {
  if (!(h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && s >= 0 && s <= 59)) throw new ValueError(`invalid time ${h}:${mi}:${s}`)
  return `${pad(h)}:${pad(mi)}:${pad(s)}`
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const ISO_TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/

function isoTime(s: string): string {
  const m = ISO_TIME.exec(s)
  if (!m) throw new ValueError(`invalid ISO time '${s}'`)
  return timeText(Number(m[1]), Number(m[2]), Number(m[3] ?? 0))
}

function isoDate(s: string): string {
  const m = ISO_DATE.exec(s)
  if (!m) throw new ValueError(`invalid ISO date '${s}'`)
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (!validDate(y, mo, d)) throw new ValueError(`invalid date ${y}-${mo}-${d}`)
  return s // the pattern admits only the canonical form
}

/**
 * A JSON value as the column stores it. Both date forms are accepted whatever `dt_format`
 * says (the original picks one by the parameter; accepting both loses nothing).
 */
export function toColumn(type: FieldType, v: unknown): SqlValue {
  if (v === null) return null
  switch (type) {
    case 'INTEGER': return integer(v, false) as number
    case 'BIGINT': return integer(v, true)
    case 'REAL': {
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
      if (typeof n !== 'number' || !Number.isFinite(n)) throw new ValueError(`expected a number, got ${shown(v)}`)
      return n
    }
    case 'STRING':
      if (typeof v !== 'string') throw new ValueError(`expected a string, got ${jsonType(v)}`)
      return v
    case 'BOOLEAN':
      // 1 and 0 are booleans as the original's clients write them; -7 is not.
      if (v === true || v === 'true' || v === '1' || v === 1) return 1
      if (v === false || v === 'false' || v === '0' || v === 0) return 0
      throw new ValueError(`expected a boolean, got ${shown(v)}`)
    case 'DATE':
      if (typeof v === 'string') return isoDate(v)
      // GDAL's NGW driver sends a date with hour, minute and second 0.
      if (typeof v === 'object' && !Array.isArray(v)) return dateText(...(parts(v as Record<string, unknown>, DATE_KEYS, TIME_KEYS) as [number, number, number]))
      throw new ValueError('expected a date')
    case 'TIME':
      if (typeof v === 'string') return isoTime(v)
      if (typeof v === 'object' && !Array.isArray(v)) return timeText(...(parts(v as Record<string, unknown>, TIME_KEYS) as [number, number, number]))
      throw new ValueError('expected a time')
    case 'DATETIME': {
      if (typeof v === 'string') {
        const [d, t, ...rest] = v.split('T')
        if (rest.length || !d || !t || /[zZ+]|-\d\d:?\d\d$/.test(t)) throw new ValueError(`invalid ISO datetime '${v}' (no time zones)`)
        return `${isoDate(d)}T${isoTime(t)}`
      }
      if (typeof v === 'object' && !Array.isArray(v)) {
        const p = parts(v as Record<string, unknown>, [...DATE_KEYS, ...TIME_KEYS])
        return `${dateText(p[0]!, p[1]!, p[2]!)}T${timeText(p[3]!, p[4]!, p[5]!)}`
      }
      throw new ValueError('expected a datetime')
    }
  }
}

/** A column value as JSON, in the requested formats. */
export function fromColumn(type: FieldType, raw: unknown, dt: DtFormat, big: BigintFormat): unknown {
  if (raw === null || raw === undefined) return null
  switch (type) {
    case 'INTEGER': case 'REAL': case 'STRING': return typeof raw === 'bigint' ? Number(raw) : raw
    case 'BIGINT': {
      if (big === 'string') return String(raw)
      if (big === 'number') return Number(raw)
      const n = Number(raw)
      return Number.isSafeInteger(n) && typeof raw !== 'bigint' ? n : String(raw)
    }
    case 'BOOLEAN': return !!raw
    case 'DATE': {
      const s = String(raw)
      if (dt === 'iso') return s
      return { year: Number(s.slice(0, 4)), month: Number(s.slice(5, 7)), day: Number(s.slice(8, 10)) }
    }
    case 'TIME': {
      const s = String(raw)
      if (dt === 'iso') return s
      return { hour: Number(s.slice(0, 2)), minute: Number(s.slice(3, 5)), second: Number(s.slice(6, 8)) }
    }
    case 'DATETIME': {
      const s = String(raw)
      if (dt === 'iso') return s
      return { year: Number(s.slice(0, 4)), month: Number(s.slice(5, 7)), day: Number(s.slice(8, 10)),
        hour: Number(s.slice(11, 13)), minute: Number(s.slice(14, 16)), second: Number(s.slice(17, 19)) }
    }
  }
}

/** A query-string filter value as the column stores it (the `fld_*` filters). */
export function filterValue(field: Pick<Field, 'datatype'>, s: string): SqlValue {
  switch (field.datatype) {
    case 'INTEGER': case 'BIGINT': return integer(s, field.datatype === 'BIGINT')
    case 'REAL': return toColumn('REAL', s)
    case 'BOOLEAN': return toColumn('BOOLEAN', s === 'yes' ? true : s === 'no' ? false : s)
    case 'DATE': return isoDate(s)
    case 'TIME': return isoTime(s)
    case 'DATETIME': return toColumn('DATETIME', s)
    case 'STRING': return s
  }
}
