/**
 * @module postgres/tokens
 * The change tokens of the PostgreSQL port (issue 23): one counter row per scope
 * (`outpost_change`), moved by every unit of work that may have changed the scope, in its
 * transaction, so a token is never seen before the data it stands for. A process sees another's
 * commit on its next request (`refresh()`, once per request, by the app); its own commits it
 * knows at once (`move`'s answer). A token is `${open}:${n}`: `open` tells this opening of the
 * port from an earlier one.
 *
 * One change sequence orders them all: the row of scope `*` is the database's clock, and a move
 * sets each scope it moves to the clock's next value. So `refresh()` asks only for the rows
 * past the highest value it has seen (`WHERE n > $1`, an index on `n`): nothing at all while
 * nothing changed, one row per scope that changed since, whatever the number of layers ever
 * written (reading every row was one row per layer, per request). That misses nothing because
 * the clock's row lock, held to the commit, makes commits take clock values in the order they
 * become visible: a snapshot that sees value k sees every value below it. A process's own
 * moves never raise the refresh's mark (another process's lower value may not be read yet).
 */
import type { ChangeScope, ChangeTokens } from '../port/port.ts'
import type { PgConn } from './conn.ts'

let opened = 0

/** The scope of the clock row: every move takes its next value. */
export const CLOCK = '*'

/**
 * Moves the scopes `$1` (a text array) to the clock's next value, in one statement: what a
 * unit of work runs last, and the migration's copy (restore.ts) with every scope.
 */
export const MOVE = `WITH clock AS (UPDATE outpost_change SET n = n + 1 WHERE scope = '${CLOCK}' RETURNING n)
  INSERT INTO outpost_change (scope, n) SELECT s, clock.n FROM unnest($1::text[]) AS s, clock
  ON CONFLICT (scope) DO UPDATE SET n = excluded.n RETURNING scope, n`

export class PgTokens implements ChangeTokens {
  readonly #open = ++opened
  readonly #known = new Map<string, number>()
  readonly #read: (after: number) => Promise<{ scope: string; n: number }[]>
  /** The highest clock value a refresh has read: every change up to it is known. */
  #seen = 0

  /**
   * `read(after)` runs `SELECT scope, n FROM outpost_change WHERE n > $1` outside any transaction,
   * leaving out the clock's row (every move gives the scopes it moves the clock's value, so the
   * highest of them is the clock's).
   */
  constructor(read: (after: number) => Promise<{ scope: string; n: number }[]>) {
    this.#read = read
  }

  current(scope: ChangeScope): string {
    return `${this.#open}:${this.#known.get(scope) ?? 0}`
  }

  async refresh(): Promise<void> {
    for (const { scope, n } of await this.#read(this.#seen)) {
      this.#note(scope, n)
      if (n > this.#seen) this.#seen = n
    }
  }

  /**
   * Moves the counters of `scopes` inside a unit of work (its last statement); what it returns
   * records the new values once the commit succeeded.
   */
  async move(conn: PgConn, scopes: Iterable<ChangeScope>): Promise<() => void> {
    const moved = await conn.rows<{ scope: string; n: number }>(MOVE, [[...scopes]])
    return () => { for (const { scope, n } of moved) this.#note(scope, n) }
  }

  /** Counters only go up: an answer older than what this process already knows is ignored. */
  #note(scope: string, n: number): void {
    if (n > (this.#known.get(scope) ?? 0)) this.#known.set(scope, n)
  }
}
