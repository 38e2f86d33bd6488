/**
 * @module postgres/features/filter
 * The component's filters (feature/query.ts builds them) as SQL conditions on the feature table
 * `f`, with the same meanings as SQLite's (sqlite/features/reader.ts): `like` and the
 * case-sensitive search match case, `ilike` and the other search fold Unicode case, LIKE
 * patterns have no escape character (as SQLite's GLOB and LIKE), strings compare by code point,
 * `intersects` is PostGIS's (the GiST index narrows it). Every value is a parameter.
 */
import type { Condition, FeatureFilter, Field } from '../../feature/types.ts'
import { toWkb } from '../../geo/wkb.ts'
import { asText, sortable } from './values.ts'
import { columnOf } from './schema.ts'

/** The parameters of one statement: `add` returns the placeholder of a new one. */
export class Params {
  readonly values: unknown[] = []
  add(v: unknown): string {
    this.values.push(v)
    return `$${this.values.length}`
  }
}

const COMPARE: Record<string, string> = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' }

/** `WHERE …` for `filter` (empty without conditions); `srs` is the layer's, the filter geometry's too. */
export function whereSql(filter: FeatureFilter | undefined, fields: readonly Field[], srs: number, p: Params): string {
  const where: string[] = []
  if (filter) {
    for (const c of filter.conditions) where.push(condition(c, p))
    const { search } = filter
    if (search) {
      const cols = fields.filter((f) => f.text_search).map((f) => asText(`f.${columnOf(f.id)}`, f.datatype))
      if (!cols.length) where.push('false')
      else {
        const pattern = p.add(`%${search.pattern}%`)
        where.push(`(${cols.map((c) => (search.caseSensitive ? `${c} LIKE ${pattern} ESCAPE ''`
          : `lower(${c}) LIKE lower(${pattern}) ESCAPE ''`)).join(' OR ')})`)
      }
    }
    if (filter.intersects) where.push(`ST_Intersects(f.geom, ST_GeomFromWKB(${p.add(toWkb(filter.intersects))}, ${p.add(srs)}))`)
  }
  return where.length ? `WHERE ${where.join(' AND ')}` : ''
}

function condition(c: Condition, p: Params): string {
  const target = c.field ? sortable('f', c.field) : 'f.fid'
  const text = () => asText(c.field ? `f.${columnOf(c.field.id)}` : 'f.fid', c.field?.datatype ?? 'FID')
  switch (c.op) {
    case 'like': return `${text()} LIKE ${p.add(String(c.value))} ESCAPE ''`
    case 'ilike': return `lower(${text()}) LIKE lower(${p.add(String(c.value))}) ESCAPE ''`
    case 'startswith': return `starts_with(${text()}, ${p.add(String(c.value))})`
    case 'isnull': return `${target} IS ${c.value ? '' : 'NOT '}NULL`
    case 'in': case 'notin': {
      const values = c.value as unknown[]
      if (!values.length) return c.op === 'in' ? 'false' : 'true'
      // `= ANY` takes the column's type for the array; `NOT (… = ANY)` is NULL for a NULL value, as NOT IN.
      const any = `${target} = ANY(${p.add(values)})`
      return c.op === 'in' ? any : `NOT (${any})`
    }
    default: return `${target} ${COMPARE[c.op]} ${p.add(c.value)}`
  }
}
