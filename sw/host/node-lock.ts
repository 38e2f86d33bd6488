/**
 * @module host/node-lock
 * One process per data folder. A process that opens a folder holds an exclusive lock on
 * `<data>/outpost.lock`: an OS lock on the open file (Linux: an open-file-description
 * `fcntl` lock; macOS: `flock`; Windows: `LockFileEx`), through `fs-native-extensions`. The
 * kernel drops it when the process ends however it ends (kill -9 included), so a restart never
 * waits for or guesses about a stale lock, and a recycled pid cannot hold it. The file's text
 * (the holder's pid and start time) is only for the message a second process prints.
 * Opened again in the same process (tests restart a store in place), the lock is shared.
 */
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, realpathSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { hostname } from 'node:os'
import { join } from 'node:path'

const { tryLock } = createRequire(import.meta.url)('fs-native-extensions') as { tryLock(fd: number): boolean }

export const LOCK_FILE = 'outpost.lock'

/** The folder is held by another process. */
export class FolderInUseError extends Error {
  constructor(readonly dir: string, readonly holder: string) {
    super(`The data folder ${dir} is in use by another Outpost process (${holder}). One process per data folder: `
      + 'stop that one, or give this one another --data folder.')
  }
}

/** Folders this process holds: the lock file's descriptor and how many stores use it. */
const held = new Map<string, { fd: number; users: number }>()

/**
 * Takes the lock of folder `dir` (created when missing) for this process, or throws
 * `FolderInUseError` having written nothing. Returns the function that gives it back.
 */
export function lockDataFolder(dir: string): () => void {
  mkdirSync(dir, { recursive: true })
  const real = realpathSync(dir)
  let entry = held.get(real)
  if (!entry) {
    const path = join(real, LOCK_FILE)
    // O_CREAT leaves an existing file as it is: a refused process changes no byte.
    const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644)
    let locked = false
    try {
      locked = tryLock(fd)
    } finally {
      if (!locked) closeSync(fd)
    }
    if (!locked) throw new FolderInUseError(real, holderOf(path))
    ftruncateSync(fd, 0)
    writeSync(fd, `pid ${process.pid} on ${hostname()} since ${new Date().toISOString()}\n`, 0)
    entry = { fd, users: 0 }
    held.set(real, entry)
  }
  entry.users++
  let released = false
  const e = entry
  return () => {
    if (released) return
    released = true
    if (--e.users > 0) return
    held.delete(real)
    closeSync(e.fd) // closing the descriptor drops the lock
  }
}

/** What the lock file says about its holder; it may be empty for the instant after it was taken. */
function holderOf(path: string): string {
  const text = (() => { try { return readFileSync(path, 'utf8').trim() } catch { return '' } })()
  return text || 'pid unknown'
}
