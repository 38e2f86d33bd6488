/**
 * @module store/store
 * The storage port: the only thing the backend persists through. Databases are saved as
 * images cut into fixed-size chunks, so a write stores only the chunks it changed; blobs
 * (uploads, attachments) are kept whole by id. Every `save*`/`put*` is durable when its
 * promise resolves, and atomic: after a crash either all of it is there or none.
 */

/** Size of one saved piece of a database image: 16 SQLite pages of 4 KiB. */
export const CHUNK_SIZE = 65536

export interface ImageSave {
  /** Byte length of the whole image after this save. */
  size: number
  /** Chunks that changed since the previous save, by index, as private copies. */
  chunks: Map<number, Uint8Array>
}

export interface Store {
  /** The saved image of database `name`, or `undefined` when there is none. */
  loadImage(name: string): Promise<Uint8Array | undefined>
  saveImage(name: string, save: ImageSave): Promise<void>
  deleteImage(name: string): Promise<void>
  /** Names of every saved database image. */
  listImages(): Promise<string[]>
  putBlob(id: string, data: Uint8Array): Promise<void>
  /**
   * Writes blob `id` from `chunks` as they arrive, never holding it whole (uploads of any
   * size). Returns the byte count. Durable and atomic like `putBlob` when it resolves; if
   * `chunks` throws, the write is abandoned and the blob is as it was before.
   */
  putBlobStream(id: string, chunks: AsyncIterable<Uint8Array>): Promise<number>
  /** The blob's bytes, or `undefined` when there is none. */
  getBlob(id: string): Promise<Uint8Array | undefined>
  deleteBlob(id: string): Promise<void>
  close(): Promise<void>
}

/** Rebuilds an image from its chunks; a missing chunk means the store is corrupt. */
export function joinChunks(size: number, chunks: Map<number, Uint8Array>): Uint8Array {
  const image = new Uint8Array(size)
  const count = Math.ceil(size / CHUNK_SIZE)
  for (let i = 0; i < count; i++) {
    const c = chunks.get(i)
    if (!c) throw new Error(`Database image is missing chunk ${i} of ${count}.`)
    image.set(c.subarray(0, Math.min(CHUNK_SIZE, size - i * CHUNK_SIZE)), i * CHUNK_SIZE)
  }
  return image
}
