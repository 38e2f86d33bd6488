/**
 * @module store/idb
 * The browser's store: IndexedDB through Dexie. One save is one readwrite transaction over
 * the chunks it changed and the image's size record, so it lands whole or not at all.
 */
import { Dexie, type Table } from 'dexie'
import { concatBytes } from '../core/bytes.ts'
import { operationalError } from '../core/error.ts'
import { CHUNK_SIZE, joinChunks, type ImageSave, type Store } from './store.ts'

interface ChunkRow { db: string; idx: number; data: Uint8Array }
interface ImageRow { name: string; size: number }
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
  blobs!: Table<BlobRow, string>

  constructor(name: string, deps?: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }) {
    // 'strict' asks Chromium to flush to disk before the transaction completes: an
    // acknowledged write then survives a browser or OS crash, not only a killed worker.
    // No query cache: saves write past Dexie (see IdbStore.saveImage).
    super(name, { ...deps, chromeTransactionDurability: 'strict', cache: 'disabled' })
    this.version(1).stores({ chunks: '[db+idx]', images: 'name', blobs: 'id' })
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
    throw operationalError('The browser refused to store more data (storage quota exceeded).', err)
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

  /** One native readonly transaction, as saves are (each layer's first request loads one). */
  async loadImage(name: string) {
    try {
      const idb = await this.#native()
      return await new Promise<Uint8Array | undefined>((resolve, reject) => {
        const tx = idb.transaction(['chunks', 'images'], 'readonly')
        tx.onerror = () => reject(tx.error)
        tx.onabort = () => reject(tx.error ?? new DOMException('The load was aborted.', 'AbortError'))
        const meta = tx.objectStore('images').get(name) as IDBRequest<ImageRow | undefined>
        meta.onsuccess = () => {
          if (!meta.result) { resolve(undefined); return }
          const size = meta.result.size
          const rows = tx.objectStore('chunks').getAll(this.#keyRange.bound([name, 0], [name, Infinity])) as IDBRequest<ChunkRow[]>
          rows.onsuccess = () => {
            try {
              resolve(joinChunks(size, new Map(rows.result.map((r) => [r.idx, r.data]))))
            } catch (err) {
              reject(err)
            }
          }
        }
      })
    } catch (err) {
      return mapError(err)
    }
  }

  /** Dexie's open database, for the native transactions on the hot paths. */
  async #native(): Promise<IDBDatabase> {
    if (!this.#db.isOpen()) await this.#db.open()
    return this.#db.backendDB()
  }

  /**
   * One native readwrite transaction (strict durability) over the database Dexie opened:
   * saves are on every write's path, and Dexie's promise and middleware layers cost more
   * there than IndexedDB's own work.
   */
  async saveImage(name: string, save: ImageSave) {
    const count = Math.ceil(save.size / CHUNK_SIZE)
    try {
      const idb = await this.#native()
      await new Promise<void>((resolve, reject) => {
        const tx = idb.transaction(['chunks', 'images'], 'readwrite', { durability: 'strict' })
        tx.oncomplete = () => resolve()
        tx.onerror = () => reject(tx.error)
        tx.onabort = () => reject(tx.error ?? new DOMException('The save was aborted.', 'AbortError'))
        const chunks = tx.objectStore('chunks')
        for (const [idx, data] of save.chunks) chunks.put({ db: name, idx, data } satisfies ChunkRow)
        // A shrunken image leaves stale chunks past its end; drop them by key range.
        chunks.delete(this.#keyRange.bound([name, count], [name, Infinity]))
        tx.objectStore('images').put({ name, size: save.size } satisfies ImageRow)
      })
    } catch (err) {
      mapError(err)
    }
  }

  async deleteImage(name: string) {
    const db = this.#db
    await db.transaction('rw', db.chunks, db.images, async () => {
      await db.chunks.where('[db+idx]').between([name, 0], [name, Infinity]).delete()
      await db.images.delete(name)
    }).catch(mapError)
  }

  async listImages() {
    return (await this.#db.images.toCollection().primaryKeys().catch(mapError)) as string[]
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

  async close() { this.#db.close() }
}
