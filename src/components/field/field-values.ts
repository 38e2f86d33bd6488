/**
 * Field values between the API (`dt_format=iso`) and the form's inputs: every input holds a
 * string ('' = no value); BOOLEAN is '', 'true' or 'false'.
 */
import type { FieldValue } from '../../api/feature.ts'
import type { FieldDatatype, LayerField } from '../../api/resource.ts'

/** An API value as the form's input shows it. */
export function toInput(v: FieldValue | undefined, type: FieldDatatype): string {
  if (v === null || v === undefined) return ''
  if (type === 'BOOLEAN') return v === true || v === 1 || v === 'true' ? 'true' : 'false'
  return String(v)
}

/**
 * A new feature's value for a date or date-time field: now, in the device's time, as the input
 * shows it (what a person collecting in the field records nearly always); '' for other types.
 */
export function nowInput(type: FieldDatatype, at = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0')
  const day = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`
  if (type === 'DATE') return day
  if (type === 'DATETIME') return `${day}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`
  return ''
}

/** What the person typed as the API value; throws a message naming the field when it is not one. */
export function fromInput(s: string | number, f: LayerField): FieldValue {
  // Vue's v-model on a number input hands over numbers.
  const v = String(s).trim()
  if (v === '') return null
  const bad = (what: string) => new Error(`${f.display_name || f.keyname}: ${what}`)
  switch (f.datatype) {
    case 'INTEGER':
    case 'BIGINT':
      if (!/^[-+]?\d+$/.test(v)) throw bad('a whole number is needed.')
      // BIGINT as a string keeps digits beyond 2^53; the API reads numeric strings.
      return f.datatype === 'BIGINT' ? v : Number(v)
    case 'REAL': {
      const n = Number(v)
      if (!Number.isFinite(n)) throw bad('a number is needed.')
      return n
    }
    case 'BOOLEAN':
      return v === 'true'
    case 'TIME':
      return /^\d\d:\d\d$/.test(v) ? `${v}:00` : v
    case 'DATETIME':
      return /T\d\d:\d\d$/.test(v) ? `${v}:00` : v
    default:
      return String(s)
  }
}

/** The `<input type>` for a field type (STRING is a text box; BOOLEAN a select). */
export function inputType(type: FieldDatatype): string {
  switch (type) {
    // BIGINT as text: a number input (and Vue's v-model on it) would round beyond 2^53.
    case 'INTEGER': case 'REAL': return 'number'
    case 'DATE': return 'date'
    case 'TIME': return 'time'
    case 'DATETIME': return 'datetime-local'
    default: return 'text'
  }
}

/**
 * The listing filters of a table column's filter box: a case-insensitive substring for text,
 * the whole day for a date typed into a DATETIME column, equality otherwise.
 */
export function columnFilter(f: LayerField, s: string | number): Record<string, string> {
  const v = String(s).trim()
  if (v === '') return {}
  const k = `fld_${f.keyname}`
  if (f.datatype === 'STRING') return { [`${k}__ilike`]: `%${v}%` }
  if (f.datatype === 'DATETIME' && /^\d{4}-\d\d-\d\d$/.test(v)) return { [`${k}__ge`]: `${v}T00:00:00`, [`${k}__le`]: `${v}T23:59:59` }
  return { [k]: f.datatype === 'BOOLEAN' ? (v === 'true' ? 'true' : 'false') : v }
}

/** A value for a table cell. */
export function cellText(v: FieldValue | undefined, f: LayerField, lookup?: Record<string, string>): string {
  if (v === null || v === undefined) return ''
  if (f.datatype === 'BOOLEAN') return v ? 'Yes' : 'No'
  if (f.datatype === 'DATETIME' && typeof v === 'string') return v.replace('T', ' ')
  if (lookup && typeof v === 'string' && lookup[v] !== undefined) return lookup[v]!
  return String(v)
}
