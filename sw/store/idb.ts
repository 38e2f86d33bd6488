/**
 * @module store/idb
 * The browser's store: IndexedDB through Dexie. Databases are files of pages held in JS
 * memory while open and saved page by page at each commit (`store/idb-pages`); blobs are
 * rows by id.
 */
import { Dexie, type Table } from 'dexie'
import { concatBytes } from '../core/bytes.ts'
import { insufficientStorage, operationalError } from '../core/error.ts'
import type { Store } from './store.ts'
import { deleteIdbFile, openIdbFile, type ChunkRow, type IdbPagesDeps, type ImageRow, type PageRow } from './idb-pages.ts'

/**
 * A blob: its bytes in `data`, or, when it was written as a stream, the row of its manifest
 * (`gen`, `parts`, `size`) with the bytes in part rows keyed `<id>\0<gen>\0<index>`, each
 * about `PART_SIZE`. A stream's parts are written first and its manifest last, in one
 * transaction that also drops any older bytes of the id, so a blob is always whole.
 */
interface BlobRow { id: string; data?: Uint8Array; gen?: string; parts?: number; size?: number }

const PART_SIZE = 1 << 20
const partsOf = (id: string) => [`${id}\u0000`, `${id}\u0001`] as const
const partKey = (id: string, gen: string, n: number) => `${id}\u0000${gen}\u0000${String(n).padStart(8, '0')}`

class OutpostDexie extends Dexie {
  chunks!: Table<ChunkRow, [string, number]>
  images!: Table<ImageRow, string>
  pages!: Table<PageRow, [string, number]>
  blobs!: Table<BlobRow, string>

  constructor(name: string, deps?: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }) {
    // 'strict' asks Chromium to flush to disk before the transaction completes: an
    // acknowledged write then survives a browser or OS crash, not only a killed worker.
    // No query cache: database pages are read and written past Dexie (store/idb-pages).
    super(name, { ...deps, chromeTransactionDurability: 'strict', cache: 'disabled' })
    this.version(1).stores({ chunks: '[db+idx]', images: 'name', blobs: 'id' })
    // 2: database files as segments plus the 4 KiB pages changed since (store/idb-pages).
    this.version(2).stores({ pages: '[db+no]' })
  }
}

export interface IdbStoreOptions {
  /** IndexedDB database name. @default 'outpost' */
  name?: string
  /** Injected IndexedDB (fake-indexeddb in Node tests). @default the global one */
  deps?: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }
}

/** Maps IndexedDB's failures to the one error type, keeping the original as `cause`. */
function mapError(err: unknown): never {
  const name = (err as { name?: string })?.name ?? ''
  const inner = (err as { inner?: { name?: string } })?.inner?.name ?? ''
  if (name.includes('Quota') || inner.includes('Quota')) {
    throw insufficientStorage('quota', "The browser's storage quota for this site is full: nothing of this request was stored.", err)
  }
  throw operationalError(`The browser's storage failed: ${(err as Error)?.message ?? err}`, err)
}

export class IdbStore implements Store {
  #db: OutpostDexie
  #keyRange: typeof IDBKeyRange

  constructor(opts: IdbStoreOptions = {}) {
    this.#db = new OutpostDexie(opts.name ?? 'outpost', opts.deps)
    this.#keyRange = opts.deps?.IDBKeyRange ?? IDBKeyRange
  }

  async openDatabase(name: string) {
    return openIdbFile(await this.#pages(), name)
  }

  async deleteDatabase(name: string) {
    await deleteIdbFile(await this.#pages(), name)
  }

  async listDatabases() {
    return (await this.#db.images.toCollection().primaryKeys().catch(mapError)) as string[]
  }

  /**
   * Dexie's open database for the native transactions of `store/idb-pages`: pages are on
   * every write's path, and Dexie's promise and middleware layers cost more there than
   * IndexedDB's own work.
   */
  async #pages(): Promise<IdbPagesDeps> {
    try {
      if (!this.#db.isOpen()) await this.#db.open()
    } catch (err) {
      mapError(err)
    }
    return { idb: this.#db.backendDB(), keyRange: this.#keyRange, mapError }
  }

  async putBlob(id: string, data: Uint8Array) {
    const { blobs } = this.#db
    await this.#db.transaction('rw', blobs, async () => {
      await blobs.put({ id, data: data.slice() })
      await blobs.where('id').between(...partsOf(id)).delete()
    }).catch(mapError)
  }

  async putBlobStream(id: string, chunks: AsyncIterable<Uint8Array>) {
    const { blobs } = this.#db
    const gen = Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('')
    let parts = 0
    let size = 0
    let pending: Uint8Array[] = []
    let pendingSize = 0
    // A part per transaction: IndexedDB cannot keep one open while the network is awaited.
    const flush = async () => {
      if (!pendingSize) return
      const data = pending.length === 1 ? pending[0]!.slice() : concatBytes(pending)
      pending = []
      pendingSize = 0
      await blobs.put({ id: partKey(id, gen, parts++), data }).catch(mapError)
    }
    try {
      for await (const c of chunks) {
        pending.push(c)
        pendingSize += c.length
        size += c.length
        if (pendingSize >= PART_SIZE) await flush()
      }
      await flush()
    } catch (err) {
      await blobs.where('id').between(`${id}\u0000${gen}\u0000`, `${id}\u0000${gen}\u0001`).delete().catch(() => undefined)
      throw err
    }
    await this.#db.transaction('rw', blobs, async () => {
      await blobs.put({ id, gen, parts, size })
      const mine = `${id}\u0000${gen}\u0000`
      await blobs.where('id').between(...partsOf(id)).filter((r) => !r.id.startsWith(mine)).delete()
    }).catch(mapError)
    return size
  }

  async getBlob(id: string) {
    const { blobs } = this.#db
    return this.#db.transaction('r', blobs, async () => {
      const row = await blobs.get(id)
      if (!row || row.data) return row?.data
      const parts = await blobs.where('id').between(`${id}\u0000${row.gen}\u0000`, `${id}\u0000${row.gen}\u0001`).toArray()
      if (parts.length !== row.parts) throw new Error(`Blob ${id} is missing parts (${parts.length} of ${row.parts}).`)
      return concatBytes(parts.map((p) => p.data!))
    }).catch(mapError)
  }

  async deleteBlob(id: string) {
    const { blobs } = this.#db
    await this.#db.transaction('rw', blobs, async () => {
      await blobs.delete(id)
      await blobs.where('id').between(...partsOf(id)).delete()
    }).catch(mapError)
  }

  async listBlobs(prefix: string) {
    // Parts are keyed `<id>\0<generation>\0<n>`: an abandoned stream's parts give their blob's id.
    const keys = await this.#db.blobs.where('id').between(prefix, `${prefix}\uffff`).primaryKeys().catch(mapError) as string[]
    return [...new Set(keys.map((k) => k.split('\u0000')[0]!))]
  }

  async close() { this.#db.close() }
}
