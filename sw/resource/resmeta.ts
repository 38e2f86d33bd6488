/**
 * @module resource/resmeta
 * Resource metadata: `{items: {key: string | number | boolean | null}}` on every resource.
 */
import { validationError } from '../core/error.ts'
import { expectObject } from '../core/validate.ts'
import type { SqlDb } from '../store/database.ts'

export type ResmetaValue = string | number | boolean | null

export function readResmeta(db: SqlDb, id: number): Record<string, ResmetaValue> {
  const rows = db.selectObjects(`SELECT key, value FROM resmeta WHERE resource_id = ? ORDER BY key`, [id]) as { key: string; value: string }[]
  return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as ResmetaValue]))
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
