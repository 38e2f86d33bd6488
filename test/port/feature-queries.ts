/**
 * Features of every field type and the queries that tell two feature-layer implementations
 * apart: every filter operator on every field type, the search, `intersects`, every order both
 * ways and pages. test/unit/pg-features.test.ts runs them on our PostGIS tables beside SQLite's,
 * test/unit/spatialdb-layer.test.ts on a table of a team's database beside SQLite's.
 */
import type { Condition, FeatureFilter, FeatureInput, FeatureQuery, FeatureRead, Field, FieldType, FieldValue } from '../../sw/feature/types.ts'
import { bboxOf, type Geometry } from '../../sw/geo/geometry.ts'

export const field = (id: number, keyname: string, datatype: FieldType, more: Partial<Field> = {}): Field => ({ id, keyname,
  display_name: keyname, datatype, typemod: null, label_field: false, grid_visibility: true, text_search: true, required: false,
  lookup_table: null, ...more })

export const FIELDS: Field[] = [
  field(1, 'i', 'INTEGER'), field(2, 'b', 'BIGINT'), field(3, 'r', 'REAL'), field(4, 's', 'STRING', { label_field: true }),
  field(5, 'd', 'DATE'), field(6, 't', 'TIME'), field(7, 'dt', 'DATETIME'), field(8, 'ok', 'BOOLEAN', { text_search: false }),
]
export const point = (x: number, y: number): Geometry => ({ type: 'Point', coordinates: [x, y] })

/** Rows of canonical values: one per feature, in field order; the geometry and description beside. */
export const DATA: [Geometry | null, FieldValue[], string | null][] = [
  [point(1, 2), [1, 2, 1.5, 'Ärger', '2024-02-29', '23:59:58', '2024-02-29T12:34:56', 1], 'first'],
  [point(5, 6), [-7, 2n ** 60n, -0.25, 'apple', '1999-12-31', '00:00:00', '1999-12-31T23:59:59', 0], null],
  [null, [null, null, null, null, null, null, null, null], 'no geometry'],
  [point(-3, 4), [42, -(2 ** 40), 1e20, 'Zebra 100%_x', '2024-03-01', '12:00:00', '2024-03-01T00:00:00', 1], ''],
  [point(5, 6), [1, 2, 1.5, 'ärger', '2024-02-29', '08:30:00', '2024-02-29T12:34:56', 0], null],
  [point(7, 8), [0, 0, 0.1 + 0.2, 'x', '2024-01-01', '01:02:03', '2024-01-01T01:02:03', 0], null],
  [point(7, 8), [0, 0, 1 / 3, 'y', '2024-01-01', '01:02:03', '2024-01-01T01:02:03', 0], null],
  [point(7, 8), [0, 0, 2, 'z', '2024-01-01', '01:02:03', '2024-01-01T01:02:03', 0], null],
  [point(7, 8), [0, 0, 1.25e-7, 'w', '2024-01-01', '01:02:03', '2024-01-01T01:02:03', 0], null],
]

export const inputs = (fields = FIELDS): FeatureInput[] => DATA.map(([geom, values, description]) =>
  ({ geom, bbox: geom && bboxOf(geom), fields, values, description }))

/** Numbers and bigints alike as JSON (bigint tagged, so 2^60 is not taken for a rounded number). */
export const json = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x))

/** Every operator on every field of FIELDS with DATA's values, LIKE patterns and searches, the fid, `intersects`. */
export function everyFilter(): FeatureFilter[] {
  const filters: FeatureFilter[] = []
  for (const [k, f] of FIELDS.entries()) {
    const v = DATA[0]![1][k]!
    const c = (op: Condition['op'], value: Condition['value']): FeatureFilter => ({ conditions: [{ field: f, op, value }], filtered: true })
    for (const op of ['eq', 'ne', 'gt', 'ge', 'lt', 'le'] as const) filters.push(c(op, v))
    filters.push(c('in', [v, DATA[1]![1][k]!]), c('notin', [v]), c('in', []), c('notin', []), c('isnull', true), c('isnull', false))
    filters.push(c('like', `${String(v).slice(0, 2)}%`), c('ilike', `%${String(v).slice(1, 3).toUpperCase()}%`),
      c('startswith', String(v).slice(0, 2)))
  }
  const s = FIELDS[3]!
  for (const pattern of ['ärger', 'ÄRGER', '%', '_', '100%_', 'e', '.0', 'e+', 'e-', '0.3', '333', '2.0', 'T12', 'true', '0004', '3333333333333333', '000000000000']) {
    filters.push({ conditions: [{ field: s, op: 'like', value: pattern }], filtered: true },
      { conditions: [{ field: s, op: 'ilike', value: pattern }], filtered: true },
      { conditions: [], search: { pattern, caseSensitive: true }, filtered: true },
      { conditions: [], search: { pattern, caseSensitive: false }, filtered: true })
  }
  filters.push({ conditions: [{ field: null, op: 'in', value: [1, 3, 99] }], filtered: true },
    { conditions: [{ field: null, op: 'gt', value: 2 }], filtered: true },
    { conditions: [{ field: null, op: 'like', value: '1%' }], filtered: true },
    { conditions: [], intersects: { type: 'Polygon', coordinates: [[[0, 0], [6, 0], [6, 7], [0, 7], [0, 0]]] }, filtered: true },
    { conditions: [{ field: FIELDS[0]!, op: 'eq', value: 1 }],
      intersects: { type: 'LineString', coordinates: [[4, 5], [6, 7]] }, filtered: true })
  return filters
}

/** Each filter's listed fids, count and extent, in one read. */
export async function filterAnswers(tx: FeatureRead, filters: readonly FeatureFilter[]): Promise<unknown[][]> {
  const out: unknown[][] = []
  for (const filter of filters) {
    out.push([(await tx.list({ filter }, { geom: false, fields: [], label: false, description: false })).map((r) => r.fid),
      await tx.count(filter), await tx.extent(filter)])
  }
  return out
}

/** The filters whose answers differ between `a` and `b` (named `as`), each described on one line. */
export function differingAnswers(filters: readonly FeatureFilter[], a: unknown[][], b: unknown[][], as: [string, string]): string[] {
  return filters.map((f, i) => ({ f, a: json(a[i]), b: json(b[i]) }))
    .filter((d) => d.a !== d.b)
    .map(({ f, a, b }) => `${f.conditions.map((c) => `${c.field?.datatype ?? 'fid'} ${c.op} ${json(c.value)}`).join(', ')}${
      f.search ? ` search ${f.search.pattern} ${f.search.caseSensitive}` : ''}: ${as[0]} ${a}, ${as[1]} ${b}`)
}

/** Every field as the sort key both ways, two keys with a page, pages alone, one fid. */
export function everyOrder(): FeatureQuery[] {
  const queries: FeatureQuery[] = FIELDS.flatMap((f) => [{ order: [{ field: f, desc: false }] }, { order: [{ field: f, desc: true }] }])
  queries.push({ order: [{ field: FIELDS[7]!, desc: false }, { field: FIELDS[3]!, desc: true }], limit: 3, offset: 1 },
    { limit: 2, offset: 3 }, { limit: 0 }, { limit: -1, offset: 2 }, { offset: 2 }, { fid: 4 }, { fid: 99 })
  return queries
}

/** Each query's listed fids, in one read. */
export async function orderAnswers(tx: FeatureRead, queries: readonly FeatureQuery[]): Promise<number[][]> {
  const out: number[][] = []
  for (const q of queries) out.push((await tx.list(q, { geom: false, fields: [], label: false, description: false })).map((r) => r.fid))
  return out
}
