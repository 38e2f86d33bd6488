/**
 * @module sqlite/tokens
 * The change tokens of the SQLite port (issue 22): `${serial}:${version}` of the database
 * behind a scope. `Database.version` moves after a saved write, a failed save and a reopen after the
 * storage failed (not after a reopen that follows a release for memory: same content);
 * the serial tells two instances apart (a reopened layer restarts its count). So a token
 * moves exactly when the caches keyed on `Database.version` drop entries today. No `refresh`:
 * one process owns its folder (sw/host/node-lock.ts).
 */
import type { Database } from '../store/database.ts'
import type { ChangeScope, ChangeTokens } from '../port/port.ts'

const serials = new WeakMap<Database, number>()
let lastSerial = 0

/** The token of one database; 'closed' when it is not open. */
export function tokenOf(db: Database | undefined): string {
  if (!db) return 'closed'
  let serial = serials.get(db)
  if (serial === undefined) serials.set(db, serial = ++lastSerial)
  return `${serial}:${db.version}`
}

export class SqliteTokens implements ChangeTokens {
  readonly #main: Database
  /** The catalogue's and the layers' databases, while open. */
  readonly #others = new Map<ChangeScope, Database>()

  constructor(main: Database) {
    this.#main = main
  }

  current(scope: ChangeScope): string {
    return tokenOf(scope === 'main' ? this.#main : this.#others.get(scope))
  }

  /**
   * Whoever opens the catalogue's or a layer's database says so here (and `undefined` when it
   * closes it); until then its scope is 'closed', and opening it moves the token.
   */
  track(scope: Exclude<ChangeScope, 'main'>, db: Database | undefined): void {
    if (db) this.#others.set(scope, db)
    else this.#others.delete(scope)
  }
}
