/**
 * @module store/idb-pages
 * A database file in IndexedDB, held in JS memory while open (`store/paged-file`). Rows:
 *
 *   images  { name, size, segment }  one per database: its size in bytes; `segment` is the
 *                                    row size of `chunks` (absent: the old 64 KiB chunks)
 *   chunks  { db, idx, data: Blob }  segment `idx` of the file, whole (1 MiB)
 *   pages   { db, no, data }         4 KiB block `no`, newer than its segment
 *
 * Opening reads every row in one transaction. A commit writes, in one transaction with
 * strict durability, the blocks SQLite wrote as `pages` rows — or a whole segment where a
 * quarter of its blocks changed — so its cost follows the change, not the file. Page rows are
 * folded back into their segments while the database is idle (and by large commits once they
 * pass 1/32 of the file), which keeps opening fast: Chromium reads 1 MiB blobs several times
 * faster per byte than 4 KiB rows.
 */
import { BLOCK, BLOCKS_PER_SEGMENT, PagedFile, SEGMENT } from './paged-file.ts'
import type { DatabaseFile } from './store.ts'

export interface ImageRow { name: string; size: number; segment?: number }
export interface ChunkRow { db: string; idx: number; data: Blob | Uint8Array }
export interface PageRow { db: string; no: number; data: Uint8Array<ArrayBuffer> }

/** Size of a chunk row in the first layout, which held the file as 64 KiB chunks only. */
const LEGACY_CHUNK = 65536
/**
 * A segment with this many changed blocks (a quarter) is written whole: its page rows would
 * cost about as much to write as the segment, and more to fold back later.
 */
const WHOLE_AT = BLOCKS_PER_SEGMENT / 4
/**
 * Most segments folded by a large commit (one writing at least `WHOLE_AT` blocks) while page
 * rows are over their share; small commits — an edit — never fold: the idle `tidy` does.
 */
const FOLDS_PER_COMMIT = 2
/** Most segments folded per idle step (`tidy`): a step stays short for a request that arrives. */
const FOLDS_PER_TIDY = 4
/** Page rows below this many are never folded: small databases open fast anyway. */
const FOLD_FLOOR = 256

export interface IdbPagesDeps {
  idb: IDBDatabase
  keyRange: typeof IDBKeyRange
  /** Maps a failure of IndexedDB to the one error type. */
  mapError(err: unknown): never
}

/** Runs one native transaction over the page tables; resolves when it completes. */
function run(deps: IdbPagesDeps, mode: IDBTransactionMode, fn: (tx: IDBTransaction) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const tx = deps.idb.transaction(['images', 'chunks', 'pages'], mode, { durability: 'strict' })
    tx.oncomplete = () => resolve()
    tx.onerror = () => reject(tx.error)
    tx.onabort = () => reject(tx.error ?? new DOMException('The transaction was aborted.', 'AbortError'))
    try {
      fn(tx)
    } catch (err) {
      // A request that throws (a full quota, a value that cannot be stored) takes the rest with it.
      tx.onabort = null
      tx.abort()
      reject(err)
    }
  }).catch(deps.mapError)
}

const bytesOf = async (data: Blob | Uint8Array): Promise<Uint8Array<ArrayBuffer>> =>
  (data instanceof Uint8Array ? data as Uint8Array<ArrayBuffer> : new Uint8Array(await data.arrayBuffer()))

/** Opens database `name`: every row in one transaction (old layouts are rewritten once). */
export async function openIdbFile(deps: IdbPagesDeps, name: string): Promise<IdbFile> {
  let meta: ImageRow | undefined
  let chunks: ChunkRow[] = []
  let pages: PageRow[] = []
  await run(deps, 'readonly', (tx) => {
    const m = tx.objectStore('images').get(name) as IDBRequest<ImageRow | undefined>
    m.onsuccess = () => {
      meta = m.result
      if (!meta) return
      const c = tx.objectStore('chunks').getAll(deps.keyRange.bound([name, 0], [name, Infinity])) as IDBRequest<ChunkRow[]>
      c.onsuccess = () => { chunks = c.result }
      const p = tx.objectStore('pages').getAll(deps.keyRange.bound([name, 0], [name, Infinity])) as IDBRequest<PageRow[]>
      p.onsuccess = () => { pages = p.result }
    }
  })
  if (!meta) return new IdbFile(deps, name, 0, false)
  const rowSize = meta.segment ?? LEGACY_CHUNK
  const datas = await Promise.all(chunks.map((c) => bytesOf(c.data)))
  const file = new IdbFile(deps, name, meta.size, true)
  chunks.forEach((c, i) => file.restore(datas[i]!, c.idx * rowSize))
  for (const p of pages) {
    file.restore(p.data, p.no * BLOCK)
    file.noteStored(p.no)
  }
  if (rowSize !== SEGMENT) await file.rewrite()
  return file
}

/** Deletes every row of database `name` in one transaction. */
export function deleteIdbFile(deps: IdbPagesDeps, name: string): Promise<void> {
  return run(deps, 'readwrite', (tx) => {
    tx.objectStore('chunks').delete(deps.keyRange.bound([name, 0], [name, Infinity]))
    tx.objectStore('pages').delete(deps.keyRange.bound([name, 0], [name, Infinity]))
    tx.objectStore('images').delete(name)
  })
}

export class IdbFile extends PagedFile implements DatabaseFile {
  #deps: IdbPagesDeps
  #name: string
  /** Blocks stored as page rows, by segment. */
  #stored = new Map<number, Set<number>>()
  #storedCount = 0
  /** The size the store holds, and whether it holds the database at all. */
  #savedSize: number
  #exists: boolean

  /** A file of `size` bytes, filled by `restore` while opening. */
  constructor(deps: IdbPagesDeps, name: string, size: number, exists: boolean) {
    super(size)
    this.#deps = deps
    this.#name = name
    this.#savedSize = size
    this.#exists = exists
  }

  /** Block `no` is stored as a page row (while opening). */
  noteStored(no: number): void {
    const s = Math.floor(no / BLOCKS_PER_SEGMENT)
    let set = this.#stored.get(s)
    if (!set) this.#stored.set(s, (set = new Set()))
    if (!set.has(no)) this.#storedCount++
    set.add(no)
  }

  /** Writes the whole file as segments (the old layout's one-time migration). */
  async rewrite(): Promise<void> {
    const count = Math.ceil(this.size() / SEGMENT)
    await this.#save(new Set(Array.from({ length: count }, (_, i) => i)), [], true)
  }

  async commit(): Promise<void> {
    const end = Math.ceil(this.size() / BLOCK)
    const dirty = this.dirtyBlocks().filter((b) => b < end)
    if (!dirty.length && this.size() === this.#savedSize && this.#exists) return
    const bySegment = new Map<number, number>()
    for (const b of dirty) {
      const s = Math.floor(b / BLOCKS_PER_SEGMENT)
      bySegment.set(s, (bySegment.get(s) ?? 0) + 1)
    }
    const whole = new Set<number>()
    for (const [s, n] of bySegment) if (n + (this.#stored.get(s)?.size ?? 0) >= WHOLE_AT) whole.add(s)
    // A large commit also folds the segments with the most page rows while those are over their share.
    if (dirty.length >= WHOLE_AT) this.#fold(whole, Math.max(FOLD_FLOOR, end / 32), FOLDS_PER_COMMIT, dirty.length)
    await this.#save(whole, dirty.filter((b) => !whole.has(Math.floor(b / BLOCKS_PER_SEGMENT))), false)
  }

  /**
   * While the database is idle: folds the page rows of a few segments back into them, so the
   * next open reads mostly segments. Resolves true while more page rows than the floor remain.
   */
  async tidy(): Promise<boolean> {
    if (this.#storedCount <= FOLD_FLOOR || this.dirtyBlocks().length) return false
    const whole = new Set<number>()
    this.#fold(whole, FOLD_FLOOR, FOLDS_PER_TIDY, 0)
    await this.#save(whole, [], false)
    return this.#storedCount > FOLD_FLOOR
  }

  /** Adds to `whole` up to `most` segments with the most page rows, while rows exceed `cap`. */
  #fold(whole: Set<number>, cap: number, most: number, adding: number): void {
    let rows = this.#storedCount + adding
    const candidates = [...this.#stored].filter(([s]) => !whole.has(s)).sort((a, b) => b[1].size - a[1].size)
    for (const [s, set] of candidates.slice(0, most)) {
      if (rows <= cap) break
      whole.add(s)
      rows -= set.size
    }
  }

  async #save(whole: Set<number>, blocks: number[], replaceAll: boolean): Promise<void> {
    const { keyRange } = this.#deps
    const name = this.#name
    const size = this.size()
    const segCount = Math.ceil(size / SEGMENT)
    const blockCount = Math.ceil(size / BLOCK)
    // The rows are made before the transaction: a Blob copies its bytes, `block` too.
    const segRows = [...whole].filter((s) => s < segCount).map((s) => ({ db: name, idx: s, data: new Blob([this.segment(s)]) }) satisfies ChunkRow)
    const pageRows = blocks.map((no) => ({ db: name, no, data: this.block(no) }) satisfies PageRow)
    await run(this.#deps, 'readwrite', (tx) => {
      const chunks = tx.objectStore('chunks')
      const pages = tx.objectStore('pages')
      if (replaceAll) chunks.delete(keyRange.bound([name, 0], [name, Infinity]))
      for (const row of segRows) {
        chunks.put(row)
        if (this.#stored.has(row.idx)) pages.delete(keyRange.bound([name, row.idx * BLOCKS_PER_SEGMENT], [name, (row.idx + 1) * BLOCKS_PER_SEGMENT - 1]))
      }
      for (const row of pageRows) pages.put(row)
      if (size < this.#savedSize) {
        chunks.delete(keyRange.bound([name, segCount], [name, Infinity]))
        pages.delete(keyRange.bound([name, blockCount], [name, Infinity]))
      }
      tx.objectStore('images').put({ name, size, segment: SEGMENT } satisfies ImageRow)
    })
    for (const s of whole) {
      this.#storedCount -= this.#stored.get(s)?.size ?? 0
      this.#stored.delete(s)
    }
    for (const b of blocks) this.noteStored(b)
    if (size < this.#savedSize) {
      for (const [s, set] of this.#stored) {
        for (const b of set) if (b >= blockCount) { set.delete(b); this.#storedCount-- }
        if (!set.size) this.#stored.delete(s)
      }
    }
    this.#savedSize = size
    this.#exists = true
    this.committed()
  }
}
