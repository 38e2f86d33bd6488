/**
 * @module auth/rate-limit
 * Password guessing is slowed down per login name and, where the host knows it, per client
 * address (the Node host does; a service worker does not, so there it is per login only).
 * A key has a few free failures; each further one locks it for twice as long as the last
 * (1 s, 2 s, 4 s … up to 15 minutes). While a key is locked every attempt is refused with
 * 429, a correct password included, and is not even checked. A success clears the key; a key
 * left alone for an hour is forgotten. The state is kept in the main database too
 * (`tx.loginLimits`, sw/sqlite/main/login-limits.ts): a restart does not start the count again.
 */

export interface LimitPolicy {
  /** Failures allowed before the first lock. */
  free: number
  /** Length of the first lock, in ms. @default 1000 */
  baseMs?: number
  /** Longest lock, in ms. @default 900_000 */
  maxMs?: number
}

export interface LimitEntry { failures: number; lockedUntil: number; last: number }
type Entry = LimitEntry

/** A key unused this long is dropped. */
export const FORGET_MS = 3600_000
/** At most this many keys are remembered (an attacker can invent login names); the oldest go first. */
const MAX_KEYS = 10_000

export class RateLimiter {
  #entries = new Map<string, Entry>()

  constructor(private now: () => number) {}

  /** Milliseconds until every one of `keys` may try again; 0 when none is locked. */
  retryAfter(keys: string[]): number {
    const now = this.now()
    let wait = 0
    for (const k of keys) {
      const e = this.#live(k, now)
      if (e && e.lockedUntil > now) wait = Math.max(wait, e.lockedUntil - now)
    }
    return wait
  }

  /** Counts a failed attempt against each key, locking those past their free failures. */
  failure(keys: Array<[string, LimitPolicy]>): void {
    const now = this.now()
    for (const [k, policy] of keys) {
      const e = this.#live(k, now) ?? { failures: 0, lockedUntil: 0, last: now }
      e.failures++
      e.last = now
      if (e.failures >= policy.free) {
        const ms = Math.min((policy.baseMs ?? 1000) * 2 ** (e.failures - policy.free), policy.maxMs ?? 900_000)
        e.lockedUntil = now + ms
      }
      this.#entries.delete(k)
      this.#entries.set(k, e) // re-inserted: the map's order is the order of last use
    }
    while (this.#entries.size > MAX_KEYS) this.#entries.delete(this.#entries.keys().next().value!)
  }

  /** Clears `keys`; returns whether any of them was known (the saved state then changes too). */
  success(keys: string[]): boolean {
    let known = false
    for (const k of keys) known = this.#entries.delete(k) || known
    return known
  }

  /** The state of `keys`, for saving (`undefined`: forgotten). */
  entries(keys: string[]): Array<[string, LimitEntry | undefined]> {
    return keys.map((k) => [k, this.#entries.get(k)])
  }

  /** State saved before a restart; what this instance learned since wins. */
  restore(saved: Array<[string, LimitEntry]>): void {
    const now = this.now()
    for (const [k, e] of saved) {
      if (this.#entries.has(k) || (now - e.last > FORGET_MS && e.lockedUntil <= now)) continue
      this.#entries.set(k, { ...e })
    }
  }

  #live(key: string, now: number): Entry | undefined {
    const e = this.#entries.get(key)
    if (e && now - e.last > FORGET_MS && e.lockedUntil <= now) {
      this.#entries.delete(key)
      return undefined
    }
    return e
  }
}
