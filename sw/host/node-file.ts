/**
 * @module host/node-file
 * The Node host's database files: the file is the database. SQLite reads the pages it needs
 * from `<name>.sqlite` with positioned reads (its page cache is bounded), and makes a commit
 * durable itself: the pages it changed are appended to its write-ahead log
 * `<name>.sqlite-wal` with a checksummed commit frame, and the log is fsynced (one fsync per
 * commit). Every 1000 pages or so a checkpoint copies the logged pages into the file and
 * fsyncs it. A crash at any point leaves the old or the new state: on the next open SQLite
 * replays the log's complete commits and ignores a torn tail.
 */
import { closeSync, constants, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'
import type { DatabaseFile, LogFile, SyncFile } from '../store/store.ts'

/** fsyncs folder `dir`, so a file created in it keeps its name after a crash. */
export function syncDirSync(dir: string): void {
  const fd = openSync(dir, 'r')
  try { fdatasyncSync(fd) } finally { closeSync(fd) }
}

/** Opens `path` for reading and writing, creating it; `created` tells whether it was new. */
function openRw(path: string): { fd: number; created: boolean } {
  try {
    return { fd: openSync(path, constants.O_RDWR), created: false }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    return { fd: openSync(path, constants.O_RDWR | constants.O_CREAT), created: true }
  }
}

/** A file on disk with positioned, synchronous I/O (SQLite's VFS is synchronous). */
export class FsFile implements SyncFile {
  #fd: number
  #path: string
  #size: number
  /** Created by this open: its folder is fsynced with its first sync. */
  #created: boolean

  constructor(path: string) {
    const { fd, created } = openRw(path)
    this.#fd = fd
    this.#path = path
    this.#created = created
    this.#size = fstatSync(fd).size
  }

  read(into: Uint8Array, offset: number): number {
    let n = 0
    while (n < into.length) {
      const got = readSync(this.#fd, into, n, into.length - n, offset + n)
      if (got === 0) break
      n += got
    }
    return n
  }

  write(data: Uint8Array, offset: number): void {
    for (let n = 0; n < data.length;) n += writeSync(this.#fd, data, n, data.length - n, offset + n)
    this.#size = Math.max(this.#size, offset + data.length)
  }

  size(): number { return this.#size }

  truncate(size: number): void {
    ftruncateSync(this.#fd, size)
    this.#size = size
  }

  sync(): void {
    // fdatasync also carries the file's size: all SQLite needs of the metadata.
    fdatasyncSync(this.#fd)
    if (this.#created) {
      syncDirSync(dirname(this.#path))
      this.#created = false
    }
  }

  close(): void {
    closeSync(this.#fd)
  }
}

/** SQLite's write-ahead log of the database at `main`. */
function logOf(main: string): LogFile {
  const path = `${main}-wal`
  return {
    open: () => new FsFile(path),
    exists: () => {
      try {
        return statSync(path).isFile()
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false
        throw err
      }
    },
    remove: () => {
      try { unlinkSync(path) } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err }
    },
  }
}

/** A database file: durable as SQLite writes and syncs it, so a commit has nothing left to do. */
export class NodeDatabaseFile extends FsFile implements DatabaseFile {
  readonly wal: LogFile

  constructor(path: string) {
    super(path)
    this.wal = logOf(path)
  }

  async commit(): Promise<void> {}
  /** Only SQLite's bounded page cache is in memory. */
  resident(): number { return 0 }
}
