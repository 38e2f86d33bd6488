/**
 * @module postgres/tokens
 * The change tokens of the PostgreSQL port (issue 23): one counter row per scope
 * (`outpost_change`), moved by every unit of work that may have changed the scope, in its
 * transaction, so a token is never seen before the data it stands for. `refresh()` (once per
 * request, by the app) reads every counter in one query: a process sees another's commit on its
 * next request, never a moment later. Its own commits it knows at once (`moved`). A token is
 * `${open}:${n}`: `open` tells this opening of the port from an earlier one.
 */
import type { ChangeScope, ChangeTokens } from '../port/port.ts'
import type { PgConn } from './conn.ts'

let opened = 0

export class PgTokens implements ChangeTokens {
  readonly #open = ++opened
  readonly #known = new Map<string, number>()
  readonly #read: () => Promise<{ scope: string; n: number }[]>

  /** `read` runs `SELECT scope, n FROM outpost_change` outside any transaction. */
  constructor(read: () => Promise<{ scope: string; n: number }[]>) {
    this.#read = read
  }

  current(scope: ChangeScope): string {
    return `${this.#open}:${this.#known.get(scope) ?? 0}`
  }

  async refresh(): Promise<void> {
    for (const { scope, n } of await this.#read()) this.#note(scope, n)
  }

  /**
   * Moves the counters of `scopes` inside a unit of work (its last statements); what it returns
   * records the new values once the commit succeeded.
   */
  async move(conn: PgConn, scopes: Iterable<ChangeScope>): Promise<() => void> {
    const moved: [string, number][] = []
    for (const scope of scopes) {
      const n = await conn.value<number>(`INSERT INTO outpost_change (scope, n) VALUES ($1, 1)
        ON CONFLICT (scope) DO UPDATE SET n = outpost_change.n + 1 RETURNING n`, [scope])
      moved.push([scope, n!])
    }
    return () => { for (const [scope, n] of moved) this.#note(scope, n) }
  }

  /** Counters only go up: an answer older than what this process already knows is ignored. */
  #note(scope: string, n: number): void {
    if (n > (this.#known.get(scope) ?? 0)) this.#known.set(scope, n)
  }
}
