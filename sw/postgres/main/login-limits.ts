/**
 * @module postgres/main/login-limits
 * The login limiter's state (`LoginLimitRead/Write`, table `login_limit`), as
 * sqlite/main/login-limits.ts: shared by every process on the database, so neither a restart
 * nor another process hands a password guesser fresh attempts. Forgotten keys are pruned by
 * the writes.
 */
import type { LoginLimitRead, LoginLimitWrite } from '../../auth/repository.ts'
import { FORGET_MS, type LimitEntry } from '../../auth/rate-limit.ts'
import type { PgConn } from '../conn.ts'

export const loginLimitsRead = (db: PgConn): LoginLimitRead => ({
  /** The saved state of every key not yet forgotten at `now`. */
  load: async (now) => {
    const rows = await db.rows<{ key: string; failures: number; locked_until: number; last: number }>(
      'SELECT key, failures, locked_until, last FROM login_limit WHERE last >= $1 OR locked_until > $2', [now - FORGET_MS, now])
    return rows.map((r) => [r.key, { failures: r.failures, lockedUntil: r.locked_until, last: r.last }])
  },
})

export const loginLimitsWrite = (db: PgConn): LoginLimitWrite => ({
  ...loginLimitsRead(db),
  /** Saves (or, for `undefined`, removes) the state of some keys, and prunes forgotten ones. */
  save: async (entries, now) => {
    // The last entry of a key wins, as if saved one by one (one upsert may not touch a row twice).
    const last = new Map<string, LimitEntry | undefined>(entries)
    const kept = [...last].filter((e): e is [string, LimitEntry] => !!e[1])
    const gone = [...last].filter(([, e]) => !e).map(([key]) => key)
    if (kept.length) {
      await db.exec(`INSERT INTO login_limit (key, failures, locked_until, last)
        SELECT * FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::bigint[])
        ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until, last = excluded.last`,
      [kept.map(([k]) => k), kept.map(([, e]) => e.failures), kept.map(([, e]) => e.lockedUntil), kept.map(([, e]) => e.last)])
    }
    if (gone.length) await db.exec('DELETE FROM login_limit WHERE key = ANY($1::text[])', [gone])
    await db.exec('DELETE FROM login_limit WHERE last < $1 AND locked_until <= $2', [now - FORGET_MS, now])
  },
})
