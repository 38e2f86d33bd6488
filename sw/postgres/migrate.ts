/**
 * @module postgres/migrate
 * The PostgreSQL schema, brought by its components (`postgres/schema/*.ts`, in PostgreSQL's
 * dialect, the same tables and meanings as SQLite's), and `outpost_schema` recording how many
 * steps of each have run. Runs at start in one transaction under an advisory lock, so two
 * processes starting together migrate once, and a failed step leaves the database as it was.
 */
import type { ComponentSchema } from '../port/schema.ts'
import type { PgConn } from './conn.ts'
import { PG_SCHEMA } from './schema/index.ts'

/** The advisory lock key of migrations (0x6f7574705f6d67, 'outp_mg'). */
const MIGRATE_LOCK = '31372865376841063'

/** Brings the schema up to date; `conn` is in a transaction. Refuses a database from a newer version. */
export async function migratePg(conn: PgConn, schema: readonly ComponentSchema[] = PG_SCHEMA): Promise<void> {
  await conn.exec('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK])
  await conn.exec('CREATE TABLE IF NOT EXISTS outpost_schema (component TEXT PRIMARY KEY, version INTEGER NOT NULL)')
  const done = new Map((await conn.rows<{ component: string; version: number }>('SELECT component, version FROM outpost_schema'))
    .map((r) => [r.component, r.version]))
  for (const { component, steps } of schema) {
    const from = done.get(component) ?? 0
    if (from > steps.length) {
      throw new Error(`The database's ${component} schema is from a newer version (step ${from}; this one knows ${steps.length}).`)
    }
    if (from === steps.length) continue
    for (let v = from; v < steps.length; v++) await conn.exec(steps[v]!)
    await conn.exec(`INSERT INTO outpost_schema VALUES ($1, $2) ON CONFLICT (component) DO UPDATE SET version = excluded.version`,
      [component, steps.length])
  }
}
