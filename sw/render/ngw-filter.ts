/**
 * @module render/ngw-filter
 * The original's JSON filter expressions (reference §5.4, `filter[styleId]=` on render):
 * prefix notation such as `["all", ["==", ["get", "name"], "x"], [">=", ["get", "depth"], 10]]`,
 * read into the expression tree. Bad input throws `FilterError` naming the path.
 */
import { likePattern, PatternError } from '../core/pattern.ts'
import type { CmpOp, Expr, Value } from './expression.ts'

export class FilterError extends Error {}

const CMP: Record<string, CmpOp> = { '==': '=', '!=': '!=', '>': '>', '<': '<', '>=': '>=', '<=': '<=' }

function operand(v: unknown, path: string): Expr {
  if (Array.isArray(v)) {
    if (v[0] === 'get' && typeof v[1] === 'string' && v.length === 2) return { k: 'field', name: v[1] }
    if (v[0] === 'fid' && v.length === 1) return { k: 'fid' }
    throw new FilterError(`Expected ["get", field] or ["fid"] at ${path}`)
  }
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return { k: 'lit', v: v as Value }
  throw new FilterError(`Expected a value at ${path}`)
}

function node(v: unknown, path: string): Expr {
  if (!Array.isArray(v) || typeof v[0] !== 'string') throw new FilterError(`Expected an expression [operator, …] at ${path}`)
  const [op, ...args] = v as [string, ...unknown[]]
  const at = (i: number) => `${path}[${i + 1}]`
  switch (op) {
    case 'all': case 'any': {
      if (!args.length) return { k: 'lit', v: op === 'all' }
      return args.map((a, i) => node(a, at(i))).reduce((a, b) => ({ k: op === 'all' ? 'and' : 'or', a, b }))
    }
    case '==': case '!=': case '>': case '<': case '>=': case '<=':
      if (args.length !== 2) throw new FilterError(`'${op}' takes two operands at ${path}`)
      return { k: 'cmp', op: CMP[op]!, a: operand(args[0], at(0)), b: operand(args[1], at(1)) }
    case 'in': case '!in': {
      const list = args.length === 2 && Array.isArray(args[1]) && args[1][0] !== 'get' ? args[1] as unknown[] : args.slice(1)
      return { k: 'in', a: operand(args[0], at(0)), list: list.map((x, i) => operand(x, at(i + 1))), not: op === '!in' }
    }
    case 'is_null': case '!is_null':
      return { k: 'isnull', a: operand(args[0], at(0)), not: op === '!is_null' }
    case 'like': case '!like': case 'ilike': case '!ilike': {
      const pattern = operand(args[1], at(1)), ci = op.includes('ilike')
      if (pattern.k === 'lit') {
        try {
          likePattern(String(pattern.v ?? ''), ci)
        } catch (err) {
          if (err instanceof PatternError) throw new FilterError(`${err.message} at ${at(1)}`)
          throw err
        }
      }
      return { k: 'like', a: operand(args[0], at(0)), pattern, ci, not: op.startsWith('!') }
    }
    default:
      throw new FilterError(`Unknown operator '${op}' at ${path}`)
  }
}

/** Reads a filter from its JSON text; throws `FilterError`. */
export function parseNgwFilter(text: string): Expr {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    throw new FilterError('The filter is not valid JSON')
  }
  return node(v, '$')
}
