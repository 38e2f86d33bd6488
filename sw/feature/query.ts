/**
 * @module feature/query
 * Reading parameters (reference §5.4): the "dumper" group that shapes each feature, and
 * the listing group (paging, ordering, `fld_*`/`id` filters, full-text, intersects) turned
 * into SQL over the layer's feature table.
 */
import { invalidParameter } from '../core/error.ts'
import { lastValue, queryBool, queryInt } from '../core/validate.ts'
import type { Field } from '../classes/vector_layer/fields.ts'
import { parseWkt } from '../geo/wkt.ts'
import { bboxOf, type Geometry } from '../geo/geometry.ts'
import { loadProjection, type EpsgSource } from '../geo/srs.ts'
import { columnOf, RTREE_TABLE, type LayerMeta } from './schema.ts'
import { filterValue, type BigintFormat, type DtFormat, type SqlValue } from './values.ts'
import { geometryNotValid, unknownField, unknownSrs } from './errors.ts'

export interface DumpOptions {
  geom: boolean
  geomFormat: 'wkt' | 'geojson'
  /** Output SRS; `undefined` = the layer's. */
  srs: number | undefined
  dt: DtFormat
  bigint: BigintFormat
  /** The fields to output, in layer order. */
  fields: Field[]
  description: boolean
  attachment: boolean
  /** Whether `extensions` is in the output at all (`extensions=` drops it). */
  extensions: boolean
  label: boolean
}

function choice<T extends string>(params: URLSearchParams, name: string, allowed: readonly T[], fallback: T): T {
  const v = lastValue(params, name)
  if (v === undefined) return fallback
  if (!(allowed as readonly string[]).includes(v)) throw invalidParameter(name, `Invalid value '${v}'; expected one of ${allowed.join(', ')}.`)
  return v as T
}

/** An EPSG code from the query, loaded for reprojection from the host's index; 422 when unknown. */
export async function querySrs(params: URLSearchParams, epsg: EpsgSource, name = 'srs'): Promise<number | undefined> {
  const id = queryInt(params, name)
  if (id !== undefined && !(await loadProjection(id, epsg))) throw unknownSrs(id, name)
  return id
}

export async function dumpOptions(params: URLSearchParams, meta: LayerMeta, epsg: EpsgSource): Promise<DumpOptions> {
  const fieldsParam = lastValue(params, 'fields')
  const wanted = fieldsParam === undefined ? undefined : new Set(fieldsParam.split(',').filter(Boolean))
  const extParam = lastValue(params, 'extensions')
  const ext = extParam === undefined ? undefined : new Set(extParam.split(',').filter(Boolean))
  return {
    geom: queryBool(params, 'geom', true),
    geomFormat: choice(params, 'geom_format', ['wkt', 'geojson'] as const, 'wkt'),
    srs: await querySrs(params, epsg),
    dt: choice(params, 'dt_format', ['obj', 'iso'] as const, 'obj'),
    bigint: choice(params, 'bigint_format', ['compat', 'string', 'number'] as const, 'compat'),
    fields: wanted ? meta.fields.filter((f) => wanted.has(f.keyname)) : meta.fields,
    description: !ext || ext.has('description'),
    attachment: !ext || ext.has('attachment'),
    extensions: !ext || ext.size > 0,
    label: queryBool(params, 'label', false),
  }
}

export interface Selection {
  /** SQL conditions on `f` (the feature table), ANDed. */
  where: string[]
  bind: SqlValue[]
  /** Whether any filter was given (feature_count reports `filtered_count` then). */
  filtered: boolean
  /** A geometry features must intersect, tested by `outpost_intersects`. */
  intersects?: Geometry
}

const OPS: Record<string, string> = { eq: '=', ne: '!=', gt: '>', ge: '>=', lt: '<', le: '<=' }
const ALL_OPS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'like', 'ilike', 'in', 'notin', 'startswith', 'isnull']

/** A LIKE pattern (`%`, `_`) as a GLOB pattern, for case-sensitive `like`. */
export function likeToGlob(p: string): string {
  return p.replace(/[*?[%_]/g, (ch) => ({ '*': '[*]', '?': '[?]', '[': '[[]', '%': '*', '_': '?' })[ch]!)
}

/** The filters of a listing, count or extent request. `body` is a GET's JSON body, if any. */
export function selection(params: URLSearchParams, meta: LayerMeta, body?: Record<string, unknown>): Selection {
  const sel: Selection = { where: [], bind: [], filtered: false }
  const byKey = new Map(meta.fields.map((f) => [f.keyname, f]))
  const idField = { datatype: 'BIGINT' as const }
  for (const name of new Set(params.keys())) {
    let target: string
    let rest: string
    if (name === 'id' || name.startsWith('id__')) {
      target = 'f.fid'
      rest = name.slice(2)
    } else if (name.startsWith('fld_')) {
      const key = name.slice(4)
      let keyname = key
      rest = ''
      if (!byKey.has(key)) {
        const i = key.lastIndexOf('__')
        if (i > 0) { keyname = key.slice(0, i); rest = key.slice(i) }
      }
      const f = byKey.get(keyname)
      if (!f) throw unknownField(keyname, name)
      target = `f.${columnOf(f.id)}`
      sel.filtered = true
      addCondition(sel, name, target, rest, lastValue(params, name)!, f)
      continue
    } else {
      continue
    }
    sel.filtered = true
    addCondition(sel, name, target, rest, lastValue(params, name)!, idField)
  }

  const like = lastValue(params, 'like')
  const ilike = lastValue(params, 'ilike')
  if (like !== undefined || ilike !== undefined) {
    sel.filtered = true
    const cols = meta.fields.filter((f) => f.text_search).map((f) => `CAST(f.${columnOf(f.id)} AS TEXT)`)
    if (!cols.length) sel.where.push('0')
    else if (like !== undefined) {
      // Case-sensitive: GLOB, since SQLite's LIKE ignores ASCII case.
      sel.where.push(`(${cols.map((c) => `${c} GLOB ?`).join(' OR ')})`)
      for (const _ of cols) sel.bind.push(`*${likeToGlob(like)}*`)
    } else {
      sel.where.push(`(${cols.map((c) => `lower_u(${c}) LIKE lower_u(?)`).join(' OR ')})`)
      for (const _ of cols) sel.bind.push(`%${ilike}%`)
    }
  }

  const bodyWkt = typeof body?.intersects === 'string' ? body.intersects : undefined
  const wkt = lastValue(params, 'intersects') ?? bodyWkt
  if (wkt !== undefined) {
    let g: Geometry
    try {
      g = parseWkt(wkt)
    } catch (err) {
      throw geometryNotValid((err as Error).message, 'intersects')
    }
    const b = bboxOf(g)
    sel.filtered = true
    sel.intersects = g
    sel.where.push(`f.fid IN (SELECT id FROM ${RTREE_TABLE} WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?)`,
      'outpost_intersects(f.geom)')
    sel.bind.push(b[2], b[0], b[3], b[1])
  }
  return sel
}

function addCondition(sel: Selection, param: string, target: string, rest: string, raw: string,
  field: Pick<Field, 'datatype'>): void {
  const op = rest === '' ? 'eq' : rest.startsWith('__') ? rest.slice(2) : '?'
  if (!ALL_OPS.includes(op)) throw invalidParameter(param, `Unsupported filter operator '${rest.replace(/^__/, '')}'; expected one of ${ALL_OPS.join(', ')}.`)
  const value = (s: string) => {
    try {
      return filterValue(field, s)
    } catch (err) {
      throw invalidParameter(param, `Invalid value '${s}': ${(err as Error).message}.`)
    }
  }
  switch (op) {
    case 'like':
      sel.where.push(`CAST(${target} AS TEXT) GLOB ?`)
      sel.bind.push(likeToGlob(raw))
      return
    case 'ilike':
      sel.where.push(`lower_u(CAST(${target} AS TEXT)) LIKE lower_u(?)`)
      sel.bind.push(raw)
      return
    case 'startswith':
      sel.where.push(`substr(CAST(${target} AS TEXT), 1, length(?)) = ?`)
      sel.bind.push(raw, raw)
      return
    case 'isnull': {
      const yes = raw === 'yes' || raw === 'true' ? true : raw === 'no' || raw === 'false' ? false : undefined
      if (yes === undefined) throw invalidParameter(param, `Invalid value '${raw}'; expected yes or no.`)
      sel.where.push(`${target} IS ${yes ? '' : 'NOT '}NULL`)
      return
    }
    case 'in': case 'notin': {
      const values = raw === '' ? [] : raw.split(',').map(value)
      if (!values.length) { sel.where.push(op === 'in' ? '0' : '1'); return }
      sel.where.push(`${target} ${op === 'in' ? 'IN' : 'NOT IN'} (${values.map(() => '?').join(',')})`)
      sel.bind.push(...values)
      return
    }
    default:
      sel.where.push(`${target} ${OPS[op]} ?`)
      sel.bind.push(value(raw))
  }
}

/** `ORDER BY` of `order_by=name,-depth`; fid is always the tie-break. */
export function ordering(params: URLSearchParams, meta: LayerMeta): string {
  const raw = lastValue(params, 'order_by')
  const parts: string[] = []
  for (const item of (raw ?? '').split(',').filter(Boolean)) {
    const desc = item.startsWith('-')
    const key = item.replace(/^[-+]/, '')
    const f = meta.fields.find((x) => x.keyname === key)
    if (!f) throw unknownField(key, 'order_by')
    // PostgreSQL's NULL placement: last when ascending, first when descending.
    parts.push(`f.${columnOf(f.id)} ${desc ? 'DESC NULLS FIRST' : 'ASC NULLS LAST'}`)
  }
  parts.push('f.fid')
  return parts.join(', ')
}

/** `limit`/`offset`; the offset counts only with a limit (reference §5.4). */
export function paging(params: URLSearchParams): { limit: number; offset: number } {
  const limit = queryInt(params, 'limit', { min: 0 })
  const offset = queryInt(params, 'offset', { min: 0 }) ?? 0
  return limit === undefined ? { limit: -1, offset: 0 } : { limit, offset }
}
