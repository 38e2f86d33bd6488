/**
 * @module postgres/features/columns
 * A batch's values as a few parameters, cheap to build: a batch of 10,000 features is one
 * statement whose columns travel as arrays (writer.ts). `pg` serializes a JS array element by
 * element (two regular-expression passes and a string concatenation per value) and a WKB per
 * feature as its own hex text; in a profile of a 10,000-point PATCH that and the garbage it
 * left were a fifth of the host's time. Here an array becomes its literal text in one `join`,
 * and the geometries one binary parameter with each one's offset and length.
 */
import type { Geometry } from '../../geo/geometry.ts'
import { wkbSize, writeWkb } from '../../geo/wkb.ts'

/** Characters an array element must escape inside its quotes. */
const SPECIAL = /["\\]/
const SPECIALS = /["\\]/g

/**
 * One element of an array literal, as `pg` would write it: NULL, a number as digits (an integer
 * beyond ±2^53 as exact digits, which an integer column refuses as out of range, a 422, rather
 * than `1e+29`, a syntax error), anything else quoted.
 */
function element(v: unknown): string {
  if (v === null || v === undefined) return 'NULL'
  if (typeof v === 'number') return Number.isInteger(v) && !Number.isSafeInteger(v) ? BigInt(v).toString() : String(v)
  if (typeof v === 'bigint') return v.toString()
  const s = String(v)
  return SPECIAL.test(s) ? `"${s.replace(SPECIALS, '\\$&')}"` : `"${s}"`
}

/** The array literal of `values` (`{1,NULL,"a"}`), bound as text and cast to the column's array type. */
export const arrayLiteral = (values: readonly unknown[]): string => `{${values.map(element).join(',')}}`

/** Geometries as one WKB buffer, and each one's 1-based offset and length in it (NULL: no geometry). */
export interface WkbColumn {
  bytes: Uint8Array
  offsets: string
  lengths: string
}

export function wkbColumn(geoms: readonly (Geometry | null | undefined)[]): WkbColumn {
  const sizes = geoms.map((g) => (g ? wkbSize(g) : 0))
  const bytes = new Uint8Array(sizes.reduce((a, b) => a + b, 0))
  const view = new DataView(bytes.buffer)
  const offsets = new Array<number | null>(geoms.length)
  let at = 0
  geoms.forEach((g, k) => {
    if (!g) { offsets[k] = null; return }
    offsets[k] = at + 1
    at = writeWkb(view, at, g)
  })
  return { bytes, offsets: arrayLiteral(offsets), lengths: arrayLiteral(geoms.map((g, k) => (g ? sizes[k] : null))) }
}

/** The SQL reading geometry `o`/`l` (unnest's columns) of the buffer at placeholder `bytes` into a geometry of `srid`. */
export const geomOf = (bytes: string, o: string, l: string, srid: string) => `ST_GeomFromWKB(substring(${bytes}::bytea from ${o} for ${l}), ${srid})`
