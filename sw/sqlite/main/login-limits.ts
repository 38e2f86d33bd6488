/**
 * @module sqlite/main/login-limits
 * The login limiter's state in the main database (`LoginLimitRead/Write`, table `login_limit`,
 * migration 6). A service worker is stopped after half a minute without requests and Chromium
 * starts a new one for the next: kept only in memory, every restart would hand a password
 * guesser five fresh attempts. Forgotten keys are pruned by the writes.
 */
import type { SqlDb } from '../../store/database.ts'
import type { LoginLimitRead, LoginLimitWrite } from '../../auth/repository.ts'
import { FORGET_MS } from '../../auth/rate-limit.ts'

export const loginLimitsRead = (db: SqlDb): LoginLimitRead => ({
  /** The saved state of every key not yet forgotten at `now`. */
  load: async (now) => {
    const rows = db.selectArrays('SELECT key, failures, locked_until, last FROM login_limit WHERE last >= ? OR locked_until > ?',
      [now - FORGET_MS, now]) as Array<[string, number, number, number]>
    return rows.map(([key, failures, lockedUntil, last]) => [key, { failures, lockedUntil, last }])
  },
})

export const loginLimitsWrite = (db: SqlDb): LoginLimitWrite => ({
  ...loginLimitsRead(db),
  /** Saves (or, for `undefined`, removes) the state of some keys, and prunes forgotten ones. */
  save: async (entries, now) => {
    for (const [key, e] of entries) {
      if (e) {
        db.exec({ sql: `INSERT INTO login_limit (key, failures, locked_until, last) VALUES (?, ?, ?, ?)
          ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until, last = excluded.last`,
        bind: [key, e.failures, e.lockedUntil, e.last] })
      } else {
        db.exec({ sql: 'DELETE FROM login_limit WHERE key = ?', bind: [key] })
      }
    }
    db.exec({ sql: 'DELETE FROM login_limit WHERE last < ? AND locked_until <= ?', bind: [now - FORGET_MS, now] })
  },
})
