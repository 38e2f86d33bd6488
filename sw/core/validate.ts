/**
 * @module core/validate
 * Checks on parsed JSON bodies and query strings. Messages follow msgspec's wording, which
 * the original's clients show to people: ``Expected `int`, got `str` - at `$.resource.parent.id` ``.
 */
import { invalidParameter, validationError } from './error.ts'
import { isObject, jsonType } from './http.ts'

type Kind = 'str' | 'int' | 'bool' | 'object' | 'array' | 'float'

/** The `location` of an error body for JSON path `path` (`$.a.b` → `['body', 'a', 'b']`). */
export const locationOf = (path: string) => ['body', ...path.replace(/^\$\.?/, '').split('.').filter(Boolean)]

function fail(expected: string, value: unknown, path: string): never {
  throw validationError(`Expected \`${expected}\`, got \`${jsonType(value)}\` - at \`${path}\``, { location: locationOf(path) })
}

function matches(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'str': return typeof v === 'string'
    // Past 2^53 a JSON number has already been rounded: it is refused, not guessed at.
    case 'int': return typeof v === 'number' && Number.isSafeInteger(v)
    case 'float': return typeof v === 'number' && Number.isFinite(v)
    case 'bool': return typeof v === 'boolean'
    case 'object': return isObject(v)
    case 'array': return Array.isArray(v)
  }
}

/** Asserts `v` has the JSON kind `kind` (or null when `nullable`). */
export function expectKind<T>(kind: Kind, v: unknown, path: string, nullable = false): T {
  if (v === null && nullable) return v as T
  if (kind === 'int' && typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
    throw validationError(`Integer ${v} is out of range (beyond ±2^53) - at \`${path}\``, { location: locationOf(path) })
  }
  if (!matches(kind, v)) fail(nullable ? `${kind} | null` : kind, v, path)
  return v as T
}

export const expectObject = (v: unknown, path: string) => expectKind<Record<string, unknown>>('object', v, path)

/** `{id: int}` references such as `parent`, `srs`, `connection`. */
export function expectRef(v: unknown, path: string): number {
  const o = expectObject(v, path)
  return expectKind<number>('int', o.id, `${path}.id`)
}

/** Rejects keys outside `allowed`, as msgspec's `forbid_unknown_fields` does. */
export function expectKeys(o: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) throw validationError(`Object contains unknown field \`${k}\` - at \`${path}\``)
  }
}

const BOOL: Record<string, boolean> = { true: true, yes: true, false: false, no: false }

/** Query booleans accept only lowercase true/false/yes/no (reference §1.2). */
export function queryBool(params: URLSearchParams, name: string, fallback: boolean): boolean {
  const raw = lastValue(params, name)
  if (raw === undefined) return fallback
  const v = BOOL[raw]
  if (v === undefined) throw invalidParameter(name, `Invalid boolean value '${raw}'.`)
  return v
}

/** One query integer: `^-?[0-9]+$` (reference §1.2) and within ±2^53, where numbers are exact. */
function intOf(name: string, raw: string): number {
  if (!/^-?[0-9]+$/.test(raw)) throw invalidParameter(name, `Invalid integer value '${raw}'.`)
  const v = Number(raw)
  if (!Number.isSafeInteger(v)) throw invalidParameter(name, `Integer value '${raw}' is out of range.`)
  return v
}

export function queryInt(params: URLSearchParams, name: string, opts: { min?: number } = {}): number | undefined {
  const raw = lastValue(params, name)
  if (raw === undefined) return undefined
  const v = intOf(name, raw)
  if (opts.min !== undefined && v < opts.min) throw invalidParameter(name, `Value must be >= ${opts.min}.`)
  return v
}

/** Query floats must match `^-?[0-9]+(\.[0-9]+)?$` (reference §1.2: no exponents). */
export function queryFloat(params: URLSearchParams, name: string, opts: { min?: number; max?: number } = {}): number | undefined {
  const raw = lastValue(params, name)
  if (raw === undefined) return undefined
  if (!/^-?[0-9]+(\.[0-9]+)?$/.test(raw)) throw invalidParameter(name, `Invalid float value '${raw}'.`)
  const v = Number(raw)
  if (opts.min !== undefined && v < opts.min) throw invalidParameter(name, `Value must be >= ${opts.min}.`)
  if (opts.max !== undefined && v > opts.max) throw invalidParameter(name, `Value must be <= ${opts.max}.`)
  return v
}

/** Comma-separated integer lists (`id__in=1,2`). */
export function queryIntList(params: URLSearchParams, name: string): number[] | undefined {
  const raw = lastValue(params, name)
  if (raw === undefined) return undefined
  if (raw === '') return []
  return raw.split(',').map((s) => intOf(name, s))
}

/** If a parameter is repeated, the last value wins (reference §1.2). */
export function lastValue(params: URLSearchParams, name: string): string | undefined {
  const all = params.getAll(name)
  return all.length ? all[all.length - 1] : undefined
}
