/**
 * @module postgres/main/sessions
 * Sessions (`SessionRead/Write`, table `session`), keyed by the SHA-256 of their id
 * (auth/service.ts makes the key), as sqlite/main/sessions.ts. Times are ISO text.
 */
import type { SessionRead, SessionWrite } from '../../auth/repository.ts'
import { toPrincipal, type UserRow } from '../../auth/rows.ts'
import type { PgConn } from '../conn.ts'
import { USER_COLUMNS } from './principals.ts'

export const sessionsRead = (db: PgConn): SessionRead => ({
  user: async (key, now) => {
    const row = await db.row<UserRow>(`SELECT ${USER_COLUMNS} FROM session s JOIN principal p ON p.id = s.user_id
      WHERE s.id = $1 AND s.expires > $2`, [key, now.toISOString()])
    return row && !row.disabled ? toPrincipal(row) : undefined
  },
})

export const sessionsWrite = (db: PgConn): SessionWrite => ({
  ...sessionsRead(db),
  create: async (key, userId, now, expires) => {
    await db.exec('DELETE FROM session WHERE expires < $1', [now.toISOString()])
    await db.exec('INSERT INTO session (id, user_id, created, expires) VALUES ($1, $2, $3, $4)',
      [key, userId, now.toISOString(), expires.toISOString()])
  },
  delete: async (key) => { await db.exec('DELETE FROM session WHERE id = $1', [key]) },
  endAll: async (userId, keep) => {
    await db.exec('DELETE FROM session WHERE user_id = $1 AND id IS DISTINCT FROM $2::text', [userId, keep ?? null])
  },
})
