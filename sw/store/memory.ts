/**
 * @module store/memory
 * A store that keeps everything in memory: for `--memory` servers and fast tests.
 */
import { concatBytes } from '../core/bytes.ts'
import { CHUNK_SIZE, joinChunks, type ImageSave, type Store } from './store.ts'

export class MemoryStore implements Store {
  #images = new Map<string, { size: number; chunks: Map<number, Uint8Array> }>()
  #blobs = new Map<string, Uint8Array>()

  async loadImage(name: string) {
    const img = this.#images.get(name)
    return img ? joinChunks(img.size, img.chunks) : undefined
  }

  async saveImage(name: string, save: ImageSave) {
    const prev = this.#images.get(name)?.chunks ?? new Map<number, Uint8Array>()
    const chunks = new Map(prev)
    for (const [i, c] of save.chunks) chunks.set(i, c.slice())
    const count = Math.ceil(save.size / CHUNK_SIZE)
    for (const i of chunks.keys()) if (i >= count) chunks.delete(i)
    this.#images.set(name, { size: save.size, chunks })
  }

  async deleteImage(name: string) { this.#images.delete(name) }
  async listImages() { return [...this.#images.keys()] }
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
  async close() {}
}
