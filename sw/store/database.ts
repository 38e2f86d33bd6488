/**
 * @module store/database
 * A SQLite-WASM database that lives in memory and is made durable through a `Store`.
 * Requests run one at a time per database; a write commits in SQLite, then saves the
 * chunks it changed and only then answers. If the save fails, memory is reloaded from the
 * store, so the request leaves nothing behind.
 */
import type { Database as SqlDb, Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { ApiError, operationalError } from '../core/error.ts'
import { CHUNK_SIZE, type Store } from './store.ts'

export type { SqlDb }

/** Brings a freshly opened database to the current schema; runs inside a transaction. */
export type Migrate = (db: SqlDb) => void

export class Database {
  readonly name: string
  #sqlite: Sqlite3Static
  #store: Store
  #migrate: Migrate
  #db!: SqlDb
  /**
   * Copy of the image as last saved (its first `#savedSize` bytes), to find the chunks a
   * write changed. Updated in place; it grows with room to spare, so a commit copies only
   * what it changed.
   */
  #saved = new Uint8Array(0)
  #savedSize = 0
  #queue: Promise<unknown> = Promise.resolve()
  #version = 0
  #closed = false

  private constructor(sqlite: Sqlite3Static, store: Store, name: string, migrate: Migrate) {
    this.#sqlite = sqlite
    this.#store = store
    this.name = name
    this.#migrate = migrate
  }

  /** Opens database `name` from the store (or creates it) and migrates it. */
  static async open(sqlite: Sqlite3Static, store: Store, name: string, migrate: Migrate): Promise<Database> {
    const d = new Database(sqlite, store, name, migrate)
    await d.#load()
    return d
  }

  /** The SQLite module this database runs in (for `store/bulk`). */
  get sqlite(): Sqlite3Static {
    return this.#sqlite
  }

  /**
   * Changes whenever the content may have changed (a saved write, a reload): what was read
   * at one version still holds while it stays the same.
   */
  get version(): number {
    return this.#version
  }

  /** Runs `fn` once the writes before it have been saved. */
  read<T>(fn: (db: SqlDb) => T): Promise<T> {
    return this.#serial(async () => fn(this.#db))
  }

  /**
   * Runs `fn` in one SQLite transaction and saves the result durably before resolving.
   * Whatever `fn` throws rolls the transaction back and is rethrown.
   */
  write<T>(fn: (db: SqlDb) => T): Promise<T> {
    return this.#serial(async () => {
      const db = this.#db
      db.exec('BEGIN IMMEDIATE')
      let result: T
      try {
        result = fn(db)
        db.exec('COMMIT')
      } catch (err) {
        if (db.isOpen() && this.#inTransaction()) db.exec('ROLLBACK')
        throw err
      }
      await this.#persist()
      return result
    })
  }

  /** Closes the database; later calls fail. */
  async close(): Promise<void> {
    await this.#serial(async () => {
      this.#closed = true
      this.#db.close()
    })
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(() => {
      if (this.#closed) throw operationalError(`Database '${this.name}' is closed.`)
      return fn()
    })
    this.#queue = run.catch(() => undefined)
    return run
  }

  #inTransaction(): boolean {
    return this.#sqlite.capi.sqlite3_get_autocommit(this.#db.pointer!) === 0
  }

  async #load(): Promise<void> {
    this.#version++
    const image = (await this.#store.loadImage(this.name)) ?? new Uint8Array(0)
    this.#db = this.#deserialize(image)
    this.#saved = image.slice()
    this.#savedSize = image.length
    this.#db.exec('PRAGMA journal_mode=MEMORY; PRAGMA foreign_keys=ON')
    const before = this.#savedSize
    this.#db.exec('BEGIN IMMEDIATE')
    try {
      this.#migrate(this.#db)
      this.#db.exec('COMMIT')
    } catch (err) {
      this.#db.exec('ROLLBACK')
      throw err
    }
    // A fresh image is saved with its first write: until then there is nothing to lose.
    if (before > 0 && this.#changedChunks().size > 0) await this.#persist()
  }

  /** Opens an in-memory database over a copy of `image` that SQLite owns and may grow. */
  #deserialize(image: Uint8Array): SqlDb {
    const { oo1, capi, wasm } = this.#sqlite
    const db = new oo1.DB(':memory:')
    const n = image.length
    const p = capi.sqlite3_malloc(Math.max(n, 1))
    if (n) wasm.heap8u().set(image, Number(p))
    const rc = capi.sqlite3_deserialize(db.pointer!, 'main', p, n, n,
      capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_RESIZEABLE)
    if (rc) throw operationalError(`Database '${this.name}' could not be opened (SQLite code ${rc}).`)
    return db
  }

  /** The live image inside the WASM heap; valid only until the next allocation. */
  #liveImage(): Uint8Array {
    const { capi, wasm } = this.#sqlite
    const sp = wasm.pstack.pointer
    try {
      const pSize = wasm.pstack.alloc(8)
      const p = Number(capi.sqlite3_serialize(this.#db.pointer!, 'main', pSize, capi.SQLITE_SERIALIZE_NOCOPY))
      const size = Number(wasm.peek(pSize, 'i64'))
      if (!p && size) throw operationalError(`Database '${this.name}' is not contiguous in memory.`)
      return wasm.heap8u().subarray(p, p + size)
    } finally {
      wasm.pstack.restore(sp)
    }
  }

  /** Copies of the chunks that differ from the last save. */
  #changedChunks(): Map<number, Uint8Array> {
    const live = this.#liveImage()
    const saved = this.#saved
    const changed = new Map<number, Uint8Array>()
    const count = Math.ceil(live.length / CHUNK_SIZE)
    for (let i = 0; i < count; i++) {
      const start = i * CHUNK_SIZE
      const end = Math.min(start + CHUNK_SIZE, live.length)
      if (end > this.#savedSize || !sameBytes(live, saved, start, end)) changed.set(i, live.slice(start, end))
    }
    return changed
  }

  async #persist(): Promise<void> {
    const chunks = this.#changedChunks()
    const size = this.#liveImage().length
    if (chunks.size === 0 && size === this.#savedSize) return
    try {
      await this.#store.saveImage(this.name, { size, chunks })
    } catch (err) {
      // The save failed: memory holds a commit the store does not. Go back to the store.
      this.#db.close()
      await this.#load()
      throw err instanceof ApiError ? err : operationalError(`Saving database '${this.name}' failed.`, err)
    }
    if (size > this.#saved.length) {
      const next = new Uint8Array(Math.max(size, Math.ceil(this.#saved.length * 1.5 / CHUNK_SIZE) * CHUNK_SIZE))
      next.set(this.#saved.subarray(0, Math.min(size, this.#savedSize)))
      this.#saved = next
    }
    for (const [i, c] of chunks) this.#saved.set(c, i * CHUNK_SIZE)
    this.#savedSize = size
    this.#version++
  }
}

/** Compares `a` and `b` over [start, end), four bytes at a time where aligned. */
function sameBytes(a: Uint8Array, b: Uint8Array, start: number, end: number): boolean {
  if ((a.byteOffset + start) % 4 === 0 && (b.byteOffset + start) % 4 === 0 && (end - start) % 4 === 0) {
    const a32 = new Uint32Array(a.buffer, a.byteOffset + start, (end - start) / 4)
    const b32 = new Uint32Array(b.buffer, b.byteOffset + start, (end - start) / 4)
    for (let i = 0; i < a32.length; i++) if (a32[i] !== b32[i]) return false
    return true
  }
  for (let i = start; i < end; i++) if (a[i] !== b[i]) return false
  return true
}
