// port: legacy-sql (issue 22)
/**
 * @module resource/resmeta
 * Resource metadata: `{items: {key: string | number | boolean | null}}` on every resource.
 */
import { validationError } from '../core/error.ts'
import { expectObject } from '../core/validate.ts'
import type { SqlDb } from '../store/database.ts'

export type ResmetaValue = string | number | boolean | null

export function readResmeta(db: SqlDb, id: number): Record<string, ResmetaValue> {
  return readResmetaOf(db, [id]).get(id) ?? {}
}

/** The metadata of every resource of `ids` in one query (a listing's page); absent ids have none. */
export function readResmetaOf(db: SqlDb, ids: readonly number[]): Map<number, Record<string, ResmetaValue>> {
  const out = new Map<number, Record<string, ResmetaValue>>()
  const rows = db.selectObjects(`SELECT resource_id, key, value FROM resmeta
    WHERE resource_id IN (SELECT value FROM json_each(?)) ORDER BY resource_id, key`, [JSON.stringify(ids)]) as { resource_id: number; key: string; value: string }[]
  for (const r of rows) {
    let items = out.get(r.resource_id)
    if (!items) out.set(r.resource_id, items = {})
    items[r.key] = JSON.parse(r.value) as ResmetaValue
  }
  return out
}

/**
 * Sets the items of a resource's metadata. As the original does, the map sent is the whole
 * new set: keys it does not name are removed.
 */
export function applyResmeta(db: SqlDb, id: number, member: unknown): void {
  const m = expectObject(member, '$.resmeta')
  if (m.items === undefined) return
  const items = expectObject(m.items, '$.resmeta.items')
  for (const [k, v] of Object.entries(items)) {
    const ok = v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
    if (!ok) throw validationError(`Expected \`str | int | float | bool | null\` - at \`$.resmeta.items.${k}\``)
  }
  db.exec({ sql: `DELETE FROM resmeta WHERE resource_id = ?`, bind: [id] })
  for (const [k, v] of Object.entries(items)) {
    db.exec({ sql: `INSERT INTO resmeta (resource_id, key, value) VALUES (?, ?, ?)`, bind: [id, k, JSON.stringify(v)] })
  }
}
