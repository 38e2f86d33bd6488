/**
 * @module postgres/main/requests
 * The answers of keyed writes on the main data (`RequestLogRead/Write`), recorded in the write's
 * own transaction; answers older than a day are dropped by later ones (clients retry within
 * minutes, not days).
 */
import type { RequestLogRead, RequestLogWrite } from '../../resource/repository.ts'
import type { PgConn } from '../conn.ts'

/** How long an answer is kept, in seconds. */
const KEEP = 24 * 3600

export const requestsRead = (db: PgConn): RequestLogRead => ({
  past: async (key) => db.row<{ fingerprint: string; body: string }>('SELECT fingerprint, body FROM outpost_request_log WHERE key = $1', [key]),
})

export const requestsWrite = (db: PgConn): RequestLogWrite => ({
  ...requestsRead(db),
  record: async (key, fingerprint, body, now) => {
    await db.exec('DELETE FROM outpost_request_log WHERE tstamp < $1', [now - KEEP])
    await db.exec('INSERT INTO outpost_request_log (key, fingerprint, tstamp, body) VALUES ($1, $2, $3, $4)', [key, fingerprint, now, body])
  },
})
