/**
 * @module postgres/exclusive
 * `DataPort.exclusive` on PostgreSQL: a key held by one process at a time across every process
 * on the database (two sync rounds of one layer, sw/sync/round.ts). A session advisory lock
 * (`pg_try_advisory_lock`) on a connection of the pool kept for as long as it is held: the server
 * releases it when that session ends, so a process that dies (SIGKILL, a lost machine once TCP
 * keepalive notices) frees it without any expiry to tune; a lease row would need one. The key is
 * hashed into the lock's 64-bit space (`hashtextextended`), apart from the units of work's
 * transaction locks (uow.ts) which the session lock never blocks.
 */
import type pg from 'pg'

/** Holds `key` on a connection of its own; `undefined` (the connection given back) when another session holds it. */
export async function exclusive(pool: pg.Pool, key: string): Promise<(() => Promise<void>) | undefined> {
  const client = await pool.connect()
  const lock = ['outpost:' + key]
  let got = false
  try {
    got = (await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got', lock)).rows[0]!.got
  } finally {
    if (!got) client.release()
  }
  if (!got) return undefined
  let released = false
  return async () => {
    if (released) return
    released = true
    try {
      await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', lock)
      client.release()
    } catch (err) {
      // The session is gone (and its lock with it) or unusable: the pool drops the connection.
      client.release(err instanceof Error ? err : new Error(String(err)))
    }
  }
}
