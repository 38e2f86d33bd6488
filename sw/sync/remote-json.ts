/**
 * @module sync/remote-json
 * A remote's JSON, read without losing digits. The original sends a BIGINT field's value as a
 * bare JSON number (its changes feed: `"fields":[[32,9007199254740993]]`), and `JSON.parse`
 * rounds anything past 2^53 to the nearest double, a different value. Integers past the safe
 * range therefore come out as their decimal text, the form our own API takes and gives BIGINTs
 * in (feature/values.ts); every other value is what `JSON.parse` gives. (`JSON.parse`'s reviver
 * sees the source text only from V8 11.4; Node 20 has 11.3.)
 */
import { parse } from 'lossless-json'

/** Sixteen digits in a row: the shortest integer that can be past 2^53. Without one, `JSON.parse` is exact. */
const LONG_DIGITS = /\d{16}/
const INTEGER = /^-?\d+$/

const numberOf = (text: string): unknown => (INTEGER.test(text) && !Number.isSafeInteger(Number(text)) ? text : Number(text))

/** Parses `text` as JSON, keeping every digit of integers past 2^53 (as strings); throws a `SyntaxError` as `JSON.parse` does. */
export function parseRemoteJson(text: string): unknown {
  // The common case stays on the native parser: most answers have no long digit runs at all.
  if (!LONG_DIGITS.test(text)) return JSON.parse(text)
  // A key given twice keeps the last value, as with `JSON.parse`.
  return parse(text, null, { parseNumber: numberOf, onDuplicateKey: ({ newValue }) => newValue })
}
