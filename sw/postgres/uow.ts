/**
 * @module postgres/uow
 * Units of work and reads on PostgreSQL (issue 23). Several processes share the database, so
 * what SQLite's one queue gave for free is asked of the server:
 * - Units of work of this process queue up in the order they were asked for (FIFO, as on
 *   SQLite: a client's writes sent one after another apply in that order), and each takes the
 *   main data's advisory lock first (`pg_advisory_xact_lock`), so the
 *   units of work of every process run one at a time, as on SQLite; at READ COMMITTED each
 *   statement after the lock sees everything committed before it, so a check and the write it
 *   guards cannot be split by another process's write (the tree's invariants, unique names).
 *   It moves the 'main' change counter last (tokens.ts) and commits.
 * - A deadlock (40P01) or a serialization failure (40001) rolls back and runs `fn` again (the
 *   port allows it), a few times with a growing pause; a lost connection is not retried (the
 *   COMMIT may have happened).
 * - A read is one REPEATABLE READ READ ONLY transaction: one snapshot, taken after every write
 *   acknowledged before the call. Its BEGIN is sent with its first statement: a read that
 *   needs none costs nothing.
 */
import type pg from 'pg'
import { enterFrame, liveness, type Frame, type Frames } from '../port/frames.ts'
import { connOf, type PgConn } from './conn.ts'

/** The advisory lock key of the main data's units of work (0x6f7574705f6d61, 'outp_ma'). */
export const MAIN_LOCK = '31372865376841057'

/** Makes the repositories of one unit of work over its connection; `live()` throws once it has ended. */
export type PgTxFactory<Tx> = (conn: PgConn, live: () => void) => Tx

const RETRIED = new Set(['40001', '40P01'])
const ATTEMPTS = 5

/**
 * What a unit of work does right before COMMIT, inside the transaction (moving the change
 * counters). Not sent with COMMIT in one round trip: a COMMIT the server holds is carried out
 * even if the process dies meanwhile, and a process killed while its last statement waits (for
 * the change sequence's row lock) must leave nothing (test/api/team-processes.test.ts).
 */
export type BeforeCommit = (conn: PgConn) => Promise<() => void>

export class PgUnits {
  readonly #pool: pg.Pool
  readonly #frames: Frames | undefined
  readonly #name: string
  /** The advisory lock every unit of work takes first: the main data's, or a layer's (tx.ts `layerLock`). */
  readonly #lock: string
  /** Settles when the last unit of work asked for in this process has ended. */
  #tail: Promise<void> = Promise.resolve()

  constructor(pool: pg.Pool, name: string, frames?: Frames, lock: string = MAIN_LOCK) {
    // Sent as a literal with BEGIN (below): digits only.
    if (!/^\d{1,19}$/.test(lock)) throw new Error(`Not an advisory lock key: ${lock}`)
    this.#pool = pool
    this.#name = name
    this.#lock = lock
    this.#frames = frames
  }

  /**
   * One transaction under the main lock: durable when it resolves, nothing of it kept when it
   * rejects. `beforeCommit` runs last inside it; what it returns runs once COMMIT succeeded.
   */
  write<Tx, T>(make: PgTxFactory<Tx>, fn: (tx: Tx) => Promise<T>, beforeCommit?: BeforeCommit): Promise<T> {
    return enterFrame(this.#frames, this, this.#name, async (outer) => {
      const before = this.#tail
      let done!: () => void
      this.#tail = new Promise((resolve) => { done = resolve })
      try {
        await before
        return await this.#attempts(make, fn, beforeCommit)
      } finally {
        outer.open = false
        done()
      }
    })
  }

  async #attempts<Tx, T>(make: PgTxFactory<Tx>, fn: (tx: Tx) => Promise<T>, beforeCommit?: BeforeCommit): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.#pool.connect()
      let broken: Error | undefined
      try {
        // BEGIN and the lock in one round trip.
        await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${this.#lock})`)
        const conn = connOf(client, true)
        const out = await this.#run(make, conn, fn)
        const after = await beforeCommit?.(conn)
        await client.query('COMMIT')
        after?.()
        return out
      } catch (err) {
        broken = await rollback(client, err)
        if (!broken && RETRIED.has((err as { code?: string }).code ?? '') && attempt < ATTEMPTS) {
          await new Promise((r) => setTimeout(r, 5 * 2 ** attempt * Math.random()))
          continue
        }
        throw err
      } finally {
        client.release(broken)
      }
    }
  }

  /** One consistent snapshot, taken after every write acknowledged before the call. */
  read<Tx, T>(make: PgTxFactory<Tx>, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return enterFrame(this.#frames, this, this.#name, async (frame) => {
      const client = await this.#pool.connect()
      let broken: Error | undefined
      // BEGIN waits for the first statement: a read answered from caches (the ACL's token
      // while the 'main' counter stands still, tx.ts) costs no round trip at all.
      let begun: Promise<unknown> | undefined
      try {
        const conn = lazily(connOf(client, true), () => (begun ??= client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')))
        const out = await this.#run(make, conn, fn)
        if (begun) await client.query('COMMIT')
        return out
      } catch (err) {
        if (begun) broken = await rollback(client, err)
        throw err
      } finally {
        frame.open = false
        client.release(broken)
      }
    })
  }

  /**
   * `fn`'s one statement on its own, outside BEGIN … COMMIT: a statement is its own snapshot
   * (taken after every write acknowledged before the call), and a read that is one statement
   * (a vector tile's `ST_AsMVT`: features/tile.ts) saves a transaction's two round trips. `fn`
   * gets the client itself (to run a named, prepared statement).
   */
  once<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return enterFrame(this.#frames, this, this.#name, async (frame) => {
      const client = await this.#pool.connect()
      let broken: Error | undefined
      try {
        return await fn(client)
      } catch (err) {
        // Only an answer of the server leaves the connection usable.
        if (!(err as { severity?: unknown }).severity) broken = err instanceof Error ? err : new Error(String(err))
        throw err
      } finally {
        frame.open = false
        client.release(broken)
      }
    })
  }

  /** `fn` on a `tx` that refuses use once `fn` settled (each attempt of a unit of work has its own). */
  async #run<Tx, T>(make: PgTxFactory<Tx>, conn: PgConn, fn: (tx: Tx) => Promise<T>): Promise<T> {
    const frame: Frame = { owner: this, name: this.#name, open: true }
    try {
      return await fn(make(conn, liveness(frame)))
    } finally {
      frame.open = false
    }
  }
}

/**
 * `conn` whose every statement first awaits `before()` (which runs once: the read's deferred
 * BEGIN). Statements asked for together (a `Promise.all` in a read) go one after another: they
 * would all wake from the same BEGIN at once, and `pg` deprecates queueing on a busy client.
 */
function lazily(conn: PgConn, before: () => Promise<unknown>): PgConn {
  let tail: Promise<unknown> = Promise.resolve()
  const inTurn = <T>(run: () => Promise<T>): Promise<T> => {
    const out = tail.then(before).then(run)
    tail = out.catch(() => undefined)
    return out
  }
  return {
    rows: <T>(text: string, params?: readonly unknown[]) => inTurn(() => conn.rows<T>(text, params)),
    row: <T>(text: string, params?: readonly unknown[]) => inTurn(() => conn.row<T>(text, params)),
    value: <T>(text: string, params?: readonly unknown[]) => inTurn(() => conn.value<T>(text, params)),
    exec: (text, params) => inTurn(() => conn.exec(text, params)),
  }
}

/** Rolls back after `err`; returns an error when the connection is unusable (so the pool drops it). */
export async function rollback(client: pg.PoolClient, err: unknown): Promise<Error | undefined> {
  try {
    await client.query('ROLLBACK')
    return undefined
  } catch {
    return err instanceof Error ? err : new Error(String(err))
  }
}
