/**
 * @module store/residency
 * Keeps the memory of open databases bounded. Databases opened `evictable` (the layers) report
 * each use here; when more of them are open than the limits allow, or one has been idle too
 * long, the least recently used are released (their connection and their file's memory go;
 * they reopen on their next request). Checked on use: a service worker that nobody uses is
 * stopped by the browser anyway, and its memory with it.
 */
import type { Store } from './store.ts'

/** What the residency needs of a database. */
export interface Resident {
  /** Bytes it holds in memory now. */
  resident(): number
  /** Gives its memory back once the requests queued before are done. */
  release(): void
}

/**
 * Evictable databases open at once by default. A map asks for its layers' tiles in turn, each
 * layer's tile needing its database: with fewer open than the map shows, every tile reopens one
 * (a reload from IndexedDB in the worker) and the least recently used is always the next asked
 * for. Sixteen keeps a web map of that many layers open; memory stays bounded by `bytes`.
 */
export const OPEN_DATABASES = 16

export interface ResidencyLimits {
  /** Most evictable databases open at once. @default OPEN_DATABASES */
  count?: number
  /** Most bytes they may hold together (the one in use stays open regardless). @default 384 MiB */
  bytes?: number
  /** A database unused this long is released. @default 5 minutes */
  idleMs?: number
}

export class Residency {
  /** Open databases by last use, least recent first (Map keeps insertion order). */
  #lru = new Map<Resident, number>()
  #count: number
  #bytes: number
  #idleMs: number

  constructor({ count = OPEN_DATABASES, bytes = 384 * 2 ** 20, idleMs = 5 * 60_000 }: ResidencyLimits = {}) {
    this.#count = count
    this.#bytes = bytes
    this.#idleMs = idleMs
  }

  /** `r` is in use now: it becomes the most recent, and others may be released. */
  used(r: Resident, now = Date.now()): void {
    this.#lru.delete(r)
    this.#lru.set(r, now)
    let total = 0
    for (const other of this.#lru.keys()) total += other.resident()
    for (const [other, last] of this.#lru) {
      if (other === r) continue
      if (this.#lru.size <= this.#count && total <= this.#bytes && now - last <= this.#idleMs) continue
      total -= other.resident()
      this.#lru.delete(other)
      other.release()
    }
  }

  /** How many databases are open and the bytes they hold. */
  stats(): { count: number; bytes: number } {
    let bytes = 0
    for (const r of this.#lru.keys()) bytes += r.resident()
    return { count: this.#lru.size, bytes }
  }

  /** `r` was closed for good. */
  forget(r: Resident): void {
    this.#lru.delete(r)
  }
}

const byStore = new WeakMap<Store, Residency>()

/** The residency shared by the databases of one store. */
export function residencyOf(store: Store): Residency {
  let r = byStore.get(store)
  if (!r) byStore.set(store, (r = new Residency()))
  return r
}
