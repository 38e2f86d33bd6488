/**
 * @module postgres/main/sequence
 * Row ids of `resource` and `layer_field` as SQLite's AUTOINCREMENT hands them out: after the
 * largest ever used or reserved (`outpost_sequence` and `outpost_reserve`, schema/resources.ts).
 * An ingest reserves the ids of the layer it builds in a unit of work of its own; a
 * reservation inside a unit of work that rolls back is rolled back with it.
 */
import type { PgConn } from '../conn.ts'

export type IdTable = 'resource' | 'layer_field'

/** Reserves `count` consecutive ids of `table` (inside the caller's write); returns the first. */
export async function reserveIds(db: PgConn, table: IdTable, count: number): Promise<number> {
  return Number(await db.value('SELECT outpost_reserve($1, $2)', [table, Math.max(0, count)]))
}

/**
 * `insert` (an INSERT into `table` that names its id) made to also record that id as used, as
 * AUTOINCREMENT does: a resource made with a given id and deleted leaves its id taken.
 * An insert without an id needs none of this: the column's default reserves it.
 */
export const keepingId = (table: IdTable, insert: string): string => `WITH r AS (${insert} RETURNING id),
  s AS (INSERT INTO outpost_sequence (name, seq) SELECT '${table}', id FROM r
    ON CONFLICT (name) DO UPDATE SET seq = greatest(outpost_sequence.seq, excluded.seq))
  SELECT id FROM r`
