/**
 * @module store/database
 * A SQLite-WASM database over the file its store opened, through the "outpost" VFS
 * (`store/vfs`). Requests run one at a time per database. A write runs in one transaction:
 * at COMMIT SQLite writes the pages it changed into the file, and the store makes exactly
 * those durable (`DatabaseFile.commit`) before the write answers. If that fails, the
 * connection and the file are dropped and the request answers the error; the next request
 * reopens the database from the store, so nothing of the failed one stays. A database opened
 * `evictable` gives its connection and its file's memory back when unused (`store/residency`)
 * and reopens on its next request. Housekeeping (checkpoints, the file's `tidy`) runs when
 * no request has come for a moment.
 */
import type { Database as SqlDb, Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { ApiError, insufficientStorage, operationalError } from '../core/error.ts'
import type { DatabaseFile, Store } from './store.ts'
import { isNoSpace, registerFile, VFS_NAME, type VfsEntry } from './vfs.ts'
import { residencyOf } from './residency.ts'

export type { SqlDb }

/** Brings a freshly opened database to the current schema; runs inside a transaction. */
export type Migrate = (db: SqlDb) => void

export interface DatabaseOptions {
  /** Runs on every new connection (after opening, after a reconnect): SQL functions go here. */
  onConnect?: (db: SqlDb) => void
  /** May be closed while unused to give its memory back; reopens on its next request. @default false */
  evictable?: boolean
}

/**
 * SQLite's page cache per connection, in KiB: the only part of a database in the WASM heap.
 * Dirty pages may exceed it (`cache_spill`), so a large transaction is not written twice.
 */
const CACHE_KIB = 16 * 1024
const SPILL_PAGES = 32 * 1024
/**
 * The write-ahead log is checkpointed into the file and truncated once the database is idle
 * and the log holds more than `LOG_IDLE_CHECKPOINT`, and at once past `LOG_MAX` (a long
 * import): a page written by several commits in between is copied into the file once, and a
 * restart replays little. (SQLite's automatic checkpoint runs after every commit past 4 MiB
 * and leaves the log file at its largest size.)
 */
const LOG_IDLE_CHECKPOINT = 2 ** 20
const LOG_MAX = 64 * 2 ** 20
/** Quiet time before a step of housekeeping (a checkpoint, the file's `tidy`). */
const IDLE_MS = 200

interface Connection { db: SqlDb; file: DatabaseFile; vfs: VfsEntry }

export class Database {
  readonly name: string
  #sqlite: Sqlite3Static
  #store: Store
  #opts: DatabaseOptions
  #conn: Connection | undefined
  #queue: Promise<unknown> = Promise.resolve()
  #version = 0
  /**
   * The next connection may read what the last one did not (there was none, or it was dropped
   * after the storage failed): opening it moves the version. A release for memory does not:
   * the store holds exactly what that connection read, so caches keyed on the version (drawn
   * tiles, cut vector tiles) stay valid while a layer is closed and reopened.
   */
  #unseen = true
  #closed = false
  /** A release is queued and no request has used the database since. */
  #releasing = false
  /** Requests queued or running; idle housekeeping waits for none. */
  #busy = 0
  #idleTimer: ReturnType<typeof setTimeout> | undefined

  private constructor(sqlite: Sqlite3Static, store: Store, name: string, opts: DatabaseOptions) {
    this.#sqlite = sqlite
    this.#store = store
    this.name = name
    this.#opts = opts
  }

  /** Opens database `name` from the store (or creates it) and migrates it. */
  static async open(sqlite: Sqlite3Static, store: Store, name: string, migrate: Migrate, opts: DatabaseOptions = {}): Promise<Database> {
    const d = new Database(sqlite, store, name, opts)
    await d.#serial(async () => {
      const c = await d.#connected()
      const fresh = c.file.size() === 0
      d.#transaction(c, migrate)
      // A fresh file is saved with its first write: until then there is nothing to lose.
      if (!fresh) await d.#save(c)
    })
    return d
  }

  /** The SQLite module this database runs in (for `store/bulk`). */
  get sqlite(): Sqlite3Static {
    return this.#sqlite
  }

  /**
   * Changes whenever the content may have changed (a saved write, a failed save, a reopen
   * after the storage failed; not a reopen after a release): what was read at one version
   * still holds while it stays the same.
   */
  get version(): number {
    return this.#version
  }

  /** Runs `fn` once the writes before it have been saved. */
  read<T>(fn: (db: SqlDb) => T): Promise<T> {
    return this.#serial(async () => {
      const c = await this.#connected()
      try {
        return fn(c.db)
      } catch (err) {
        throw this.#mapError(c, err)
      }
    })
  }

  /**
   * Runs `fn` in one SQLite transaction and saves the result durably before resolving.
   * Whatever `fn` throws rolls the transaction back and is rethrown.
   */
  write<T>(fn: (db: SqlDb) => T): Promise<T> {
    return this.#serial(async () => {
      const c = await this.#connected()
      const result = this.#transaction(c, fn)
      await this.#save(c)
      return result
    })
  }

  /**
   * `read` for an asynchronous `fn`: the queue is held until `fn` settles, and a failure of
   * the storage below SQLite maps to 503/507 whenever it is thrown, not only synchronously.
   */
  readAsync<T>(fn: (db: SqlDb) => Promise<T>): Promise<T> {
    return this.#serial(async () => {
      const c = await this.#connected()
      try {
        return await fn(c.db)
      } catch (err) {
        throw this.#mapError(c, err)
      }
    })
  }

  /**
   * `write` for an asynchronous `fn` (the data port's unit of work, sw/sqlite/uow.ts): BEGIN
   * IMMEDIATE, `await fn`, COMMIT, then the durable save, all under the one queue, so nothing
   * else uses the connection while `fn` awaits. A rejection rolls back as `write` does.
   */
  transaction<T>(fn: (db: SqlDb) => Promise<T>): Promise<T> {
    return this.#serial(async () => {
      const c = await this.#connected()
      c.db.exec('BEGIN IMMEDIATE')
      let result: T
      try {
        result = await fn(c.db)
        c.db.exec('COMMIT')
      } catch (err) {
        throw this.#rollback(c, err)
      }
      await this.#save(c)
      return result
    })
  }

  /** Closes the database; later calls fail. */
  async close(): Promise<void> {
    await this.#serial(async () => {
      this.#closed = true
      clearTimeout(this.#idleTimer)
      this.#disconnect()
      residencyOf(this.#store).forget(this)
    })
  }

  /** Closes the connection and the file until the next request (memory comes back). */
  release(): void {
    this.#releasing = true
    // Queued behind the requests already waiting; skipped if one of them used it meanwhile.
    void this.#serial(async () => { if (this.#releasing) this.#disconnect() }).catch(() => undefined)
  }

  /** Bytes this database holds in memory outside the WASM heap (its pages, in the browser). */
  resident(): number {
    return this.#conn?.file.resident() ?? 0
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    this.#busy++
    const run = this.#queue.then(() => {
      if (this.#closed) throw operationalError(`Database '${this.name}' is closed.`)
      return fn()
    }).finally(() => { this.#busy-- })
    this.#queue = run.catch(() => undefined)
    return run
  }

  /** Runs housekeeping a step at a time, whenever no request has come for a while. */
  #scheduleIdle(): void {
    if (this.#idleTimer !== undefined) return
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined
      if (this.#closed) return
      if (this.#busy) { this.#scheduleIdle(); return }
      void this.#serial(async () => this.#housekeep())
        .then((more) => { if (more) this.#scheduleIdle() }, () => undefined)
    }, IDLE_MS)
  }

  /** One step of housekeeping; true while there is more to do. */
  async #housekeep(): Promise<boolean> {
    const c = this.#conn
    if (!c) return false
    if (c.vfs.logSize() > LOG_IDLE_CHECKPOINT) this.#checkpoint(c)
    return c.file.tidy ? c.file.tidy() : false
  }

  /** Copies the log into the file and empties it; the commits are durable either way. */
  #checkpoint(c: Connection): void {
    try { c.db.exec('PRAGMA wal_checkpoint(TRUNCATE)') } catch { /* tried again at the next idle moment */ }
  }

  async #connected(): Promise<Connection> {
    this.#releasing = false
    if (this.#opts.evictable) residencyOf(this.#store).used(this)
    if (this.#conn) {
      this.#conn.vfs.lastError = undefined
      return this.#conn
    }
    const file = await this.#store.openDatabase(this.name)
    try {
      this.#conn = this.#connect(file)
    } catch (err) {
      file.close()
      throw err
    }
    if (this.#unseen) this.#version++
    this.#unseen = false
    return this.#conn
  }

  #connect(file: DatabaseFile): Connection {
    const vfs = registerFile(this.#sqlite, file)
    let db: SqlDb | undefined
    try {
      db = new this.#sqlite.oo1.DB({ filename: vfs.path, flags: 'c', vfs: VFS_NAME })
      // One connection per file: exclusive locking keeps SQLite from re-checking the file
      // before each transaction, and lets WAL run without shared memory. With a log of its
      // own the file is durable as SQLite syncs it (one fsync per commit); otherwise the
      // store's commit is, and SQLite's journal (in JS memory) serves only rollbacks.
      const journal = file.wal
        ? 'PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA wal_autocheckpoint=0'
        : 'PRAGMA journal_mode=TRUNCATE; PRAGMA synchronous=OFF'
      db.exec(`PRAGMA locking_mode=EXCLUSIVE; ${journal}; PRAGMA cache_size=-${CACHE_KIB};
        PRAGMA cache_spill=${SPILL_PAGES}; PRAGMA temp_store=FILE; PRAGMA foreign_keys=ON`)
      this.#opts.onConnect?.(db)
      return { db, file, vfs }
    } catch (err) {
      db?.close()
      vfs.unregister()
      throw err
    }
  }

  #disconnect(): void {
    const c = this.#conn
    if (!c) return
    this.#conn = undefined
    try {
      c.db.close()
    } finally {
      c.vfs.unregister()
      c.file.close()
    }
  }

  /**
   * BEGIN … COMMIT around `fn`; on any failure SQLite rolls back through its journal. After
   * a failure of the storage itself the connection and the file are dropped, so the next
   * request reopens them from what the store holds.
   */
  #transaction<T>(c: Connection, fn: (db: SqlDb) => T): T {
    c.db.exec('BEGIN IMMEDIATE')
    try {
      const result = fn(c.db)
      c.db.exec('COMMIT')
      return result
    } catch (err) {
      throw this.#rollback(c, err)
    }
  }

  /** Ends a failed transaction: the error mapped, rolled back, the connection dropped if the storage failed. */
  #rollback(c: Connection, err: unknown): unknown {
    const mapped = this.#mapError(c, err)
    let clean = c.vfs.lastError === undefined
    if (c.db.isOpen() && this.#sqlite.capi.sqlite3_get_autocommit(c.db.pointer!) === 0) {
      try { c.db.exec('ROLLBACK') } catch { clean = false }
    }
    if (!clean) {
      this.#disconnect()
      this.#unseen = true
    }
    return mapped
  }

  /** Makes the commit durable; if the store refuses, memory goes back to what it holds. */
  async #save(c: Connection): Promise<void> {
    try {
      await c.file.commit()
      if (c.vfs.logSize() > LOG_MAX) this.#checkpoint(c)
      if (c.file.tidy || c.vfs.logSize() > LOG_IDLE_CHECKPOINT) this.#scheduleIdle()
    } catch (err) {
      // The file holds a commit the store does not: drop it; the next request reopens.
      this.#disconnect()
      this.#unseen = true
      this.#version++
      throw err instanceof ApiError ? err : operationalError(`Saving database '${this.name}' failed.`, err)
    }
    this.#version++
  }

  /**
   * SQLite's "full" and "out of memory" become 507 saying what is full; other failures of the
   * storage below SQLite become 503. Errors of the request itself pass unchanged.
   */
  #mapError(c: Connection, err: unknown): unknown {
    if (err instanceof ApiError) return err
    const code = ((err as { resultCode?: number })?.resultCode ?? 0) & 0xff
    const cause = c.vfs.lastError
    const { SQLITE_FULL, SQLITE_NOMEM, SQLITE_IOERR } = this.#sqlite.capi
    if (cause instanceof ApiError) return cause
    if (code === SQLITE_FULL || code === SQLITE_NOMEM || isNoSpace(cause)) {
      if (cause instanceof RangeError) return insufficientStorage('memory', `There is not enough memory to hold database '${this.name}'.`, err)
      if (cause) return insufficientStorage('disk', `The disk is full: database '${this.name}' cannot grow.`, err)
      return insufficientStorage('memory', `SQLite ran out of memory in database '${this.name}'.`, err)
    }
    if (code === SQLITE_IOERR && cause) return operationalError(`Storage failed in database '${this.name}': ${(cause as Error).message ?? cause}`, err)
    return err
  }
}
