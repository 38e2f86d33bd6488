/**
 * @module host/node-store
 * The Node host's store: a folder. Each database image is one file, replaced atomically
 * (write a temporary file, fsync, rename, fsync the folder); blobs are files by id.
 */
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { operationalError } from '../core/error.ts'
import type { ImageSave, Store } from '../store/store.ts'

const safeName = (name: string) => {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw operationalError(`Invalid storage name '${name}'.`)
  return name
}

async function atomicWrite(dir: string, name: string, data: Uint8Array): Promise<void> {
  const tmp = join(dir, `.${name}.${process.pid}.${Date.now()}.tmp`)
  const fh = await open(tmp, 'w')
  try {
    await fh.writeFile(data)
    await fh.sync()
  } finally {
    await fh.close()
  }
  await rename(tmp, join(dir, name))
  const d = await open(dir, 'r')
  try { await d.sync() } finally { await d.close() }
}

export class FileStore implements Store {
  readonly wantsFullImage = true
  #db: string
  #blobs: string
  #ready: Promise<unknown>

  constructor(readonly dir: string) {
    this.#db = join(dir, 'db')
    this.#blobs = join(dir, 'blobs')
    this.#ready = Promise.all([mkdir(this.#db, { recursive: true }), mkdir(this.#blobs, { recursive: true })])
  }

  async #wrap<T>(what: string, fn: () => Promise<T>): Promise<T> {
    await this.#ready
    try {
      return await fn()
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined as T
      throw operationalError(`Storage failed while ${what}: ${(err as Error).message}`, err)
    }
  }

  loadImage(name: string) {
    return this.#wrap('reading a database', async () => new Uint8Array(await readFile(join(this.#db, `${safeName(name)}.sqlite`))))
  }

  saveImage(name: string, save: ImageSave) {
    if (!save.image) throw new Error('FileStore needs the whole image.')
    return this.#wrap('saving a database', () => atomicWrite(this.#db, `${safeName(name)}.sqlite`, save.image!))
  }

  deleteImage(name: string) {
    return this.#wrap('deleting a database', () => rm(join(this.#db, `${safeName(name)}.sqlite`), { force: true }))
  }

  async listImages() {
    const names = (await this.#wrap('listing databases', () => readdir(this.#db))) ?? []
    return names.filter((n) => n.endsWith('.sqlite')).map((n) => n.slice(0, -'.sqlite'.length))
  }

  putBlob(id: string, data: Uint8Array) {
    return this.#wrap('saving a file', () => atomicWrite(this.#blobs, safeName(id), data))
  }

  getBlob(id: string) {
    return this.#wrap('reading a file', async () => new Uint8Array(await readFile(join(this.#blobs, safeName(id)))))
  }

  deleteBlob(id: string) {
    return this.#wrap('deleting a file', () => rm(join(this.#blobs, safeName(id)), { force: true }))
  }

  async close() {}
}
