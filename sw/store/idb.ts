/**
 * @module store/idb
 * The browser's store: IndexedDB through Dexie. Databases are files of pages held in JS
 * memory while open and saved page by page at each commit (`store/idb-pages`); blobs are
 * rows by id.
 */
import { Dexie, type Table } from 'dexie'
import { insufficientStorage, operationalError } from '../core/error.ts'
import type { Store } from './store.ts'
import { deleteIdbFile, openIdbFile, type ChunkRow, type IdbPagesDeps, type ImageRow, type PageRow } from './idb-pages.ts'

interface BlobRow { id: string; data: Uint8Array }

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
    await this.#db.blobs.put({ id, data: data.slice() }).catch(mapError)
  }

  async getBlob(id: string) {
    return (await this.#db.blobs.get(id).catch(mapError))?.data
  }

  async deleteBlob(id: string) {
    await this.#db.blobs.delete(id).catch(mapError)
  }

  async close() { this.#db.close() }
}
