/**
 * @module store/vfs
 * The "outpost" SQLite VFS, written in JavaScript: SQLite's page reads and writes go to the
 * `DatabaseFile` the store opened (a file on disk in Node, pages in JS memory in the
 * browser), its write-ahead log to the store's log file, its rollback journal and temporary
 * files to JS memory — never into the WASM heap, which holds only SQLite's bounded page
 * cache. Every database a `Database` opens is registered here under a path of its own.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { PagedFile } from './paged-file.ts'
import type { DatabaseFile, LogFile, SyncFile } from './store.ts'

export const VFS_NAME = 'outpost'
const SECTOR_SIZE = 4096
const encoder = new TextEncoder()

/** A database registered with the VFS, and the last storage failure it met. */
export interface VfsEntry {
  readonly path: string
  readonly file: DatabaseFile
  /** The error behind the last failed read or write (what is full, what broke). */
  lastError: unknown
  /** Bytes in the write-ahead log while SQLite has it open, else 0. */
  logSize(): number
  unregister(): void
}

interface Entry extends VfsEntry {
  /** SQLite's rollback journal, in JS memory: durability is the store's commit or the log's. */
  journal?: PagedFile
  /** The write-ahead log while open. */
  log?: SyncFile
}

/** An open file of SQLite's; `owned` ones are closed with it (not the database, not its journal). */
interface Handle { file: SyncFile; entry?: Entry; owned: boolean }

const byModule = new WeakMap<Sqlite3Static, Map<string, Entry>>()
let nextId = 0

/** Registers `file` under a new path for SQLite to open with `vfs: VFS_NAME`. */
export function registerFile(sqlite: Sqlite3Static, file: DatabaseFile): VfsEntry {
  const entries = install(sqlite)
  const path = `/outpost-${++nextId}.db`
  const entry: Entry = { path, file, lastError: undefined, logSize: () => entry.log?.size() ?? 0, unregister: () => { entries.delete(path) } }
  entries.set(path, entry)
  return entry
}

/**
 * Registers a copy of `bytes` (a SQLite file) as a database that lives in JS memory and is
 * never saved: a job's scratch copy (an ingest's converted source). The bytes go in through
 * `PagedFile.restore`, the same routine that puts a stored database back when it opens.
 * `bytes` must not change afterwards (a whole 1 MiB buffer is taken over, not copied).
 * Closing the entry unregisters it and drops the copy.
 */
export function registerCopy(sqlite: Sqlite3Static, bytes: Uint8Array): VfsEntry & { close(): void } {
  const file = new PagedFile(bytes.length, false)
  file.restore(bytes, 0)
  const entry = registerFile(sqlite, Object.assign(file, { commit: async () => {} }))
  return Object.assign(entry, { close: () => { entry.unregister(); file.close() } })
}

/** True for the errors that mean "no room": a full disk or quota, or memory that ran out. */
export function isNoSpace(err: unknown): boolean {
  const code = (err as { code?: string })?.code
  return err instanceof RangeError || code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG'
    || (err as { status?: number })?.status === 507
}

function install(sqlite: Sqlite3Static): Map<string, Entry> {
  let entries = byModule.get(sqlite)
  if (entries) return entries
  entries = new Map()
  byModule.set(sqlite, entries)
  const { capi, wasm } = sqlite
  const handles = new Map<number, Handle>()
  let lastError: unknown

  /** The database `zName` names, and which of its files: the main one, its journal or its log. */
  const entryOf = (zName: number): { entry: Entry; kind: 'main' | 'journal' | 'wal' } | undefined => {
    const name = wasm.cstrToJs(zName) ?? ''
    const main = entries!.get(name)
    if (main) return { entry: main, kind: 'main' }
    const m = /^(.*)-(journal|wal)$/.exec(name)
    const entry = m ? entries!.get(m[1]!) : undefined
    return entry && { entry, kind: m![2] as 'journal' | 'wal' }
  }
  const sideOf = (entry: Entry, kind: 'journal' | 'wal'): LogFile => {
    if (kind === 'wal') {
      if (!entry.file.wal) throw new Error(`Database ${entry.path} keeps no write-ahead log.`)
      return entry.file.wal
    }
    return { open: () => (entry.journal ??= new PagedFile(0, false)),
      exists: () => (entry.journal?.size() ?? 0) > 0, remove: () => entry.journal?.truncate(0) }
  }
  /** Keeps a failure for the caller (`lastError`) and answers it with a SQLite code. */
  const failed = (h: Handle, err: unknown, ioErr: number): number => {
    lastError = err
    if (h.entry) h.entry.lastError = err
    return isNoSpace(err) ? capi.SQLITE_FULL : ioErr
  }
  /** Runs an I/O call of the file `pFile`, failures answered by `failed`. */
  const io = (pFile: number, ioErr: number, fn: (h: Handle) => number | void): number => {
    const h = handles.get(pFile)
    if (!h) return ioErr
    try {
      return fn(h) ?? 0
    } catch (err) {
      return failed(h, err, ioErr)
    }
  }
  const { SQLITE_IOERR_READ, SQLITE_IOERR_SHORT_READ, SQLITE_IOERR_WRITE } = capi

  const ioMethods = new capi.sqlite3_io_methods()
  ;(ioMethods as unknown as { $iVersion: number }).$iVersion = 1
  const vfs = new capi.sqlite3_vfs()
  const dflt = new capi.sqlite3_vfs(capi.sqlite3_vfs_find(null))
  vfs.$iVersion = 2
  vfs.$szOsFile = (capi.sqlite3_file as unknown as { structInfo: { sizeof: number } }).structInfo.sizeof
  vfs.$mxPathname = 512
  ;(vfs as unknown as { $xRandomness: number }).$xRandomness = (dflt as unknown as { $xRandomness: number }).$xRandomness
  dflt.dispose()

  sqlite.vfs.installVfs({
    io: {
      struct: ioMethods,
      methods: {
        xClose: (pFile) => {
          const r = io(pFile, capi.SQLITE_IOERR_CLOSE, (h) => {
            if (h.entry?.log === h.file) h.entry.log = undefined
            if (h.owned) h.file.close()
          })
          handles.delete(pFile)
          return r as 0
        },
        // The page traffic: written out without `io`'s closure, they run for every page.
        xRead: (pFile, pDest, n, offset) => {
          const h = handles.get(pFile)
          if (!h) return SQLITE_IOERR_READ as 0
          try {
            const heap = wasm.heap8u()
            const got = h.file.read(heap.subarray(pDest, pDest + n), Number(offset))
            if (got === n) return 0
            heap.fill(0, pDest + got, pDest + n)
            return SQLITE_IOERR_SHORT_READ as 0
          } catch (err) {
            return failed(h, err, SQLITE_IOERR_READ) as 0
          }
        },
        xWrite: (pFile, pSrc, n, offset) => {
          const h = handles.get(pFile)
          if (!h) return SQLITE_IOERR_WRITE as 0
          try {
            h.file.write(wasm.heap8u().subarray(pSrc, pSrc + n), Number(offset))
            return 0
          } catch (err) {
            return failed(h, err, SQLITE_IOERR_WRITE) as 0
          }
        },
        xTruncate: (pFile, size) => io(pFile, capi.SQLITE_IOERR_TRUNCATE, (h) => h.file.truncate(Number(size))) as 0,
        xSync: (pFile) => io(pFile, capi.SQLITE_IOERR_FSYNC, (h) => h.file.sync()) as 0,
        xFileSize: (pFile, pOut) => io(pFile, capi.SQLITE_IOERR_FSTAT, (h) => { wasm.poke64(pOut, BigInt(h.file.size())) }) as 0,
        // One connection per file, one thread: there is nobody to lock against.
        xLock: () => 0,
        xUnlock: () => 0,
        xCheckReservedLock: (_pFile, pOut) => { wasm.poke32(pOut, 0); return 0 },
        xFileControl: () => capi.SQLITE_NOTFOUND,
        xSectorSize: () => SECTOR_SIZE as 0,
        xDeviceCharacteristics: () => capi.SQLITE_IOCAP_POWERSAFE_OVERWRITE as 0,
      },
    },
    vfs: {
      struct: vfs,
      name: VFS_NAME,
      methods: {
        xOpen: (_pVfs, zName, pFile, flags, pOutFlags) => {
          try {
            const found = zName ? entryOf(zName) : undefined
            let file: SyncFile
            if (!found) {
              // A temporary file (sorter, temp table, statement journal): JS memory.
              if (!(flags & capi.SQLITE_OPEN_DELETEONCLOSE) && zName) return capi.SQLITE_CANTOPEN
              file = new PagedFile(0, false)
            } else {
              file = found.kind === 'main' ? found.entry.file : sideOf(found.entry, found.kind).open()
            }
            handles.set(pFile, { file, entry: found?.entry, owned: !found || found.kind === 'wal' })
            if (found?.kind === 'wal') found.entry.log = file
            const f = new capi.sqlite3_file(pFile)
            f.$pMethods = ioMethods.pointer!
            f.dispose()
            if (pOutFlags) wasm.poke32(pOutFlags, flags)
            return 0
          } catch (err) {
            lastError = err
            return capi.SQLITE_CANTOPEN
          }
        },
        xDelete: (_pVfs, zName) => {
          const found = entryOf(zName)
          try {
            if (found && found.kind !== 'main') sideOf(found.entry, found.kind).remove()
            return 0
          } catch (err) {
            lastError = err
            return capi.SQLITE_IOERR_DELETE
          }
        },
        xAccess: (_pVfs, zName, _flags, pOut) => {
          const found = entryOf(zName)
          let exists = false
          try { exists = !!found && (found.kind === 'main' || sideOf(found.entry, found.kind).exists()) } catch (err) { lastError = err }
          wasm.poke32(pOut, exists ? 1 : 0)
          return 0
        },
        xFullPathname: (_pVfs, zName, nOut, pOut) => (wasm.cstrncpy(pOut, zName, nOut) < nOut ? 0 : capi.SQLITE_CANTOPEN),
        xGetLastError: (_pVfs, nOut, pOut) => {
          const msg = encoder.encode(lastError ? String((lastError as Error).message ?? lastError) : '')
          const n = Math.max(0, Math.min(msg.length, nOut - 1))
          if (nOut > 0) {
            wasm.heap8u().set(msg.subarray(0, n), pOut)
            wasm.poke8(pOut + n, 0)
          }
          return (lastError ? capi.SQLITE_IOERR : 0) as 0
        },
        xSleep: () => 0,
        xCurrentTime: (_pVfs, pOut) => { wasm.poke(pOut, 2440587.5 + Date.now() / 864e5, 'double'); return 0 },
        xCurrentTimeInt64: (_pVfs, pOut) => { wasm.poke64(pOut, BigInt(210866760000000 + Date.now())); return 0 },
      },
    },
  })
  return entries
}
