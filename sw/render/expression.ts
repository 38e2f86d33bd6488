/**
 * @module render/expression
 * One expression tree for every style dialect (MapServer class expressions, QGIS rule
 * filters, NGW's JSON `filter[]`), evaluated against a feature's attributes.
 */
import { likePattern, PatternError, type Pattern } from '../core/pattern.ts'

export type Value = string | number | boolean | null

export type Expr =
  | { k: 'lit'; v: Value }
  | { k: 'field'; name: string }
  | { k: 'fid' }
  | { k: 'not'; a: Expr }
  | { k: 'neg'; a: Expr }
  | { k: 'and' | 'or'; a: Expr; b: Expr }
  | { k: 'cmp'; op: CmpOp; a: Expr; b: Expr; ci?: boolean }
  | { k: 'math'; op: '+' | '-' | '*' | '/' | '%' | '^'; a: Expr; b: Expr }
  | { k: 'concat'; parts: Expr[] }
  | { k: 'in'; a: Expr; list: Expr[]; not?: boolean }
  | { k: 'like'; a: Expr; pattern: Expr; ci: boolean; not?: boolean }
  | { k: 'regex'; a: Expr; re: Pattern }
  | { k: 'isnull'; a: Expr; not?: boolean }
  | { k: 'call'; name: string; args: Expr[] }

export type CmpOp = '=' | '!=' | '<' | '<=' | '>' | '>='

/** A feature as expressions see it: its id and attribute values by field keyname. */
export interface FeatureRef {
  fid: number
  get(name: string): Value
}

function num(v: Value): number {
  if (typeof v === 'number') return v
  if (typeof v === 'boolean') return v ? 1 : 0
  if (v === null || v === '') return NaN
  return Number(v)
}

const str = (v: Value): string => (v === null ? '' : typeof v === 'number' ? String(v) : String(v))

export function truthy(v: Value): boolean {
  if (typeof v === 'string') return v !== '' && v !== '0' && v.toLowerCase() !== 'false'
  return !!v
}

/** Compares as numbers when both sides are numbers, as text otherwise (MapServer and QGIS agree). */
function compare(op: CmpOp, a: Value, b: Value, ci = false): boolean {
  if (a === null || b === null) return op === '=' ? a === b : op === '!=' ? a !== b : false
  const na = num(a), nb = num(b)
  let c: number
  if (!Number.isNaN(na) && !Number.isNaN(nb)) c = na - nb
  else {
    const sa = ci ? str(a).toLowerCase() : str(a), sb = ci ? str(b).toLowerCase() : str(b)
    c = sa < sb ? -1 : sa > sb ? 1 : 0
  }
  switch (op) {
    case '=': return c === 0
    case '!=': return c !== 0
    case '<': return c < 0
    case '<=': return c <= 0
    case '>': return c > 0
    case '>=': return c >= 0
  }
}

/** LIKE against a pattern that may come from an attribute: one longer than the limit matches nothing. */
function like(text: string, pattern: string, ci: boolean): boolean {
  try {
    return likePattern(pattern, ci).test(text)
  } catch (err) {
    if (err instanceof PatternError) return false
    throw err
  }
}

const FUNCTIONS: Record<string, (args: Value[]) => Value> = {
  upper: ([a]) => str(a ?? null).toUpperCase(),
  lower: ([a]) => str(a ?? null).toLowerCase(),
  length: ([a]) => str(a ?? null).length,
  to_string: ([a]) => str(a ?? null),
  tostring: ([a]) => str(a ?? null),
  to_int: ([a]) => Math.trunc(num(a ?? null)),
  to_real: ([a]) => num(a ?? null),
  round: ([a, d]) => { const f = 10 ** num(d ?? 0) || 1; return Math.round(num(a ?? null) * f) / f },
  abs: ([a]) => Math.abs(num(a ?? null)),
  coalesce: (args) => args.find((v) => v !== null && v !== '') ?? null,
  concat: (args) => args.map(str).join(''),
  trim: ([a]) => str(a ?? null).trim(),
  initcap: ([a]) => str(a ?? null).replace(/\b\w/g, (c) => c.toUpperCase()),
  title: ([a]) => str(a ?? null).replace(/\b\w/g, (c) => c.toUpperCase()),
  firstcap: ([a]) => { const s = str(a ?? null); return s.charAt(0).toUpperCase() + s.slice(1) },
}

export const KNOWN_FUNCTIONS = new Set(Object.keys(FUNCTIONS))

export function evaluate(e: Expr, f: FeatureRef): Value {
  switch (e.k) {
    case 'lit': return e.v
    case 'field': return f.get(e.name)
    case 'fid': return f.fid
    case 'not': return !truthy(evaluate(e.a, f))
    case 'neg': return -num(evaluate(e.a, f))
    case 'and': return truthy(evaluate(e.a, f)) && truthy(evaluate(e.b, f))
    case 'or': return truthy(evaluate(e.a, f)) || truthy(evaluate(e.b, f))
    case 'cmp': return compare(e.op, evaluate(e.a, f), evaluate(e.b, f), e.ci)
    case 'math': {
      const a = num(evaluate(e.a, f)), b = num(evaluate(e.b, f))
      switch (e.op) {
        case '+': return a + b
        case '-': return a - b
        case '*': return a * b
        case '/': return b === 0 ? null : a / b
        case '%': return b === 0 ? null : a % b
        case '^': return a ** b
      }
      break
    }
    case 'concat': return e.parts.map((p) => str(evaluate(p, f))).join('')
    case 'in': {
      const v = evaluate(e.a, f)
      const hit = e.list.some((x) => compare('=', v, evaluate(x, f)))
      return e.not ? !hit : hit
    }
    case 'like': {
      const v = evaluate(e.a, f)
      if (v === null) return false
      const hit = like(str(v), str(evaluate(e.pattern, f)), e.ci)
      return e.not ? !hit : hit
    }
    case 'regex': return e.re.test(str(evaluate(e.a, f)))
    case 'isnull': {
      const isNull = evaluate(e.a, f) === null
      return e.not ? !isNull : isNull
    }
    case 'call': return FUNCTIONS[e.name]!(e.args.map((a) => evaluate(a, f)))
  }
  return null
}

/** Keynames of the fields an expression reads (to select only those columns). */
export function fieldsOf(e: Expr | undefined, out: Set<string> = new Set()): Set<string> {
  if (!e) return out
  switch (e.k) {
    case 'field': out.add(e.name); break
    case 'not': case 'neg': case 'isnull': case 'regex': fieldsOf(e.a, out); break
    case 'and': case 'or': case 'cmp': case 'math': fieldsOf(e.a, out); fieldsOf(e.b, out); break
    case 'concat': e.parts.forEach((p) => fieldsOf(p, out)); break
    case 'in': fieldsOf(e.a, out); e.list.forEach((p) => fieldsOf(p, out)); break
    case 'like': fieldsOf(e.a, out); fieldsOf(e.pattern, out); break
    case 'call': e.args.forEach((p) => fieldsOf(p, out)); break
  }
  return out
}

export function valueToText(v: Value): string {
  if (v === null) return ''
  if (typeof v === 'number' && !Number.isInteger(v)) return String(Math.round(v * 1e6) / 1e6)
  return String(v)
}
