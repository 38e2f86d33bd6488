/**
 * @module host/node-store
 * The Node host's store: a folder. Each database image is one file updated in place
 * through a redo journal, so a save writes only the chunks it changed yet stays atomic:
 *
 *   1. the changed chunks and a commit record go to `<name>.journal`, which is fsynced;
 *   2. the chunks are written into `<name>.sqlite`, which is truncated to size and fsynced;
 *   3. the journal is emptied.
 *
 * A crash before the journal's commit record is durable leaves the main file as the
 * previous save had it (the torn journal is ignored); a crash after it is repaired on the
 * next open by replaying the journal, which is idempotent. A save that carries every chunk
 * replaces the file instead (temporary file, fsync, rename, fsync the folder), as blobs,
 * files by id, are always written.
 */
import { constants } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { ApiError, operationalError } from '../core/error.ts'
import { CHUNK_SIZE, type ImageSave, type Store } from '../store/store.ts'

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

// ---- the redo journal ----
//
// Layout, little-endian: 'OPJ1', u32 chunk count, f64 image size; per chunk u32 index,
// u32 length, the bytes; then u32 CRC-32 of everything before it and 'DONE'. A journal is
// complete only when its length, trailer and checksum all agree.

const MAGIC = 0x314a504f // 'OPJ1'
const DONE = 0x454e4f44 // 'DONE'

/** Writes `save` as the journal at `path` and makes it durable. */
export async function writeJournal(path: string, save: ImageSave): Promise<void> {
  const head = Buffer.alloc(16)
  head.writeUInt32LE(MAGIC, 0)
  head.writeUInt32LE(save.chunks.size, 4)
  head.writeDoubleLE(save.size, 8)
  const parts: Buffer[] = [head]
  let crc = crc32(head)
  for (const [index, data] of save.chunks) {
    const h = Buffer.alloc(8)
    h.writeUInt32LE(index, 0)
    h.writeUInt32LE(data.byteLength, 4)
    const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    crc = crc32(body, crc32(h, crc))
    parts.push(h, body)
  }
  const tail = Buffer.alloc(8)
  tail.writeUInt32LE(crc, 0)
  tail.writeUInt32LE(DONE, 4)
  parts.push(tail)
  const fh = await open(path, 'w')
  try {
    await fh.writev(parts)
    await fh.sync()
  } finally {
    await fh.close()
  }
}

/** The save a complete journal holds, or `undefined` for an empty, torn or foreign one. */
export function readJournal(bytes: Uint8Array): ImageSave | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (b.length < 24 || b.readUInt32LE(0) !== MAGIC || b.readUInt32LE(b.length - 4) !== DONE) return undefined
  const count = b.readUInt32LE(4)
  const size = b.readDoubleLE(8)
  const chunks = new Map<number, Uint8Array>()
  let o = 16
  for (let i = 0; i < count; i++) {
    if (o + 8 > b.length - 8) return undefined
    const index = b.readUInt32LE(o)
    const length = b.readUInt32LE(o + 4)
    o += 8
    if (o + length > b.length - 8) return undefined
    chunks.set(index, b.subarray(o, o + length))
    o += length
  }
  if (o !== b.length - 8 || crc32(b.subarray(0, o)) !== b.readUInt32LE(o)) return undefined
  return { size, chunks }
}

/** Writes the chunks of `save` into the open main file, sets its size and fsyncs it. */
async function applySave(fh: FileHandle, save: ImageSave): Promise<void> {
  for (const [index, data] of save.chunks) {
    const end = Math.min(data.byteLength, save.size - index * CHUNK_SIZE)
    if (end > 0) await fh.write(data, 0, end, index * CHUNK_SIZE)
  }
  await fh.truncate(save.size)
  await fh.sync()
}

/** Opens `path` for reading and writing, creating it (and making its name durable) if missing. */
async function openMain(dir: string, path: string): Promise<FileHandle> {
  try {
    return await open(path, constants.O_RDWR)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    const fh = await open(path, constants.O_RDWR | constants.O_CREAT)
    await syncDir(dir)
    return fh
  }
}

/** The whole image when `save` carries every chunk of it, else `undefined`. */
function wholeImage(save: ImageSave): Uint8Array | undefined {
  const count = Math.ceil(save.size / CHUNK_SIZE)
  if (save.chunks.size < count) return undefined
  const image = new Uint8Array(save.size)
  for (let i = 0; i < count; i++) {
    const c = save.chunks.get(i)
    if (!c) return undefined
    image.set(c.subarray(0, Math.min(c.byteLength, save.size - i * CHUNK_SIZE)), i * CHUNK_SIZE)
  }
  return image
}

export class FileStore implements Store {
  #db: string
  #blobs: string
  #ready: Promise<unknown>
  /** Images whose journal has been checked since this store opened. */
  #recovered = new Set<string>()

  constructor(readonly dir: string) {
    this.#db = join(dir, 'db')
    this.#blobs = join(dir, 'blobs')
    this.#ready = Promise.all([mkdir(this.#db, { recursive: true }), mkdir(this.#blobs, { recursive: true })])
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

  #paths(name: string) {
    const n = safeName(name)
    return { main: join(this.#db, `${n}.sqlite`), journal: join(this.#db, `${n}.journal`) }
  }

  /** Finishes a save a crash interrupted: replays a complete journal, drops a torn one. */
  async #recover(name: string): Promise<void> {
    if (this.#recovered.has(name)) return
    const { main, journal } = this.#paths(name)
    const bytes = await readFile(journal).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined
      throw err
    })
    if (bytes?.length) {
      const save = readJournal(bytes)
      if (save) {
        const fh = await openMain(this.#db, main)
        try { await applySave(fh, save) } finally { await fh.close() }
      }
      await this.#clearJournal(journal)
    }
    this.#recovered.add(name)
  }

  async #clearJournal(path: string): Promise<void> {
    const fh = await open(path, 'r+')
    try {
      // Not fsynced: a journal that survives a crash is only replayed once more.
      await fh.truncate(0)
    } finally {
      await fh.close()
    }
  }

  loadImage(name: string) {
    return this.#wrap('reading a database', async () => {
      await this.#recover(name)
      return new Uint8Array(await readFile(this.#paths(name).main))
    })
  }

  saveImage(name: string, save: ImageSave) {
    return this.#wrap('saving a database', async () => {
      await this.#recover(name)
      const { main, journal } = this.#paths(name)
      const whole = wholeImage(save)
      if (whole) {
        // Every chunk changed (a new database, a big import): replacing the file writes the
        // bytes once, where the journal would write them twice. The journal is empty here.
        await atomicWrite(this.#db, `${safeName(name)}.sqlite`, whole)
        return
      }
      // The main file exists before any journal names it, so listImages always sees it.
      const fh = await openMain(this.#db, main)
      try {
        const fresh = !(await stat(journal).catch(() => undefined))
        await writeJournal(journal, save)
        if (fresh) await syncDir(this.#db)
        await applySave(fh, save)
      } finally {
        await fh.close()
      }
      await this.#clearJournal(journal)
    }, false)
  }

  deleteImage(name: string) {
    return this.#wrap('deleting a database', async () => {
      const { main, journal } = this.#paths(name)
      // The journal first: a main file left alone is deleted again by the next sweep.
      await rm(journal, { force: true })
      await rm(main, { force: true })
      this.#recovered.delete(name)
    })
  }

  async listImages() {
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

  async close() {}
}
