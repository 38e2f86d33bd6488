/**
 * A store for tests of what failures do: it passes everything to another store, with hooks
 * on its files. Used by store.test.ts (the Database) and port.test.ts (the data port).
 */
import type { DatabaseFile, Store, SyncFile } from '../../sw/store/store.ts'

/**
 * Passes everything to `inner`, with hooks on its files: commits fail while `failing` is set
 * (a full quota), writes into a file fail while `full` is (memory that ran out), and the bytes
 * SQLite writes are counted.
 */
export class HookedStore implements Store {
  failing = false
  full = false
  saves = 0
  written = 0
  constructor(readonly inner: Store) {}
  #wrap(f: SyncFile): SyncFile {
    return {
      read: (into, offset) => f.read(into, offset),
      write: (data, offset) => {
        if (this.full) throw new RangeError('Array buffer allocation failed (injected)')
        this.written += data.length
        f.write(data, offset)
      },
      size: () => f.size(),
      truncate: (size) => f.truncate(size),
      sync: () => f.sync(),
      close: () => f.close(),
    }
  }
  async openDatabase(name: string): Promise<DatabaseFile> {
    const f = await this.inner.openDatabase(name)
    const wal = f.wal
    return {
      ...this.#wrap(f),
      wal: wal && { open: () => this.#wrap(wal.open()), exists: () => wal.exists(), remove: () => wal.remove() },
      resident: () => f.resident(),
      commit: async () => {
        if (this.failing) throw new Error('QuotaExceededError (injected)')
        this.saves++
        return f.commit()
      },
    }
  }
  deleteDatabase(name: string) { return this.inner.deleteDatabase(name) }
  listDatabases() { return this.inner.listDatabases() }
  putBlob(id: string, data: Uint8Array) { return this.inner.putBlob(id, data) }
  putBlobStream(id: string, chunks: AsyncIterable<Uint8Array>) { return this.inner.putBlobStream(id, chunks) }
  getBlob(id: string) { return this.inner.getBlob(id) }
  deleteBlob(id: string) { return this.inner.deleteBlob(id) }
  listBlobs(prefix: string) { return this.inner.listBlobs(prefix) }
  close() { return this.inner.close() }
}

