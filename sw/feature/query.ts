/**
 * @module feature/query
 * Reading parameters (reference §5.4): the "dumper" group that shapes each feature, and
 * the listing group (paging, ordering, `fld_*`/`id` filters, full-text, intersects) turned
 * into the plain `FeatureQuery` of the feature-layer capability, which the layer's class
 * runs against its storage.
 */
import { invalidParameter } from '../core/error.ts'
import { lastValue, queryBool, queryInt } from '../core/validate.ts'
import { parseWkt } from '../geo/wkt.ts'
import { loadProjection, type EpsgSource } from '../geo/srs.ts'
import { filterValue, type BigintFormat, type DtFormat } from './values.ts'
import { geometryNotValid, unknownField, unknownSrs } from './errors.ts'
import type { FeatureFilter, FeatureQuery, Field, FieldValue, FilterOp, LayerMeta } from './types.ts'

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

const ALL_OPS: FilterOp[] = ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'like', 'ilike', 'in', 'notin', 'startswith', 'isnull']

/** The filters of a listing, count or extent request. `body` is a GET's JSON body, if any. */
export function filterOf(params: URLSearchParams, meta: LayerMeta, body?: Record<string, unknown>): FeatureFilter {
  const filter: FeatureFilter = { conditions: [], filtered: false }
  const byKey = new Map(meta.fields.map((f) => [f.keyname, f]))
  for (const name of new Set(params.keys())) {
    let field: Field | null
    let rest: string
    if (name === 'id' || name.startsWith('id__')) {
      field = null
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
      field = f
    } else {
      continue
    }
    filter.filtered = true
    filter.conditions.push(condition(name, field, rest, lastValue(params, name)!))
  }

  const like = lastValue(params, 'like')
  const ilike = lastValue(params, 'ilike')
  if (like !== undefined || ilike !== undefined) {
    filter.filtered = true
    filter.search = like !== undefined ? { pattern: like, caseSensitive: true } : { pattern: ilike!, caseSensitive: false }
  }

  const bodyWkt = typeof body?.intersects === 'string' ? body.intersects : undefined
  const wkt = lastValue(params, 'intersects') ?? bodyWkt
  if (wkt !== undefined) {
    try {
      filter.intersects = parseWkt(wkt)
    } catch (err) {
      throw geometryNotValid((err as Error).message, 'intersects')
    }
    filter.filtered = true
  }
  return filter
}

const ID_FIELD = { datatype: 'BIGINT' as const }

function condition(param: string, field: Field | null, rest: string, raw: string): FeatureFilter['conditions'][number] {
  const op = (rest === '' ? 'eq' : rest.startsWith('__') ? rest.slice(2) : '?') as FilterOp
  if (!ALL_OPS.includes(op)) throw invalidParameter(param, `Unsupported filter operator '${rest.replace(/^__/, '')}'; expected one of ${ALL_OPS.join(', ')}.`)
  const value = (s: string): FieldValue => {
    try {
      return filterValue(field ?? ID_FIELD, s)
    } catch (err) {
      throw invalidParameter(param, `Invalid value '${s}': ${(err as Error).message}.`)
    }
  }
  switch (op) {
    case 'like': case 'ilike': case 'startswith':
      return { field, op, value: raw }
    case 'isnull': {
      const yes = raw === 'yes' || raw === 'true' ? true : raw === 'no' || raw === 'false' ? false : undefined
      if (yes === undefined) throw invalidParameter(param, `Invalid value '${raw}'; expected yes or no.`)
      return { field, op, value: yes }
    }
    case 'in': case 'notin':
      return { field, op, value: raw === '' ? [] : raw.split(',').map(value) }
    default:
      return { field, op, value: value(raw) }
  }
}

/** The sort keys of `order_by=name,-depth`. */
export function orderOf(params: URLSearchParams, meta: LayerMeta): NonNullable<FeatureQuery['order']> {
  const raw = lastValue(params, 'order_by')
  return (raw ?? '').split(',').filter(Boolean).map((item) => {
    const key = item.replace(/^[-+]/, '')
    const field = meta.fields.find((x) => x.keyname === key)
    if (!field) throw unknownField(key, 'order_by')
    return { field, desc: item.startsWith('-') }
  })
}

/** `limit`/`offset`; the offset counts only with a limit (reference §5.4). */
export function paging(params: URLSearchParams): { limit: number; offset: number } {
  const limit = queryInt(params, 'limit', { min: 0 })
  const offset = queryInt(params, 'offset', { min: 0 }) ?? 0
  return limit === undefined ? { limit: -1, offset: 0 } : { limit, offset }
}
