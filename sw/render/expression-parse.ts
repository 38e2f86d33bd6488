/**
 * @module render/expression-parse
 * Parsers of the two style expression languages into one tree (render/expression):
 * MapServer's (`([num] gt 18) and ("[type]" = "city")`, `/regex/`, `{a,b}`) and QGIS's
 * (`"num" > 18 AND "type" IN ('a', 'b')`). One Pratt parser; the dialect decides how
 * quotes, brackets and bare words read. Errors carry the column where parsing stopped.
 */
import { compilePattern, likePattern, PatternError, type Pattern } from '../core/pattern.ts'
import { KNOWN_FUNCTIONS, type CmpOp, type Expr } from './expression.ts'

export type Dialect = 'mapserver' | 'qgis'

export class ExprError extends Error {
  constructor(message: string, readonly column: number) {
    super(`${message} (column ${column})`)
  }
}

type Tok =
  | { t: 'num'; v: number; at: number }
  | { t: 'str'; v: string; at: number }
  | { t: 'field'; v: string; at: number }
  | { t: 'word'; v: string; at: number }
  | { t: 'regex'; v: Pattern; at: number }
  | { t: 'op'; v: string; at: number }
  | { t: 'end'; at: number }

const OPS = ['<>', '!=', '<=', '>=', '==', '=*', '=~', '~*', '&&', '||', '=', '<', '>', '+', '-', '*', '/', '%', '^', '(', ')', ',', '!', '~', '{', '}']

function tokenize(src: string, d: Dialect): Tok[] {
  const out: Tok[] = []
  let i = 0
  const prevIsOperand = () => {
    const p = out[out.length - 1]
    return !!p && (p.t === 'num' || p.t === 'str' || p.t === 'field' || p.t === 'regex' || (p.t === 'op' && p.v === ')'))
  }
  while (i < src.length) {
    const ch = src[i]!
    const at = i + 1
    if (/\s/.test(ch)) { i++; continue }
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?/.exec(src.slice(i))!
      out.push({ t: 'num', v: Number(m[0]), at }); i += m[0].length; continue
    }
    if (ch === '"' || ch === "'") {
      let j = i + 1, s = ''
      for (;;) {
        if (j >= src.length) throw new ExprError('Unterminated string', at)
        const c = src[j]!
        if (c === ch && src[j + 1] === ch) { s += ch; j += 2; continue }
        if (c === '\\' && d === 'mapserver' && j + 1 < src.length) { s += src[j + 1]; j += 2; continue }
        if (c === ch) break
        s += c; j++
      }
      i = j + 1
      out.push({ t: d === 'qgis' && ch === '"' ? 'field' : 'str', v: s, at }); continue
    }
    if (d === 'mapserver' && ch === '[') {
      const j = src.indexOf(']', i)
      if (j < 0) throw new ExprError('Unterminated attribute reference', at)
      out.push({ t: 'field', v: src.slice(i + 1, j), at }); i = j + 1; continue
    }
    if (d === 'mapserver' && ch === '/' && !prevIsOperand()) {
      let j = i + 1
      while (j < src.length && src[j] !== '/') j += src[j] === '\\' ? 2 : 1
      if (j >= src.length) throw new ExprError('Unterminated regular expression', at)
      const ci = src[j + 1] === 'i'
      out.push({ t: 'regex', v: checked(() => compilePattern(src.slice(i + 1, j), ci), at), at })
      i = j + 1 + (ci ? 1 : 0); continue
    }
    if (/[A-Za-z_$]/.test(ch)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_]*/.exec(src.slice(i))!
      out.push({ t: 'word', v: m[0], at }); i += m[0].length; continue
    }
    if (d === 'qgis' && ch === '@') throw new ExprError('Variables are not supported', at)
    const op = OPS.find((o) => src.startsWith(o, i))
    if (!op) throw new ExprError(`Unexpected character '${ch}'`, at)
    out.push({ t: 'op', v: op, at }); i += op.length
  }
  out.push({ t: 'end', at: src.length + 1 })
  return out
}

const CMP: Record<string, CmpOp> = { '=': '=', '==': '=', eq: '=', '!=': '!=', '<>': '!=', ne: '!=',
  '<': '<', lt: '<', '<=': '<=', le: '<=', '>': '>', gt: '>', '>=': '>=', ge: '>=' }

/** Strings with `[field]` inside are templates in MapServer: `"[type]" = "city"`. */
function msString(s: string): Expr {
  if (!s.includes('[')) return { k: 'lit', v: s }
  const parts: Expr[] = []
  let last = 0
  for (const m of s.matchAll(/\[([^\]]+)\]/g)) {
    if (m.index! > last) parts.push({ k: 'lit', v: s.slice(last, m.index) })
    parts.push({ k: 'field', name: m[1]! })
    last = m.index! + m[0].length
  }
  if (last < s.length) parts.push({ k: 'lit', v: s.slice(last) })
  // Always text, as MapServer substitutes it: a NULL attribute reads as "".
  return { k: 'concat', parts }
}

class Parser {
  #i = 0
  constructor(private toks: Tok[], private d: Dialect) {}

  get #tok(): Tok { return this.toks[this.#i]! }
  #next(): Tok { return this.toks[this.#i++]! }
  #word(): string | undefined { const t = this.#tok; return t.t === 'word' ? t.v.toLowerCase() : undefined }
  #isOp(v: string): boolean { const t = this.#tok; return t.t === 'op' && t.v === v }
  #expect(v: string): void {
    if (!this.#isOp(v)) throw new ExprError(`Expected '${v}'`, this.#tok.at)
    this.#i++
  }

  parse(): Expr {
    const e = this.#expr(0)
    if (this.#tok.t !== 'end') throw new ExprError('Unexpected text after the expression', this.#tok.at)
    return e
  }

  #expr(minPrec: number): Expr {
    let left = this.#unary()
    for (;;) {
      const t = this.#tok
      const w = this.#word()
      const op = t.t === 'op' ? t.v : w
      if (op === undefined) return left
      if ((op === 'or' || (op === '||' && this.d === 'mapserver')) && minPrec <= 1) {
        this.#next(); left = { k: 'or', a: left, b: this.#expr(2) }; continue
      }
      if ((op === 'and' || op === '&&') && minPrec <= 2) {
        this.#next(); left = { k: 'and', a: left, b: this.#expr(3) }; continue
      }
      if (minPrec > 4) {
        // Comparisons bind looser than arithmetic.
      } else if (op in CMP && (t.t === 'op' || /^(eq|ne|lt|gt|le|ge)$/.test(op))) {
        this.#next(); left = { k: 'cmp', op: CMP[op]!, a: left, b: this.#expr(5) }; continue
      } else if (op === '=*') {
        this.#next(); left = { k: 'cmp', op: '=', a: left, b: this.#expr(5), ci: true }; continue
      } else if (op === '~' || op === '=~' || op === '~*') {
        this.#next()
        const r = this.#expr(5)
        const re = r.k === 'regex' ? r.re : r.k === 'lit' ? checked(() => compilePattern(String(r.v), op === '~*'), t.at) : undefined
        if (!re) throw new ExprError('Expected a regular expression', t.at)
        left = { k: 'regex', a: left, re: op === '~*' && !re.ignoreCase ? checked(() => compilePattern(re.source, true), t.at) : re }; continue
      } else if (op === 'in' || (op === 'not' && this.#peekWord(1) === 'in')) {
        const not = op === 'not'
        this.#next(); if (not) this.#next()
        left = { k: 'in', a: left, list: this.#inList(), not }; continue
      } else if (op === 'like' || op === 'ilike' || (op === 'not' && /^i?like$/.test(this.#peekWord(1) ?? ''))) {
        const not = op === 'not'
        if (not) this.#next()
        const ci = this.#word() === 'ilike'
        const at = this.#next().at
        const pattern = this.#expr(5)
        // A written pattern is checked now, so a bad one fails when the style is saved.
        if (pattern.k === 'lit') checked(() => likePattern(String(pattern.v ?? ''), ci), at)
        left = { k: 'like', a: left, pattern, ci, not }; continue
      } else if (op === 'is') {
        this.#next()
        const not = this.#word() === 'not'
        if (not) this.#next()
        if (this.#word() !== 'null') throw new ExprError('Expected NULL', this.#tok.at)
        this.#next(); left = { k: 'isnull', a: left, not }; continue
      }
      if (op === '||' && this.d === 'qgis' && minPrec <= 5) {
        this.#next(); left = { k: 'concat', parts: [left, this.#expr(6)] }; continue
      }
      if ((op === '+' || op === '-') && minPrec <= 6) {
        this.#next(); left = { k: 'math', op, a: left, b: this.#expr(7) }; continue
      }
      if ((op === '*' || op === '/' || op === '%') && minPrec <= 7) {
        this.#next(); left = { k: 'math', op, a: left, b: this.#expr(8) }; continue
      }
      if (op === '^' && minPrec <= 8) {
        this.#next(); left = { k: 'math', op, a: left, b: this.#expr(8) }; continue
      }
      return left
    }
  }

  #peekWord(n: number): string | undefined {
    const t = this.toks[this.#i + n]
    return t?.t === 'word' ? t.v.toLowerCase() : undefined
  }

  #inList(): Expr[] {
    // MapServer: `"[type]" in "a,b,c"`; QGIS: `IN ('a', 'b')`.
    const t = this.#tok
    if (t.t === 'str') { this.#next(); return t.v.split(',').map((v) => ({ k: 'lit', v: v.trim() })) }
    this.#expect('(')
    const list: Expr[] = []
    if (!this.#isOp(')')) {
      do list.push(this.#expr(0)); while (this.#isOp(',') && this.#next())
    }
    this.#expect(')')
    return list
  }

  #unary(): Expr {
    const t = this.#tok
    const w = this.#word()
    if (w === 'not' || (t.t === 'op' && t.v === '!')) { this.#next(); return { k: 'not', a: this.#expr(3) } }
    if (t.t === 'op' && t.v === '-') { this.#next(); return { k: 'neg', a: this.#expr(9) } }
    if (t.t === 'op' && t.v === '+') { this.#next(); return this.#expr(9) }
    return this.#primary()
  }

  #primary(): Expr {
    const t = this.#next()
    switch (t.t) {
      case 'num': return { k: 'lit', v: t.v }
      case 'str': return this.d === 'mapserver' ? msString(t.v) : { k: 'lit', v: t.v }
      case 'field': return { k: 'field', name: t.v }
      case 'regex': return { k: 'regex', a: { k: 'lit', v: '' }, re: t.v }
      case 'op':
        if (t.v === '(') { const e = this.#expr(0); this.#expect(')'); return e }
        throw new ExprError(`Unexpected '${t.v}'`, t.at)
      case 'end': throw new ExprError('Unexpected end of expression', t.at)
      case 'word': {
        const w = t.v.toLowerCase()
        if (w === 'true' || w === 'false') return { k: 'lit', v: w === 'true' }
        if (w === 'null') return { k: 'lit', v: null }
        if (w === '$id') return { k: 'fid' }
        if (this.#isOp('(')) {
          if (!KNOWN_FUNCTIONS.has(w)) throw new ExprError(`Unknown function '${t.v}'`, t.at)
          this.#next()
          const args: Expr[] = []
          if (!this.#isOp(')')) {
            do args.push(this.#expr(0)); while (this.#isOp(',') && this.#next())
          }
          this.#expect(')')
          return { k: 'call', name: w, args }
        }
        if (this.d === 'qgis' && !RESERVED.has(w)) return { k: 'field', name: t.v }
        throw new ExprError(`Unexpected word '${t.v}'`, t.at)
      }
    }
  }
}

const RESERVED = new Set(['and', 'or', 'not', 'in', 'like', 'ilike', 'is', 'case', 'when', 'then', 'else', 'end'])

/** A pattern compiled by `make`, its `PatternError` read as an `ExprError` at `at`. */
function checked(make: () => Pattern, at: number): Pattern {
  try {
    return make()
  } catch (err) {
    if (err instanceof PatternError) throw new ExprError(err.message, at)
    throw err
  }
}

/** Parses `src` in `dialect`; throws `ExprError` naming the column. */
export function parseExpression(src: string, dialect: Dialect): Expr {
  return new Parser(tokenize(src, dialect), dialect).parse()
}
