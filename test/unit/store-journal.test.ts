import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { Database, type SqlDb } from '../../sw/store/database.ts'
import type { DatabaseFile, LogFile, Store, SyncFile } from '../../sw/store/store.ts'
import { FileStore } from '../../sw/host/node-store.ts'
import { readLegacyJournal } from '../../sw/host/node-legacy-journal.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'

// Crash tests of the Node host's database files (ARCHITECTURE.md "Storage"): SQLite's own
// write-ahead log through our VFS. A commit (and a checkpoint) runs over files that record
// every write and fsync; the crash comes at step after step — keeping everything written (a
// killed process: the OS has it), or only what was fsynced (power loss), or tearing the write
// in progress — and the folder it leaves is opened with the real FileStore. Every time the
// database must be whole and hold the state before the commit or the one after, never a mix;
// once the commit has answered, only the state after.

const dirs: string[] = []
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }) })
const tmp = () => { const d = mkdtempSync(join(tmpdir(), 'outpost-crash-')); dirs.push(d); return d }

let sqlite: Sqlite3Static
beforeAll(async () => { sqlite = await createSqliteLoader()() })

class Crashed extends Error {}

/** One file in memory: what a process has written (`live`) and what an fsync made durable. */
class SimFile {
  live: Uint8Array | undefined
  durable: Uint8Array | undefined
  constructor(bytes?: Uint8Array) { this.live = bytes; this.durable = bytes }
}

/** I/O counted once `armed`, with the crash at step `at` (torn: half of that write lands). */
class Machine {
  steps = 0
  dead = false
  armed = false
  constructor(readonly at: number, readonly torn: boolean) {}
  step(): boolean {
    if (this.dead) throw new Crashed()
    if (!this.armed) return false
    if (++this.steps === this.at) { this.dead = true; return true }
    return false
  }
}

function simFile(m: Machine, f: SimFile): SyncFile {
  const grow = (n: number) => {
    const cur = f.live ?? new Uint8Array(0)
    if (n <= cur.length) return cur
    const next = new Uint8Array(n)
    next.set(cur)
    return next
  }
  return {
    read(into, offset) {
      if (m.dead) throw new Crashed()
      const src = f.live ?? new Uint8Array(0)
      const n = Math.max(0, Math.min(into.length, src.length - offset))
      into.set(src.subarray(offset, offset + n))
      return n
    },
    write(data, offset) {
      const crash = m.step()
      const n = crash ? (m.torn ? data.length >> 1 : 0) : data.length
      f.live = grow(offset + n)
      f.live.set(data.subarray(0, n), offset)
      if (crash) throw new Crashed()
    },
    size: () => f.live?.length ?? 0,
    truncate(size) {
      if (m.step()) throw new Crashed()
      f.live = grow(size).slice(0, size)
    },
    sync() {
      if (m.step()) throw new Crashed()
      f.durable = f.live?.slice()
    },
    close() {},
  }
}

/** A store of one database `x` whose main file and log live in memory under `m`. */
function simStore(m: Machine, main: SimFile, log: SimFile): Store {
  const wal: LogFile = {
    open: () => { log.live ??= new Uint8Array(0); return simFile(m, log) },
    exists: () => log.live !== undefined,
    remove: () => { if (m.step()) throw new Crashed(); log.live = log.durable = undefined },
  }
  const fail = () => { throw new Error('not simulated') }
  return {
    async openDatabase(): Promise<DatabaseFile> {
      return Object.assign(simFile(m, main), { wal, commit: async () => {}, resident: () => 0 })
    },
    deleteDatabase: fail, listDatabases: fail, putBlob: fail, putBlobStream: fail, getBlob: fail, deleteBlob: fail, listBlobs: fail, close: async () => {},
  }
}

const migrate = (db: SqlDb) => db.exec(`CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS t_v ON t (v)`)
/** The commit under test: updates, inserts and deletes over many pages; the file grows. */
const change = (db: SqlDb) => {
  db.exec(`UPDATE t SET v = v || '+' WHERE id % 97 = 0; DELETE FROM t WHERE id % 301 = 0`)
  for (let i = 0; i < 60; i++) db.exec({ sql: 'INSERT INTO t (v) VALUES (?)', bind: [`new ${i} ${'y'.repeat(150)}`] })
}
const stateOf = (db: Database) => db.read((d) => {
  expect(d.selectValue('PRAGMA integrity_check')).toBe('ok')
  return `${d.selectValue('SELECT count(*) FROM t')}:${d.selectValue(`SELECT sum(length(v) * id) FROM t`)}`
})

describe('Node database files: crash in a commit and in a checkpoint', () => {
  it('leave the state before or after, whole, for a killed process, a power loss and a torn write', async () => {
    // The state before: a folder made by the real store.
    const base = tmp()
    const db = await Database.open(sqlite, new FileStore(base), 'x', migrate)
    await db.write((d) => { for (let i = 0; i < 1500; i++) d.exec({ sql: 'INSERT INTO t (v) VALUES (?)', bind: [`row ${i} ${'x'.repeat(i % 200)}`] }) })
    const before = await stateOf(db)
    await db.close()
    const mainBytes = readFileSync(join(base, 'db', 'x.sqlite'))
    expect(existsSync(join(base, 'db', 'x.sqlite-wal'))).toBe(false) // checkpointed on close
    /** Runs the commit (or the commit, then a checkpoint) with the crash at step `at`. */
    const run = async (at: number, torn: boolean, checkpoint: boolean) => {
      const m = new Machine(at, torn)
      const main = new SimFile(new Uint8Array(mainBytes))
      const log = new SimFile()
      const sim = await Database.open(sqlite, simStore(m, main, log), 'x', migrate)
      m.armed = !checkpoint
      let ok = await sim.write(change).then(() => true, () => false)
      m.armed = true
      if (checkpoint && ok) ok = await sim.read((d) => d.exec('PRAGMA wal_checkpoint(TRUNCATE)')).then(() => true, () => false)
      return { m, main, log, ok, after: ok ? await stateOf(sim) : undefined }
    }
    for (const checkpoint of [false, true]) {
      const full = await run(Infinity, false, checkpoint)
      expect(full.ok).toBe(true)
      const after = full.after!
      expect(after).not.toBe(before)
      const steps = full.m.steps
      expect(steps).toBeGreaterThan(checkpoint ? 10 : 5)
      // Every step of a short run; of a long one, 16 spread over it and the last 4 (the syncs).
      const points = new Set<number>()
      for (let i = 1; i <= steps; i++) if (steps <= 20 || i % Math.ceil(steps / 16) === 0 || i > steps - 4) points.add(i)
      const seen = { before: 0, after: 0 }
      for (const at of points) {
        for (const [torn, power] of [[false, false], [false, true], [true, false]] as const) {
          const r = await run(at, torn, checkpoint)
          expect(r.ok).toBe(false)
          const dir = tmp()
          mkdirSync(join(dir, 'db'))
          const pick = (f: SimFile) => (power ? f.durable : f.live)
          writeFileSync(join(dir, 'db', 'x.sqlite'), pick(r.main) ?? new Uint8Array(0))
          const log = pick(r.log)
          if (log) writeFileSync(join(dir, 'db', 'x.sqlite-wal'), log)
          const reopened = await Database.open(sqlite, new FileStore(dir), 'x', migrate)
          const state = await stateOf(reopened)
          await reopened.close()
          const what = `${checkpoint ? 'checkpoint' : 'commit'}: crash at step ${at}/${steps}${torn ? ', torn' : ''}${power ? ', power loss' : ''}`
          // A checkpoint runs after the commit answered: only the state after may come back.
          expect(checkpoint ? [after] : [before, after], what).toContain(state)
          seen[state === before ? 'before' : 'after']++
          rmSync(dir, { recursive: true, force: true })
        }
      }
      // The crash points of a commit cover both outcomes: before its log is durable, and after.
      if (!checkpoint) {
        expect(seen.before).toBeGreaterThan(0)
        expect(seen.after).toBeGreaterThan(0)
      }
    }
  }, 120_000)
})

// ---- folders of the first format (a redo journal beside each database file) ----

/** The first format's journal for changing `from` into `to` (its chunks of 64 KiB that differ). */
function legacyJournal(from: Uint8Array, to: Uint8Array): Buffer {
  const C = 65536
  const parts: Buffer[] = []
  const head = Buffer.alloc(16)
  head.writeUInt32LE(0x314a504f, 0)
  head.writeDoubleLE(to.length, 8)
  let count = 0
  for (let i = 0; i * C < to.length; i++) {
    const c = to.subarray(i * C, (i + 1) * C)
    if (Buffer.compare(Buffer.from(c), Buffer.from(from.subarray(i * C, (i + 1) * C))) === 0) continue
    const h = Buffer.alloc(8)
    h.writeUInt32LE(i, 0)
    h.writeUInt32LE(c.length, 4)
    parts.push(h, Buffer.from(c))
    count++
  }
  head.writeUInt32LE(count, 4)
  const body = Buffer.concat([head, ...parts])
  const tail = Buffer.alloc(8)
  tail.writeUInt32LE(crc32(body), 0)
  tail.writeUInt32LE(0x454e4f44, 4)
  return Buffer.concat([body, tail])
}

describe('Node database files: folders of the first format', () => {
  /** Two states of a database image, made as the first format made them (in memory, serialized). */
  function twoStates() {
    const db = new sqlite.oo1.DB(':memory:')
    migrate(db)
    for (let i = 0; i < 2000; i++) db.exec({ sql: 'INSERT INTO t (v) VALUES (?)', bind: [`a ${i} ${'z'.repeat(100)}`] })
    const a = sqlite.capi.sqlite3_js_db_export(db)
    change(db)
    const b = sqlite.capi.sqlite3_js_db_export(db)
    db.close()
    return { a, b }
  }

  it('applies a complete redo journal on open (a crash after its fsync), a torn or corrupt one is ignored; both are removed', async () => {
    const { a, b } = twoStates()
    const stateOfImage = async (image: Uint8Array) => {
      const dir = tmp()
      mkdirSync(join(dir, 'db'))
      writeFileSync(join(dir, 'db', 'x.sqlite'), image)
      const db = await Database.open(sqlite, new FileStore(dir), 'x', migrate)
      try { return await stateOf(db) } finally { await db.close() }
    }
    const [stateA, stateB] = [await stateOfImage(a), await stateOfImage(b)]
    expect(stateA).not.toBe(stateB)
    const journal = legacyJournal(a, b)
    expect(readLegacyJournal(journal)).toBeDefined()
    const cases: [string, Buffer | undefined, string][] = [
      ['complete', journal, stateB],
      ['torn', journal.subarray(0, journal.length - 9), stateA],
      ['empty', Buffer.alloc(0), stateA],
      ['corrupt', Buffer.from(journal).fill(0x55, 1000, 1001), stateA],
      ['none', undefined, stateA],
    ]
    for (const [what, bytes, expected] of cases) {
      const dir = tmp()
      mkdirSync(join(dir, 'db'))
      writeFileSync(join(dir, 'db', 'x.sqlite'), a)
      if (bytes) writeFileSync(join(dir, 'db', 'x.journal'), bytes)
      const db = await Database.open(sqlite, new FileStore(dir), 'x', migrate)
      expect(await stateOf(db), what).toBe(expected)
      expect(existsSync(join(dir, 'db', 'x.journal')), what).toBe(false)
      // And it takes new writes in the new format.
      await db.write((d) => d.exec(`INSERT INTO t (v) VALUES ('after')`))
      await db.close()
      const again = await Database.open(sqlite, new FileStore(dir), 'x', migrate)
      expect(await again.read((d) => d.selectValue(`SELECT count(*) FROM t WHERE v = 'after'`)), what).toBe(1)
      await again.close()
    }
  })
})
