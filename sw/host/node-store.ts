/**
 * @module host/node-store
 * The Node host's store: a folder. Databases are SQLite files in `db/`, read and written page
 * by page through the VFS (`host/node-file`); blobs are files by id in `blobs/`, each written
 * as an atomic replace (temporary file, fsync, rename, fsync of the folder).
 */
import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { ApiError, operationalError } from '../core/error.ts'
import type { Store } from '../store/store.ts'
import { NodeDatabaseFile } from './node-file.ts'
import { migrateLegacyJournal } from './node-legacy-journal.ts'
import { lockDataFolder } from './node-lock.ts'

const safeName = (name: string) => {
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw operationalError(`Invalid storage name '${name}'.`)
  return name
}

async function syncDir(dir: string): Promise<void> {
  const d = await open(dir, 'r')
  try { await d.sync() } finally { await d.close() }
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
  await syncDir(dir)
}

/**
 * Deletes the temporary files of writes that an earlier process did not finish (named
 * `.<blob>.<pid>.<ms>.tmp`; a blob is only ever renamed from its own process's file). Only this
 * process writes in the folder (it holds the folder's lock, host/node-lock).
 */
async function dropStaleTemporaries(dir: string): Promise<void> {
  for (const name of await readdir(dir)) {
    const m = /^\..+\.(\d+)\.\d+\.tmp$/.exec(name)
    if (m && Number(m[1]) !== process.pid) await rm(join(dir, name), { force: true })
  }
}

export class FileStore implements Store {
  #db: string
  #blobs: string
  #ready: Promise<unknown>
  #unlock: () => void

  /** Throws `FolderInUseError`, having written nothing, when another process holds `dir`. */
  constructor(readonly dir: string) {
    this.#unlock = lockDataFolder(dir)
    this.#db = join(dir, 'db')
    this.#blobs = join(dir, 'blobs')
    this.#ready = Promise.all([mkdir(this.#db, { recursive: true }), mkdir(this.#blobs, { recursive: true })
      .then(() => dropStaleTemporaries(this.#blobs))])
  }

  /** Runs `fn`, failures as the one error type; a missing file reads as `undefined` where `missingOk`. */
  async #wrap<T>(what: string, fn: () => Promise<T>, missingOk = true): Promise<T> {
    await this.#ready
    try {
      return await fn()
    } catch (err) {
      if (missingOk && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined as T
      if (err instanceof ApiError) throw err // from a streamed body (413, a client gone), not the disk
      throw operationalError(`Storage failed while ${what}: ${(err as Error).message}`, err)
    }
  }

  #main(name: string): string {
    return join(this.#db, `${safeName(name)}.sqlite`)
  }

  openDatabase(name: string) {
    return this.#wrap('opening a database', async () => {
      const main = this.#main(name)
      migrateLegacyJournal(main)
      return new NodeDatabaseFile(main)
    }, false)
  }

  deleteDatabase(name: string) {
    return this.#wrap('deleting a database', async () => {
      const main = this.#main(name)
      // The logs first: a database file left alone is deleted again by the next sweep.
      await rm(`${main}-wal`, { force: true })
      await rm(main.replace(/\.sqlite$/, '.journal'), { force: true })
      await rm(main, { force: true })
    })
  }

  async listDatabases() {
    const names = (await this.#wrap('listing databases', () => readdir(this.#db))) ?? []
    return names.filter((n) => n.endsWith('.sqlite')).map((n) => n.slice(0, -'.sqlite'.length))
  }

  putBlob(id: string, data: Uint8Array) {
    return this.#wrap('saving a file', () => atomicWrite(this.#blobs, safeName(id), data), false)
  }

  /** Into a temporary file chunk by chunk, fsynced, then renamed over the blob: atomic. */
  putBlobStream(id: string, chunks: AsyncIterable<Uint8Array>) {
    return this.#wrap('saving a file', async () => {
      const name = safeName(id)
      const tmp = join(this.#blobs, `.${name}.${process.pid}.${Date.now()}.tmp`)
      let size = 0
      const fh = await open(tmp, 'w')
      try {
        for await (const c of chunks) {
          await fh.write(c)
          size += c.length
        }
        await fh.sync()
      } catch (err) {
        await fh.close().catch(() => undefined)
        await rm(tmp, { force: true })
        throw err
      }
      await fh.close()
      await rename(tmp, join(this.#blobs, name))
      await syncDir(this.#blobs)
      return size
    }, false)
  }

  getBlob(id: string) {
    return this.#wrap('reading a file', async () => new Uint8Array(await readFile(join(this.#blobs, safeName(id)))))
  }

  deleteBlob(id: string) {
    return this.#wrap('deleting a file', () => rm(join(this.#blobs, safeName(id)), { force: true }))
  }

  async listBlobs(prefix: string) {
    const names = (await this.#wrap('listing files', () => readdir(this.#blobs))) ?? []
    return names.filter((n) => n.startsWith(prefix))
  }

  async close() { this.#unlock() }
}
