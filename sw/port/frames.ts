/**
 * @module port/frames
 * The two guards every implementation's units of work share, against mistakes an `await`
 * makes easy:
 * - a `tx` refuses use once its `fn` has settled (`live`), so a leaked `tx` throws instead of
 *   writing outside any transaction;
 * - where the platform has async-local storage (Node), a unit of work or read started inside
 *   another on the same data throws `nested unit of work on '<name>'`: on SQLite it would wait
 *   behind itself forever in the queue, on PostgreSQL it would not see the outer one's writes.
 */
import type { AsyncContext } from '../platform/platform.ts'

/** A unit of work or read in progress on one store of data (by identity: one process may run several apps). */
export interface Frame { owner: object; name: string; open: boolean }
export type Frames = AsyncContext<readonly Frame[]>

/** Runs `run` in a new frame on `owner`, refused when one is already open on it in this async context. */
export function enterFrame<T>(frames: Frames | undefined, owner: object, name: string, run: (frame: Frame) => Promise<T>): Promise<T> {
  const outer = frames?.getStore() ?? []
  if (outer.some((f) => f.open && f.owner === owner)) {
    return Promise.reject(new Error(`nested unit of work on '${name}': it would wait behind itself (await only tx.* inside one)`))
  }
  const frame: Frame = { owner, name, open: true }
  return frames ? frames.run([...outer, frame], () => run(frame)) : run(frame)
}

/** The liveness check of `frame`'s `tx`. */
export const liveness = (frame: Frame) => () => {
  if (!frame.open) throw new Error(`The unit of work on '${frame.name}' has ended: its tx cannot be used any more.`)
}
