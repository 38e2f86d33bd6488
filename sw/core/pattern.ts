/**
 * @module core/pattern
 * User-written patterns (style regular expressions, LIKE and ILIKE) matched in linear time by
 * re2js, a pure-JS port of RE2. JavaScript's RegExp backtracks: `^(a+)+$` against 36 `a`s and
 * a `!` froze the event loop for minutes (issue 19), and a LIKE such as `%a%a%a%a%b` is
 * polynomial in the text. RE2 has no backreferences and no lookaround; a pattern using them
 * is refused with `PatternError` where it is written, so styles fail at save time, not render.
 */
import { RE2JS } from 're2js'

/** The longest pattern accepted: RE2 compiles in time proportional to it (~2 ms per 1,000 characters). */
export const PATTERN_MAX_LENGTH = 1000

/** A compiled pattern: `test` is linear in the text (a regex matches anywhere, as RegExp's `test`; LIKE the whole text). */
export interface Pattern {
  readonly source: string
  readonly ignoreCase: boolean
  test(text: string): boolean
}

export class PatternError extends Error {}

function checkLength(pattern: string): void {
  if (pattern.length > PATTERN_MAX_LENGTH) throw new PatternError(`The pattern is longer than ${PATTERN_MAX_LENGTH} characters`)
}

/** Compiles a regular expression (RE2 syntax, close to JavaScript's); throws `PatternError`. */
export function compilePattern(source: string, ignoreCase = false, dotAll = false): Pattern {
  checkLength(source)
  let re: RE2JS
  try {
    re = RE2JS.compile(source, (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (dotAll ? RE2JS.DOTALL : 0))
  } catch (err) {
    // re2js says "error parsing regexp: invalid or unsupported Perl syntax: `(?=`": keep the why.
    const why = (err as Error).message.replace(/^error parsing regexp: /, '')
    throw new PatternError(`Invalid or unsupported regular expression (${why}); backreferences and lookaround are not supported`)
  }
  return { source, ignoreCase, test: (text) => re.test(text) }
}

const LIKE_CACHE = new Map<string, Pattern>()

/**
 * A SQL LIKE pattern (`%` any run, `_` one character, no escape character) as a `Pattern`
 * that matches the whole text. Compiled once per pattern text and kept (up to 1,000), since
 * a pattern may come from a feature's attribute and be asked for every feature.
 */
export function likePattern(like: string, ignoreCase: boolean): Pattern {
  const key = (ignoreCase ? 'i' : 's') + like
  let p = LIKE_CACHE.get(key)
  if (!p) {
    // Sized on the user's text, not on the regex made from it (quoting adds characters).
    checkLength(like)
    const body = like.split(/([%_])/).map((s) => (s === '%' ? '.*' : s === '_' ? '.' : s && RE2JS.quote(s))).join('')
    const re = RE2JS.compile(body, (ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | RE2JS.DOTALL)
    p = { source: like, ignoreCase, test: (text) => re.testExact(text) }
    if (LIKE_CACHE.size >= 1000) LIKE_CACHE.clear()
    LIKE_CACHE.set(key, p)
  }
  return p
}
