// port: legacy-sql (issue 22)
/**
 * @module resource/search
 * `GET /api/resource/search/` filters (reference §4.3), turned into one SQL WHERE clause.
 * Both the current syntax and the 4.x aliases that older clients still send are accepted.
 */
import { invalidParameter } from '../core/error.ts'
import { likeToGlob } from '../core/text.ts'
import { lastValue, queryInt, queryIntList } from '../core/validate.ts'
import type { SqlDb } from '../store/database.ts'
import type { ClassLookup } from './class.ts'
import type { ResourceRow } from './types.ts'
import { selectRows } from './service.ts'

type Bind = string | number | null

/** The 4.x spellings, mapped to the current filter names. */
const ALIASES: Record<string, string> = {
  id__eq: 'id', cls__eq: 'cls', parent_id: 'parent', parent_id__eq: 'parent', parent_id__in: 'parent__in',
  keyname__eq: 'keyname', display_name__eq: 'display_name', owner_user_id: 'owner_user',
  owner_user_id__eq: 'owner_user', owner_user_id__in: 'owner_user__in', owner_user__id: 'owner_user',
  parent_id__recursive: 'root',
}

const COLUMNS: Record<string, string> = {
  id: 'id', cls: 'cls', parent: 'parent_id', keyname: 'keyname', display_name: 'display_name',
  owner_user: 'owner_user_id', description: 'description',
}
const INT_COLUMNS = new Set(['id', 'parent', 'owner_user'])

export interface SearchResult {
  rows: ResourceRow[]
  paged: boolean
  limit: number | null
  offset: number
  order: string[]
  total: number
}

const ORDER_SQL: Record<string, string> = {
  name: 'display_name', type: 'cls', owner: 'owner_user_id', created: 'creation_date',
}

/** The resources matching the filters of `params`; class names are resolved through `classes`. */
export function searchResources(db: SqlDb, classes: ClassLookup, params: URLSearchParams): SearchResult {
  const where: string[] = []
  const bind: Bind[] = []
  for (const rawKey of new Set(params.keys())) {
    const meta = /^resmeta__(has|json|like|ilike)\[(.+)\]$/.exec(rawKey)
    const value = lastValue(params, rawKey)!
    if (meta) {
      const [, op, key] = meta
      if (op === 'has') {
        const has = value === 'true' || value === 'yes'
        if (!has && value !== 'false' && value !== 'no') throw invalidParameter(rawKey, `Invalid boolean value '${value}'.`)
        where.push(`${has ? '' : 'NOT '}EXISTS (SELECT 1 FROM resmeta m WHERE m.resource_id = resource.id AND m.key = ?)`)
        bind.push(key!)
      } else if (op === 'json') {
        let literal: unknown
        try { literal = JSON.parse(value) } catch { throw invalidParameter(rawKey, 'Invalid JSON literal.') }
        where.push(`EXISTS (SELECT 1 FROM resmeta m WHERE m.resource_id = resource.id AND m.key = ? AND m.value = ?)`)
        bind.push(key!, JSON.stringify(literal))
      } else {
        const cond = op === 'like' ? `json_extract(m.value, '$') GLOB ?` : `lower(json_extract(m.value, '$')) LIKE lower(?)`
        where.push(`EXISTS (SELECT 1 FROM resmeta m WHERE m.resource_id = resource.id AND m.key = ?
            AND json_type(m.value) = 'text' AND ${cond})`)
        bind.push(key!, op === 'like' ? likeToGlob(value) : value)
      }
      continue
    }
    const key = ALIASES[rawKey] ?? rawKey
    if (key === 'root') {
      const root = queryInt(params, rawKey)!
      where.push(`id IN (WITH RECURSIVE t(id) AS (SELECT ? UNION ALL SELECT r.id FROM resource r JOIN t ON r.parent_id = t.id) SELECT id FROM t)`)
      bind.push(root)
      continue
    }
    const m = /^(\w+?)(?:__(in|like|ilike))?$/.exec(key)
    if (!m || !COLUMNS[m[1]!]) continue // unknown parameters are ignored (reference §1.2)
    const [, name, op] = m as unknown as [string, string, string | undefined]
    const col = COLUMNS[name]!
    if (op === 'in') {
      const values: Bind[] = INT_COLUMNS.has(name) ? queryIntList(params, rawKey)! : value.split(',').filter((v) => v !== '')
      if (name === 'cls') values.splice(0, values.length, ...values.map((v) => classes.find(String(v))?.identity ?? String(v)))
      where.push(values.length ? `${col} IN (${values.map(() => '?').join(',')})` : '0')
      bind.push(...values)
    } else if (op === 'like') {
      where.push(`${col} GLOB ?`)
      bind.push(likeToGlob(value))
    } else if (op === 'ilike') {
      where.push(`lower(${col}) LIKE lower(?)`)
      bind.push(value)
    } else if (INT_COLUMNS.has(name)) {
      where.push(`${col} = ?`)
      bind.push(queryInt(params, rawKey)!)
    } else {
      where.push(`${col} = ?`)
      bind.push(name === 'cls' ? classes.find(value)?.identity ?? value : value)
    }
  }

  const paged = ['limit', 'offset', 'order', 'breadcrumb'].some((k) => params.has(k))
  const limit = queryInt(params, 'limit', { min: 0 }) ?? null
  const offset = queryInt(params, 'offset', { min: 0 }) ?? 0
  const orderRaw = lastValue(params, 'order')
  const order = orderRaw ? orderRaw.split(',') : ['name']
  const orderSql = order.map((tok) => {
    const desc = tok.startsWith('-')
    const col = ORDER_SQL[desc ? tok.slice(1) : tok]
    if (!col) throw invalidParameter('order', `Invalid order token '${tok}'; expected name, type, owner or created with an optional '-'.`)
    return `${col} ${desc ? 'DESC' : 'ASC'}`
  })
  const cond = where.length ? where.join(' AND ') : '1'
  // sqlite-wasm refuses an empty bind array for a statement without parameters.
  const total = Number(db.selectValue(`SELECT count(*) FROM resource WHERE ${cond}`, bind.length ? bind : undefined))
  const page = paged ? ` LIMIT ${limit ?? -1} OFFSET ${offset}` : ''
  const rows = selectRows(db, `${cond} ORDER BY ${orderSql.join(', ')}, id${page}`, bind)
  return { rows, paged, limit, offset, order, total }
}
