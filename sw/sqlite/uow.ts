/**
 * @module sqlite/uow
 * Units of work and reads over one SQLite `Database` (issue 22, docs/architecture.md "Data
 * port"). A unit of work is `Database.transaction`: the queue is held while `fn` awaits, COMMIT
 * runs once `fn` has settled, and the durable save before it resolves. Two guards turn
 * mistakes that an `await` makes easy into errors:
 * - the `tx` refuses use once `fn` has settled, so a leaked `tx` throws instead of writing
 *   outside any transaction;
 * - where the platform has async-local storage (Node), a unit of work or read started inside
 *   another on the same database throws `nested unit of work on '<name>'`: it would wait
 *   behind itself forever in the queue.
 */
import type { Database, SqlDb } from '../store/database.ts'
import type { AsyncContext } from '../platform/platform.ts'

/** A unit of work or read in progress on one database (by identity: one process may run several apps). */
interface Frame { db: Database; open: boolean }
export type Frames = AsyncContext<readonly Frame[]>

/** Makes the repositories of one unit of work over its connection; `live()` throws once it has ended. */
export type TxFactory<Tx> = (db: SqlDb, live: () => void) => Tx

export class Units {
  readonly #db: Database
  readonly #frames: Frames | undefined

  constructor(db: Database, frames?: Frames) {
    this.#db = db
    this.#frames = frames
  }

  /** One transaction: durable when it resolves, nothing of it kept when it rejects. */
  write<Tx, T>(make: TxFactory<Tx>, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#enter((frame) => this.#db.transaction((db) => this.#run(frame, make, db, fn)))
  }

  /** One read after every write queued before it. */
  read<Tx, T>(make: TxFactory<Tx>, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#enter((frame) => this.#db.readAsync((db) => this.#run(frame, make, db, fn)))
  }

  async #run<Tx, T>(frame: Frame, make: TxFactory<Tx>, db: SqlDb, fn: (tx: Tx) => Promise<T>): Promise<T> {
    const live = () => {
      if (!frame.open) throw new Error(`The unit of work on '${frame.db.name}' has ended: its tx cannot be used any more.`)
    }
    try {
      return await fn(make(db, live))
    } finally {
      frame.open = false
    }
  }

  #enter<T>(run: (frame: Frame) => Promise<T>): Promise<T> {
    const outer = this.#frames?.getStore() ?? []
    if (outer.some((f) => f.open && f.db === this.#db)) {
      return Promise.reject(new Error(`nested unit of work on '${this.#db.name}': it would wait behind itself (await only tx.* inside one)`))
    }
    const frame: Frame = { db: this.#db, open: true }
    return this.#frames ? this.#frames.run([...outer, frame], () => run(frame)) : run(frame)
  }
}
