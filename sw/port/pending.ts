/**
 * @module port/pending
 * A put-off refresh of the change tokens (`ChangeTokens.defer`), in a module of its own: the
 * feature layer's engine capability (feature/types.ts) takes one, and port.ts imports that.
 */

/**
 * A refresh put off so that the request's own statement can carry it. Until it is `done`, the
 * request runs on caches as of its start; once done, `stale` says whether the main data (users,
 * sessions, permissions, resources: what the checks read from caches) moved meanwhile, and then
 * the request is answered anew, refreshed first (sw/app.ts). So a request is answered as if it
 * had refreshed first: what it read from caches was current at its statement's snapshot.
 */
export interface PendingRefresh {
  /** Whether the counters were read (carried by a statement, or by `run`). */
  readonly done: boolean
  /** Reads them now, as `refresh` does: what a request does that has no statement to carry them (a no-op once done). */
  run(): Promise<void>
  /** Once done: whether the main data moved since the request began. */
  readonly stale: boolean
}
