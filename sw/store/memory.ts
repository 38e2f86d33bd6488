/**
 * @module store/memory
 * A store that keeps everything in memory: for `--memory` servers and fast tests. A
 * database's file is its pages in JS memory (`store/paged-file`), kept by name, so a database
 * closed and opened again finds its content.
 */
import { concatBytes } from '../core/bytes.ts'
import { PagedFile } from './paged-file.ts'
import type { DatabaseFile, Store } from './store.ts'

/** The file of one database: its pages are the store's copy, so a commit has nothing to save. */
class MemoryFile extends PagedFile implements DatabaseFile {
  async commit() { this.committed() }
  // Closing gives nothing back: the pages are the store's.
  override resident() { return 0 }
  // The pages stay with the store when the database closes.
  override close() {}
}

export class MemoryStore implements Store {
  #files = new Map<string, MemoryFile>()
  #blobs = new Map<string, Uint8Array>()

  async openDatabase(name: string) {
    let f = this.#files.get(name)
    if (!f) this.#files.set(name, (f = new MemoryFile(0, false)))
    return f
  }

  async deleteDatabase(name: string) { this.#files.delete(name) }
  async listDatabases() { return [...this.#files.keys()] }
  async putBlob(id: string, data: Uint8Array) { this.#blobs.set(id, data.slice()) }
  async putBlobStream(id: string, chunks: AsyncIterable<Uint8Array>) {
    const parts: Uint8Array[] = []
    for await (const c of chunks) parts.push(c.slice())
    const data = concatBytes(parts)
    this.#blobs.set(id, data)
    return data.length
  }
  async getBlob(id: string) { return this.#blobs.get(id)?.slice() }
  async deleteBlob(id: string) { this.#blobs.delete(id) }
  async listBlobs(prefix: string) { return [...this.#blobs.keys()].filter((id) => id.startsWith(prefix)) }
  async close() {}
}
