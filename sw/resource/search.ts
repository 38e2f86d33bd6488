/**
 * @module resource/search
 * `GET /api/resource/search/` filters (reference §4.3), parsed and validated into a plain
 * query (`ResourceSearch`) that storage answers (in SQL: sw/sqlite/main/resources.ts). Both
 * the current syntax and the 4.x aliases that older clients still send are accepted.
 */
import { invalidParameter } from '../core/error.ts'
import { originalName, type Identifiers } from '../core/identifiers.ts'
import { likePattern, PatternError } from '../core/pattern.ts'
import { lastValue, queryInt, queryIntList } from '../core/validate.ts'
import type { ClassLookup } from './class.ts'
import type { ResourceRow } from './types.ts'
import type { ResourceRead, ResourceSearch, SearchColumn } from './repository.ts'

/** The 4.x spellings, mapped to the current filter names. */
const ALIASES: Record<string, string> = {
  id__eq: 'id', cls__eq: 'cls', parent_id: 'parent', parent_id__eq: 'parent', parent_id__in: 'parent__in',
  keyname__eq: 'keyname', display_name__eq: 'display_name', owner_user_id: 'owner_user',
  owner_user_id__eq: 'owner_user', owner_user_id__in: 'owner_user__in', owner_user__id: 'owner_user',
  parent_id__recursive: 'root',
}

const COLUMNS: Record<string, SearchColumn> = {
  id: 'id', cls: 'cls', parent: 'parent_id', keyname: 'keyname', display_name: 'display_name',
  owner_user: 'owner_user_id', description: 'description',
}
const INT_COLUMNS = new Set(['id', 'parent', 'owner_user'])

export interface SearchResult {
  rows: ResourceRow[]
  paged: boolean
  limit: number | null
  offset: number
  /** The order tokens as sent (`name`, `-created`…). */
  order: string[]
  total: number
}

const ORDER_KEYS = new Set(['name', 'type', 'owner', 'created'])

/**
 * `cls__like` / `cls__ilike` as the registered classes whose name matches in either spelling
 * (`postgis%` finds the spec's `spatialdb_layer`, `spatialdb%` too): classes are a known, short
 * list, so the pattern is matched here and storage gets their names.
 */
function classesLike(classes: ClassLookup, rawKey: string, pattern: string, ignoreCase: boolean): string[] {
  let p
  try {
    p = likePattern(pattern, ignoreCase)
  } catch (err) {
    if (err instanceof PatternError) throw invalidParameter(rawKey, `${err.message}.`)
    throw err
  }
  return classes.list().map((k) => k.identity).filter((cls) => p.test(cls) || p.test(originalName(cls)))
}

/**
 * The search `params` ask for, validated; class names are resolved through `classes`. `names`:
 * how answers spell class names; `order=type` sorts by those names.
 */
export function parseSearch(classes: ClassLookup, params: URLSearchParams, names?: Identifiers): { query: ResourceSearch } & Omit<SearchResult, 'rows' | 'total'> {
  const q: ResourceSearch = { columns: [], resmeta: [], roots: [], order: [] }
  for (const rawKey of new Set(params.keys())) {
    const meta = /^resmeta__(has|json|like|ilike)\[(.+)\]$/.exec(rawKey)
    const value = lastValue(params, rawKey)!
    if (meta) {
      const [, op, key] = meta as unknown as [string, string, string]
      if (op === 'has') {
        const has = value === 'true' || value === 'yes'
        if (!has && value !== 'false' && value !== 'no') throw invalidParameter(rawKey, `Invalid boolean value '${value}'.`)
        q.resmeta.push({ key, op: has ? 'has' : 'has_not' })
      } else if (op === 'json') {
        let literal: unknown
        try { literal = JSON.parse(value) } catch { throw invalidParameter(rawKey, 'Invalid JSON literal.') }
        q.resmeta.push({ key, op: 'eq', value: literal })
      } else {
        q.resmeta.push({ key, op: op as 'like' | 'ilike', value })
      }
      continue
    }
    const key = ALIASES[rawKey] ?? rawKey
    if (key === 'root') {
      q.roots.push(queryInt(params, rawKey)!)
      continue
    }
    const m = /^(\w+?)(?:__(in|like|ilike))?$/.exec(key)
    if (!m || !COLUMNS[m[1]!]) continue // unknown parameters are ignored (reference §1.2)
    const [, name, op] = m as unknown as [string, string, string | undefined]
    const column = COLUMNS[name]!
    if (op === 'in') {
      const values: Array<string | number> = INT_COLUMNS.has(name) ? queryIntList(params, rawKey)! : value.split(',').filter((v) => v !== '')
      q.columns.push({ column, op, value: name === 'cls' ? values.map((v) => classes.find(String(v))?.identity ?? String(v)) : values })
    } else if ((op === 'like' || op === 'ilike') && name === 'cls') {
      q.columns.push({ column, op: 'in', value: classesLike(classes, rawKey, value, op === 'ilike') })
    } else if (op === 'like' || op === 'ilike') {
      q.columns.push({ column, op, value })
    } else if (INT_COLUMNS.has(name)) {
      q.columns.push({ column, op: 'eq', value: queryInt(params, rawKey)! })
    } else {
      q.columns.push({ column, op: 'eq', value: name === 'cls' ? classes.find(value)?.identity ?? value : value })
    }
  }

  const paged = ['limit', 'offset', 'order', 'breadcrumb'].some((k) => params.has(k))
  const limit = queryInt(params, 'limit', { min: 0 }) ?? null
  const offset = queryInt(params, 'offset', { min: 0 }) ?? 0
  const orderRaw = lastValue(params, 'order')
  const order = orderRaw ? orderRaw.split(',') : ['name']
  q.order = order.map((tok) => {
    const desc = tok.startsWith('-')
    const key = desc ? tok.slice(1) : tok
    if (!ORDER_KEYS.has(key)) throw invalidParameter('order', `Invalid order token '${tok}'; expected name, type, owner or created with an optional '-'.`)
    if (key === 'type' && names?.original) return { key: 'type' as const, desc, rank: typeRank(classes, names) }
    return { key: key as ResourceSearch['order'][number]['key'], desc }
  })
  if (paged) q.page = { limit, offset }
  return { query: q, paged, limit, offset, order }
}

/** The registered classes in the order of their names as answers spell them (storage keeps the spec's). */
function typeRank(classes: ClassLookup, names: Identifiers): string[] {
  return classes.list().map((k) => k.identity).sort((a, b) => (names.name(a) < names.name(b) ? -1 : names.name(a) > names.name(b) ? 1 : 0))
}

/** The resources matching the filters of `params`; class names are resolved through `classes`, and sorted as `names` spells them. */
export async function searchResources(resources: ResourceRead, classes: ClassLookup, params: URLSearchParams, names?: Identifiers): Promise<SearchResult> {
  const { query, ...page } = parseSearch(classes, params, names)
  return { ...page, ...await resources.search(query) }
}
