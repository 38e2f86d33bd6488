/**
 * @module store/request-log
 * The answers of keyed writes (`Idempotency-Key`, core/idempotency.ts), kept in the database
 * the write changes (a layer's, or the main one for resource creation) so that recording one
 * commits or rolls back with the write it answers. The table is made by the first keyed write;
 * answers older than a day are dropped by later ones.
 */
import type { SqlDb } from './database.ts'
import type { PastRequest } from '../core/idempotency.ts'

export const REQUEST_LOG = 'outpost_request_log'
/** How long an answer is kept, in seconds (clients retry within minutes, not days). */
const KEEP = 24 * 3600

/** The recorded answer of the request with `key`, if there is one. */
export function pastRequest(db: SqlDb, key: string): PastRequest | undefined {
  const made = db.selectValue(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, [REQUEST_LOG])
  if (!made) return undefined
  const row = db.selectArray(`SELECT fingerprint, body FROM ${REQUEST_LOG} WHERE key = ?`, [key])
  return row ? { fingerprint: String(row[0]), body: String(row[1]) } : undefined
}

/** Records the answer of a keyed write, inside that write's transaction. */
export function recordRequest(db: SqlDb, key: string, fingerprint: string, body: string, now: number): void {
  db.exec(`CREATE TABLE IF NOT EXISTS ${REQUEST_LOG} (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL,
    tstamp INTEGER NOT NULL, body TEXT NOT NULL)`)
  db.exec({ sql: `DELETE FROM ${REQUEST_LOG} WHERE tstamp < ?`, bind: [now - KEEP] })
  db.exec({ sql: `INSERT INTO ${REQUEST_LOG} (key, fingerprint, tstamp, body) VALUES (?, ?, ?, ?)`, bind: [key, fingerprint, now, body] })
}
