/**
 * @module postgres/features/filter
 * The component's filters (feature/query.ts builds them), orders and pages as SQL over a feature
 * table `f`, with the same meanings as SQLite's (sqlite/features/reader.ts): `like` and the
 * case-sensitive search match case, `ilike` and the other search fold Unicode case, LIKE
 * patterns have no escape character (as SQLite's GLOB and LIKE), strings compare by code point,
 * `intersects` is PostGIS's (the GiST index narrows it). Every value is a parameter.
 *
 * One implementation for two kinds of table, told apart by their `TableColumns`: a vector
 * layer's own (`ownColumns`: `f.fid`, `f.fld_<id>`, `geom` in the layer's SRS) and a table of a
 * team's database published as it is (external/layer.ts: its id column, its column names quoted,
 * its geometry in its own SRID).
 */
import type { Condition, FeatureFilter, FeatureQuery, Field } from '../../feature/types.ts'
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

/** How the parts of a feature table `f` are written in SQL. */
export interface TableColumns {
  /** The feature id. */
  readonly id: string
  /** Field `f`'s value, as an expression of its field type (what filters compare and orders sort). */
  field(f: Field): string
  /** The stored geometry, as the spatial index covers it. */
  readonly geom: string
  /** The stored geometry in the layer's SRS (what a reader returns). */
  readonly geomOut: string
  /**
   * A constant geometry given in the layer's SRS as the WKB of placeholder `wkb`, in the stored
   * geometries' SRS: the transform stays on the constant side, so the index on `geom` is used.
   */
  geomIn(wkb: string, p: Params): string
}

/** A vector layer's own table (schema.ts): `fid`, `fld_<field id>`, `geom` in the layer's SRS. */
export const ownColumns = (srs: number): TableColumns => ({
  id: 'f.fid',
  field: (f) => `f.${columnOf(f.id)}`,
  geom: 'f.geom',
  geomOut: 'f.geom',
  geomIn: (wkb, p) => `ST_GeomFromWKB(${wkb}, ${p.add(srs)})`,
})

const COMPARE: Record<string, string> = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' }

/** `WHERE …` for `filter` (empty without conditions); `fields` are the layer's (the search reads its `text_search` ones). */
export function whereSql(filter: FeatureFilter | undefined, fields: readonly Field[], cols: TableColumns, p: Params): string {
  const where: string[] = []
  if (filter) {
    for (const c of filter.conditions) where.push(condition(c, cols, p))
    const { search } = filter
    if (search) {
      const texts = fields.filter((f) => f.text_search).map((f) => asText(cols.field(f), f.datatype))
      if (!texts.length) where.push('false')
      else {
        const pattern = p.add(`%${search.pattern}%`)
        where.push(`(${texts.map((c) => (search.caseSensitive ? `${c} LIKE ${pattern} ESCAPE ''`
          : `lower(${c}) LIKE lower(${pattern}) ESCAPE ''`)).join(' OR ')})`)
      }
    }
    if (filter.intersects) where.push(`ST_Intersects(${cols.geom}, ${cols.geomIn(p.add(toWkb(filter.intersects)), p)})`)
  }
  return where.length ? `WHERE ${where.join(' AND ')}` : ''
}

function condition(c: Condition, cols: TableColumns, p: Params): string {
  const target = c.field ? sortable(cols.field(c.field), c.field.datatype) : cols.id
  const text = () => asText(c.field ? cols.field(c.field) : cols.id, c.field?.datatype ?? 'FID')
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

/** The filter of a listing: `q.filter`, narrowed to feature `q.fid` when one is asked for. */
export function listFilter(q: FeatureQuery): FeatureFilter | undefined {
  if (q.fid === undefined) return q.filter
  return { conditions: [...(q.filter?.conditions ?? []), { field: null, op: 'eq', value: q.fid }], filtered: true,
    search: q.filter?.search, intersects: q.filter?.intersects }
}

/** The order of a listing: NULLs last ascending and first descending, the id breaking ties. */
function orderOf(q: FeatureQuery, cols: TableColumns): string {
  return [...(q.order ?? []).map((o) => `${sortable(cols.field(o.field), o.field.datatype)} ${o.desc ? 'DESC NULLS FIRST' : 'ASC NULLS LAST'}`),
    cols.id].join(', ')
}

/**
 * A listing's statement: `select` (over `f`) of the rows of `from` (a table or subquery as `f`)
 * that `where` keeps, in the listing's order and page. A page's rows are picked first and its
 * select list computed for them alone: PostgreSQL computes a flat statement's select list
 * (`ST_AsBinary`, a layer's per-row subqueries) for every row an OFFSET skips too, so a page
 * deep in a layer cost as much as all the rows before it (at offset 9,000 of 10,000, 20× the
 * time). As SQLite's reader, an offset counts only with a limit.
 */
export function listSql(select: string, from: string, where: string, q: FeatureQuery, cols: TableColumns, p: Params): string {
  const order = orderOf(q, cols)
  if (q.limit === undefined || q.limit < 0) return `SELECT ${select} FROM ${from} ${where} ORDER BY ${order}`
  return `SELECT ${select} FROM (SELECT * FROM ${from} ${where} ORDER BY ${order} LIMIT ${p.add(q.limit)} OFFSET ${p.add(q.offset ?? 0)}) f
    ORDER BY ${order}`
}
