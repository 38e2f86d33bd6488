/**
 * @module sqlite/uow
 * Units of work and reads over one SQLite `Database` (issue 22, docs/architecture.md "Data
 * port"). A unit of work is `Database.transaction`: the queue is held while `fn` awaits, COMMIT
 * runs once `fn` has settled, and the durable save before it resolves. The guards against a
 * leaked `tx` and a nested unit of work are port/frames.ts's.
 */
import type { Database, SqlDb } from '../store/database.ts'
import { enterFrame, liveness, type Frame, type Frames } from '../port/frames.ts'

export type { Frames }

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
    return enterFrame(this.#frames, this.#db, this.#db.name, (frame) => this.#db.transaction((db) => this.#run(frame, make, db, fn)))
  }

  /** One read after every write queued before it. */
  read<Tx, T>(make: TxFactory<Tx>, fn: (tx: Tx) => Promise<T>): Promise<T> {
    return enterFrame(this.#frames, this.#db, this.#db.name, (frame) => this.#db.readAsync((db) => this.#run(frame, make, db, fn)))
  }

  async #run<Tx, T>(frame: Frame, make: TxFactory<Tx>, db: SqlDb, fn: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await fn(make(db, liveness(frame)))
    } finally {
      frame.open = false
    }
  }
}
