/**
 * @module sqlite/main/sessions
 * Sessions in the main database (`SessionRead/Write`, table `session`), keyed by the SHA-256
 * of their id (auth/service.ts makes the key), so the table holds nothing to log in with.
 */
import type { SqlDb } from '../../store/database.ts'
import type { SessionRead, SessionWrite } from '../../auth/repository.ts'
import { toPrincipal, type UserRow } from '../../auth/rows.ts'
import { USER_COLUMNS } from './principals.ts'

export const sessionsRead = (db: SqlDb): SessionRead => ({
  user: async (key, now) => {
    const row = db.selectObject(`SELECT ${USER_COLUMNS} FROM session s JOIN principal p ON p.id = s.user_id
      WHERE s.id = ? AND s.expires > ?`, [key, now.toISOString()]) as UserRow | undefined
    return row && !row.disabled ? toPrincipal(row) : undefined
  },
})

export const sessionsWrite = (db: SqlDb): SessionWrite => ({
  ...sessionsRead(db),
  create: async (key, userId, now, expires) => {
    db.exec({ sql: `DELETE FROM session WHERE expires < ?`, bind: [now.toISOString()] })
    db.exec({ sql: `INSERT INTO session (id, user_id, created, expires) VALUES (?, ?, ?, ?)`,
      bind: [key, userId, now.toISOString(), expires.toISOString()] })
  },
  delete: async (key) => { db.exec({ sql: `DELETE FROM session WHERE id = ?`, bind: [key] }) },
  endAll: async (userId, keep) => {
    db.exec({ sql: `DELETE FROM session WHERE user_id = ? AND id IS NOT ?`, bind: [userId, keep ?? null] })
  },
})
