/**
 * @module store/row-reader
 * Column access for hot loops over many rows (tile cutting, exports): SQLite's own column
 * functions called straight on the WASM exports, and blobs handed out as views into the
 * WASM heap instead of copies. oo1's `Stmt.get` copies each blob twice and turns every
 * integer into a BigInt first; over a tile of 10,000 features that is most of the time.
 * Steps go to `sqlite3_step` directly too (oo1's checks and argument wrapping cost more than
 * a small row).
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { SqlDb } from './database.ts'

/** The raw exports used here (pointers are plain numbers in this build). */
interface ColumnExports {
  sqlite3_step(stmt: number): number
  sqlite3_column_type(stmt: number, i: number): number
  sqlite3_column_double(stmt: number, i: number): number
  sqlite3_column_int(stmt: number, i: number): number
  sqlite3_column_bytes(stmt: number, i: number): number
  sqlite3_column_blob(stmt: number, i: number): number
  sqlite3_column_text(stmt: number, i: number): number
}

export const SQLITE_INTEGER = 1
export const SQLITE_FLOAT = 2
export const SQLITE_TEXT = 3
export const SQLITE_BLOB = 4
export const SQLITE_NULL = 5
const SQLITE_ROW = 100
const SQLITE_DONE = 101

const UTF8 = new TextDecoder()

type Statement = ReturnType<SqlDb['prepare']>

/** Steps a prepared statement and reads the current row's columns. */
export class RowReader {
  readonly #x: ColumnExports
  readonly #sqlite: Sqlite3Static
  readonly #db: SqlDb
  readonly #stmt: Statement
  /** Whether the statement is this reader's (finalized with it) or kept by the caller (reset). */
  readonly #owned: boolean
  #p = 0

  /**
   * A reader of `sql`, or of `statement` (a statement the caller keeps prepared: `finalize`
   * then only resets it and clears its bindings).
   */
  constructor(sqlite: Sqlite3Static, db: SqlDb, sql: string | Statement, bind?: unknown[]) {
    this.#sqlite = sqlite
    this.#x = sqlite.wasm.exports as unknown as ColumnExports
    this.#db = db
    this.#owned = typeof sql === 'string'
    this.#stmt = typeof sql === 'string' ? db.prepare(sql) : sql
    try {
      if (bind?.length) this.#stmt.bind(bind as never)
    } catch (err) {
      this.finalize()
      throw err
    }
    this.#p = Number(this.#stmt.pointer)
  }

  /** Moves to the next row; false when there is none. */
  step(): boolean {
    const rc = this.#x.sqlite3_step(this.#p)
    if (rc === SQLITE_ROW) return true
    if (rc === SQLITE_DONE) return false
    // oo1's own error (SQLite3Error with the connection's message), as its step throws.
    this.#db.checkRc(rc)
    throw new Error(`sqlite3_step: ${rc}`)
  }

  type(i: number): number {
    return this.#x.sqlite3_column_type(this.#p, i)
  }

  isNull(i: number): boolean {
    return this.#x.sqlite3_column_type(this.#p, i) === SQLITE_NULL
  }

  /** The column as a double (integers up to 2^53 exactly). */
  number(i: number): number {
    return this.#x.sqlite3_column_double(this.#p, i)
  }

  int(i: number): number {
    return this.#x.sqlite3_column_int(this.#p, i)
  }

  text(i: number): string {
    const x = this.#x
    const p = x.sqlite3_column_text(this.#p, i)
    const n = x.sqlite3_column_bytes(this.#p, i)
    return n ? UTF8.decode(this.#sqlite.wasm.heap8u().subarray(p, p + n)) : ''
  }

  /** The blob as a view into the WASM heap: valid only until the next step or allocation. */
  blobView(i: number): Uint8Array | null {
    const x = this.#x
    if (x.sqlite3_column_type(this.#p, i) !== SQLITE_BLOB) return null
    const p = x.sqlite3_column_blob(this.#p, i)
    const n = x.sqlite3_column_bytes(this.#p, i)
    return this.#sqlite.wasm.heap8u().subarray(p, p + n)
  }

  finalize(): void {
    if (this.#owned) this.#stmt.finalize()
    else this.#stmt.reset(true)
  }
}
