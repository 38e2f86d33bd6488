/**
 * @module core/yield
 * Long JavaScript work on the request thread (an export's pages, an ingest's checks) gives
 * way to other requests every few milliseconds. An `await` alone does not: promise callbacks
 * run before any I/O, so a loop of awaits holds the thread as a plain loop does. Only a
 * macrotask (`setTimeout`) lets the host deliver the requests waiting meanwhile.
 */

/** How long a slice of work may hold the thread before it gives way (ms). */
export const SLICE_MS = 10

/** Resolves after the host has had the chance to run what is waiting (other requests). */
export function yieldToHost(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0))
}

/**
 * A timer for a loop of work: `await slice.pause()` between its steps gives way only when the
 * slice has held the thread for `ms`, so short work pays nothing.
 */
export class TimeSlice {
  #start = performance.now()
  constructor(readonly ms = SLICE_MS) {}

  async pause(): Promise<void> {
    if (performance.now() - this.#start < this.ms) return
    await yieldToHost()
    this.#start = performance.now()
  }
}
