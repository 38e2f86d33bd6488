/**
 * @module catalogue/index
 * The catalogue held in memory for queries: every record parsed once, list items serialized
 * once, geometries parsed once. Built from the database when it is opened and after each
 * import; the database stays the only durable copy.
 */
import { intersects, type FlatShape as Shape } from '../geo/flat.ts'
import { parseGeometry } from './geometry.ts'
import { LIST_KEYS, timeKey, type Detail } from './records.ts'

export interface Entry {
  id: number
  detail: Detail
  /** The list item, already JSON. */
  listJson: string
  type: string
  epsg: number | null
  status: string | null
  /** Upper-cased for case-insensitive search; `desc` null never matches. */
  nameUp: string
  descUp: string | null
  extent: Shape | null
  boundary: Shape | null
  /** Position of `name` in collation order. */
  nameRank: number
  created: number
  updated: number
}

export interface StatusEntry { id: number; geoservice: number; status: string; checkAt: number; json: string }
export interface IconEntry { id: number; guid: string; name: string; nameUp: string; json: string }

/** JSON as DRF writes it: compact, raw UTF-8, with U+2028/U+2029 escaped. */
export function drfJson(v: unknown): string {
  return JSON.stringify(v).replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'))
}

/** Name comparison like the original's linguistic collation (reference §7.7). */
export const nameCollator = new Intl.Collator('en', { sensitivity: 'variant', numeric: false })

export class CatalogueIndex {
  readonly entries: Entry[]
  readonly byId = new Map<number, Entry>()
  readonly statuses: StatusEntry[]
  readonly statusById = new Map<string, StatusEntry>()
  readonly icons: IconEntry[]
  readonly iconById = new Map<number, IconEntry>()

  constructor(services: Detail[], statuses: Detail[], icons: Array<{ id: number; guid: string; name: string }>) {
    this.entries = services.map((d) => {
      const list: Record<string, unknown> = {}
      for (const k of LIST_KEYS) list[k] = d[k] ?? null
      return {
        id: d.id as number, detail: d, listJson: drfJson(list), type: d.type as string, epsg: d.epsg as number | null,
        status: d.cumulative_status as string | null, nameUp: (d.name as string).toUpperCase(),
        descUp: typeof d.desc === 'string' ? d.desc.toUpperCase() : null,
        extent: typeof d.extent === 'string' ? parseGeometry(d.extent) : null,
        boundary: typeof d.boundary === 'string' ? parseGeometry(d.boundary) : null,
        nameRank: 0, created: timeKey(d.created_at as string | null), updated: timeKey(d.updated_at as string | null),
      }
    })
    const byName = [...this.entries].sort((a, b) => nameCollator.compare(a.detail.name as string, b.detail.name as string) || a.id - b.id)
    byName.forEach((e, i) => { e.nameRank = i })
    // Default order: name ascending.
    this.entries = byName
    for (const e of this.entries) this.byId.set(e.id, e)
    this.statuses = statuses.map((s) => ({ id: s.id as number, geoservice: s.geoservice as number,
      status: s.cumulative_status as string, checkAt: timeKey(s.check_at as string), json: drfJson(s) }))
      .sort((a, b) => a.checkAt - b.checkAt || a.id - b.id)
    for (const s of this.statuses) this.statusById.set(String(s.id), s)
    this.icons = icons.map((i) => ({ ...i, nameUp: i.name.toUpperCase(), json: drfJson({ id: i.id, guid: i.guid, name: i.name }) }))
      .sort((a, b) => a.id - b.id)
    for (const i of this.icons) this.iconById.set(i.id, i)
  }
}

export interface ServiceFilter {
  type?: string
  epsg?: number
  status?: string
  terms?: string[]
  intersectsExtent?: Shape
  intersectsBoundary?: Shape
  /** [field, descending] pairs; empty keeps name ascending. */
  ordering: Array<[OrderField, boolean]>
}

export type OrderField = 'name' | 'id' | 'created_at' | 'updated_at'

const KEY: Record<OrderField, (e: Entry) => number> = {
  name: (e) => e.nameRank, id: (e) => e.id, created_at: (e) => e.created, updated_at: (e) => e.updated,
}

/** Upper-cased search terms of every term present in name or desc (reference §7.1). */
export function matchesTerms(nameUp: string, descUp: string | null, terms: string[]): boolean {
  for (const t of terms) if (!nameUp.includes(t) && !(descUp !== null && descUp.includes(t))) return false
  return true
}

export function filterServices(ix: CatalogueIndex, f: ServiceFilter): Entry[] {
  const out: Entry[] = []
  for (const e of ix.entries) {
    if (f.type !== undefined && e.type !== f.type) continue
    if (f.epsg !== undefined && e.epsg !== f.epsg) continue
    if (f.status !== undefined && e.status !== f.status) continue
    if (f.terms && !matchesTerms(e.nameUp, e.descUp, f.terms)) continue
    if (f.intersectsExtent && !(e.extent && intersects(e.extent, f.intersectsExtent))) continue
    if (f.intersectsBoundary && !(e.boundary && intersects(e.boundary, f.intersectsBoundary))) continue
    out.push(e)
  }
  if (f.ordering.length && !(f.ordering.length === 1 && f.ordering[0]![0] === 'name' && !f.ordering[0]![1])) {
    // Null times are +Infinity: last ascending, first descending, as in PostgreSQL.
    out.sort((a, b) => {
      for (const [field, desc] of f.ordering) {
        const ka = KEY[field](a), kb = KEY[field](b)
        if (ka !== kb) return (ka < kb ? -1 : 1) * (desc ? -1 : 1)
      }
      return a.id - b.id
    })
  }
  return out
}
