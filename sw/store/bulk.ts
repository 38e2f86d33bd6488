/**
 * @module store/bulk
 * Inserts many rows at WASM speed. The `oo1` binding API copies
 * every string and blob into its own allocation and checks each call; for ten thousand rows
 * that costs more than SQLite's own work. Here every text and blob of all rows is written
 * once into one buffer inside the WASM heap, and the raw `sqlite3_bind_*` exports point
 * SQLite at it (`SQLITE_STATIC`: SQLite reads it in place, it stays valid until the end).
 */
import type { Database as SqlDb, Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { insufficientStorage } from '../core/error.ts'

/** A blob written straight into the heap (a geometry encoded in place). */
export interface BlobSource {
  readonly byteLength: number
  writeTo(view: DataView, at: number): void
}

export type BulkValue = number | string | bigint | Uint8Array | BlobSource | null

const SQLITE_DONE = 101
const INT32_MIN = -(2 ** 31)
const INT32_MAX = 2 ** 31 - 1

interface RawExports {
  sqlite3_malloc(n: number): number
  sqlite3_free(p: number): void
  sqlite3_bind_int(st: number, i: number, v: number): number
  sqlite3_bind_int64(st: number, i: number, v: bigint): number
  sqlite3_bind_double(st: number, i: number, v: number): number
  sqlite3_bind_text(st: number, i: number, p: number, n: number, destructor: number): number
  sqlite3_bind_blob(st: number, i: number, p: number, n: number, destructor: number): number
  sqlite3_bind_null(st: number, i: number): number
  sqlite3_step(st: number): number
  sqlite3_reset(st: number): number
  sqlite3_clear_bindings(st: number): number
}

const encoder = new TextEncoder()

/** Most rows one statement takes: past a few hundred, longer statements gain nothing. */
const ROWS_PER_STATEMENT = 256

/**
 * Inserts `rows` with `head` (`INSERT INTO t (a, b)`, no `VALUES`), several rows per
 * statement, in order, inside the caller's transaction. Values bind as `oo1` binds them
 * (whole numbers as integers, other numbers as doubles, strings as text, bytes as blobs),
 * except whole numbers beyond 2^53: doubles, where `oo1` wraps them into int64.
 */
export function insertMany(sqlite: Sqlite3Static, db: SqlDb, head: string, rows: readonly (readonly BulkValue[])[]): void {
  if (!rows.length) return
  const x = sqlite.wasm.exports as RawExports
  const width = rows[0]!.length
  for (const row of rows) if (row.length !== width) throw new Error('insertMany needs rows of one width.')
  // Pass 1: the buffer's size (UTF-8 takes at most 3 bytes per UTF-16 unit).
  let size = 0
  for (const row of rows) {
    for (const v of row) {
      if (typeof v === 'string') size += v.length * 3
      else if (v !== null && typeof v === 'object') size += v.byteLength
    }
  }
  const base = size ? Number(x.sqlite3_malloc(size)) : 0
  if (size && !base) throw insufficientStorage('memory', `SQLite's memory (the WASM heap) cannot hold ${rows.length} rows at once.`)
  const maxVars = sqlite.capi.sqlite3_limit(db.pointer!, sqlite.capi.SQLITE_LIMIT_VARIABLE_NUMBER, -1)
  const per = Math.max(1, Math.min(ROWS_PER_STATEMENT, Math.floor(maxVars / width), rows.length))
  const tuple = `(${'?, '.repeat(width - 1)}?)`
  const statement = (n: number) => db.prepare(`${head} VALUES ${`${tuple}, `.repeat(n - 1)}${tuple}`)
  let st: ReturnType<SqlDb['prepare']> | undefined
  try {
    // Pass 2: write every text and blob, keeping their places. Nothing may allocate in the
    // heap meanwhile: growing it would detach `heap`.
    const heap = sqlite.wasm.heap8u()
    const view = new DataView(heap.buffer)
    const places = new Int32Array(size ? rows.length * width * 2 : 0)
    let at = base
    let k = 0
    for (const row of rows) {
      for (const v of row) {
        if (typeof v === 'string') {
          const n = ascii(v) ? writeAscii(heap, at, v) : encoder.encodeInto(v, heap.subarray(at, at + v.length * 3)).written
          places[k] = at
          places[k + 1] = n
          at += n
        } else if (v instanceof Uint8Array) {
          heap.set(v, at)
          places[k] = at
          places[k + 1] = v.byteLength
          at += v.byteLength
        } else if (v !== null && typeof v === 'object') {
          v.writeTo(view, at)
          places[k] = at
          places[k + 1] = v.byteLength
          at += v.byteLength
        }
        k += 2
      }
    }
    // Pass 3: bind and step, `per` rows at a time; the rest with a shorter statement.
    st = statement(per)
    let stRows = per
    k = 0
    for (let r0 = 0; r0 < rows.length; r0 += per) {
      const n = Math.min(per, rows.length - r0)
      if (n !== stRows) {
        st.finalize()
        st = statement(n)
        stRows = n
      }
      const p = st.pointer as number
      let param = 1
      for (let r = r0; r < r0 + n; r++) {
        const row = rows[r]!
        for (let i = 0; i < width; i++, k += 2, param++) {
          const v = row[i]!
          let rc: number
          if (v === null) rc = x.sqlite3_bind_null(p, param)
          else if (typeof v === 'number') {
            if (v >= INT32_MIN && v <= INT32_MAX && Number.isInteger(v)) rc = x.sqlite3_bind_int(p, param, v)
            else if (Number.isSafeInteger(v)) rc = x.sqlite3_bind_int64(p, param, BigInt(v))
            else rc = x.sqlite3_bind_double(p, param, v) // beyond 2^53 an int64 could wrap
          } else if (typeof v === 'bigint') rc = x.sqlite3_bind_int64(p, param, v)
          else if (typeof v === 'string') rc = x.sqlite3_bind_text(p, param, places[k]!, places[k + 1]!, 0)
          else rc = x.sqlite3_bind_blob(p, param, places[k]!, places[k + 1]!, 0)
          if (rc) sqlite.oo1.DB.checkRc(db, rc)
        }
      }
      const rc = x.sqlite3_step(p)
      if (rc !== SQLITE_DONE) {
        x.sqlite3_reset(p)
        sqlite.oo1.DB.checkRc(db, rc)
      }
      x.sqlite3_reset(p)
    }
  } finally {
    // The statement must let go of the buffer before it is freed.
    st?.finalize()
    if (base) x.sqlite3_free(base)
  }
}

function ascii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false
  return true
}

function writeAscii(heap: Uint8Array, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) heap[at + i] = s.charCodeAt(i)
  return s.length
}

/**
 * Binds `values` to a prepared statement as `oo1` does, except whole numbers beyond 2^53,
 * which bind as doubles (`oo1` would wrap them into int64: 1e20 became 7.7e18).
 */
export function bindValues(sqlite: Sqlite3Static, st: ReturnType<SqlDb['prepare']>, values: readonly (number | string | bigint | Uint8Array | null)[]): void {
  st.clearBindings()
  values.forEach((v, i) => {
    if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v)) {
      const rc = sqlite.capi.sqlite3_bind_double(st.pointer!, i + 1, v)
      if (rc) throw new Error(`Binding parameter ${i + 1} failed (SQLite code ${rc}).`)
    } else {
      st.bind(i + 1, v as never)
    }
  })
}
