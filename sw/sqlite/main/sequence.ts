/**
 * @module sqlite/main/sequence
 * Row ids taken ahead of time from an AUTOINCREMENT table of the main database. An ingest
 * builds the layer's storage under its final name (`layer-<id>`, columns `fld_<field id>`)
 * before the resource row exists; the ids it will get are reserved first, in a write that
 * changes nothing visible. AUTOINCREMENT never hands out an id twice, so a reservation that
 * is never used (a refused file, a stopped worker) leaves only a gap.
 */
import type { SqlDb } from '../../store/database.ts'

/** Reserves `count` consecutive ids of `table` (inside the caller's write); returns the first. */
export function reserveIds(db: SqlDb, table: 'resource' | 'layer_field', count: number): number {
  const seq = db.selectValue(`SELECT seq FROM sqlite_sequence WHERE name = ?`, [table]) as number | undefined
  const max = Number(db.selectValue(`SELECT coalesce(max(id), 0) FROM ${table}`))
  const first = Math.max(Number(seq ?? 0), max) + 1
  if (count <= 0) return first
  if (seq === undefined) db.exec({ sql: `INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)`, bind: [table, first + count - 1] })
  else db.exec({ sql: `UPDATE sqlite_sequence SET seq = ? WHERE name = ?`, bind: [first + count - 1, table] })
  return first
}
