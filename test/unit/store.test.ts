import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDBFactory, IDBKeyRange, IDBObjectStore } from 'fake-indexeddb'
import { Dexie } from 'dexie'
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { Database, type SqlDb } from '../../sw/store/database.ts'
import { IdbStore } from '../../sw/store/idb.ts'
import { MemoryStore } from '../../sw/store/memory.ts'
import type { Store } from '../../sw/store/store.ts'
import { FileStore } from '../../sw/host/node-store.ts'
import { ApiError } from '../../sw/core/error.ts'
import { OPEN_DATABASES, Residency, residencyOf } from '../../sw/store/residency.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { storeContract } from './store-contract.ts'
import { HookedStore } from './hooked-store.ts'

const dirs: string[] = []
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }) })
const tmp = async () => { const d = await mkdtemp(join(tmpdir(), 'outpost-store-')); dirs.push(d); return d }

/** One fake IndexedDB per store, so that a reopen sees the same data and tests stay apart. */
const idbOf = new WeakMap<Store, IDBFactory>()
function idbStore(factory = new IDBFactory()): IdbStore {
  const s = new IdbStore({ name: 'outpost-test', deps: { indexedDB: factory, IDBKeyRange } })
  idbOf.set(s, factory)
  return s
}

storeContract('MemoryStore', { fresh: async () => new MemoryStore() })
storeContract('IdbStore over fake-indexeddb', {
  fresh: async () => idbStore(),
  reopen: async (s) => { await s.close(); return idbStore(idbOf.get(s)) },
})
const fileDirs = new WeakMap<Store, string>()
storeContract('FileStore in a temporary folder', {
  fresh: async () => { const d = await tmp(); const s = new FileStore(d); fileDirs.set(s, d); return s },
  reopen: async (s) => new FileStore(fileDirs.get(s)!),
})

const migrate = (db: SqlDb) => {
  db.exec(`CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, payload BLOB);
    CREATE TABLE IF NOT EXISTS part (item_id INTEGER NOT NULL REFERENCES item(id), n INTEGER NOT NULL)`)
}
const names = (db: Database) => db.read((d) => d.selectValues('SELECT name FROM item ORDER BY id') as string[])
/** A multi-record write: one item and its three parts. */
const addItem = (db: Database, name: string, payloadSize = 0) => db.write((d) => {
  d.exec({ sql: 'INSERT INTO item (name, payload) VALUES (?, ?)', bind: [name, payloadSize ? new Uint8Array(payloadSize).fill(7) : null] })
  const id = d.selectValue('SELECT last_insert_rowid()') as number
  for (let n = 0; n < 3; n++) d.exec({ sql: 'INSERT INTO part (item_id, n) VALUES (?, ?)', bind: [id, n] })
  return id
})

describe('Database over IdbStore (fake-indexeddb)', () => {
  let sqlite: Sqlite3Static
  beforeAll(async () => { sqlite = await createSqliteLoader()() })

  it('every acknowledged write is in the store: a new instance (a restarted worker) sees them all', async () => {
    const store = idbStore()
    const db = await Database.open(sqlite, store, 'main', migrate)
    // Concurrent requests: run one at a time, each saved before it resolves.
    const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => addItem(db, `item ${i}`, i === 10 ? 200_000 : 0)))
    expect(new Set(ids).size).toBe(20)
    // No close: the old instance is simply dropped, as a stopped worker is.
    const again = await Database.open(sqlite, idbStore(idbOf.get(store)), 'main', migrate)
    expect(await names(again)).toEqual(Array.from({ length: 20 }, (_, i) => `item ${i}`))
    expect(await again.read((d) => d.selectValue('SELECT count(*) FROM part'))).toBe(60)
    expect(await again.read((d) => d.selectValue('SELECT length(payload) FROM item WHERE name = ?', ['item 10']))).toBe(200_000)
  })

  it('a write that throws is rolled back and nothing is saved', async () => {
    const store = new HookedStore(idbStore())
    const db = await Database.open(sqlite, store, 'main', migrate)
    await addItem(db, 'kept')
    const saves = store.saves
    await expect(db.write((d) => {
      d.exec({ sql: 'INSERT INTO item (name) VALUES (?)', bind: ['half'] })
      throw new Error('validation failed halfway')
    })).rejects.toThrow('validation failed halfway')
    expect(store.saves).toBe(saves)
    expect(await names(db)).toEqual(['kept'])
    await addItem(db, 'next')
    expect(await names(db)).toEqual(['kept', 'next'])
  })

  it('a failing save rolls the request back: 503, memory reloaded, nothing visible, later writes work', async () => {
    const store = new HookedStore(idbStore())
    const db = await Database.open(sqlite, store, 'main', migrate)
    await addItem(db, 'before')
    store.failing = true
    const err = await addItem(db, 'lost', 100_000).then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).status).toBe(503)
    expect((err as ApiError).exception).toBe('nextgisweb.core.exception.OperationalError')
    // Nothing of the failed request is visible, neither its item nor its parts.
    expect(await names(db)).toEqual(['before'])
    expect(await db.read((d) => d.selectValue('SELECT count(*) FROM part'))).toBe(3)
    store.failing = false
    await addItem(db, 'after')
    expect(await names(db)).toEqual(['before', 'after'])
    const again = await Database.open(sqlite, idbStore(idbOf.get(store.inner)), 'main', migrate)
    expect(await names(again)).toEqual(['before', 'after'])
    expect(await again.read((d) => d.selectValue('SELECT count(*) FROM part'))).toBe(6)
  })

  it('a failing save among queued writes fails only that write', async () => {
    const store = new HookedStore(idbStore())
    const db = await Database.open(sqlite, store, 'main', migrate)
    // The disk fills up while the second request runs, and frees before the third.
    const first = addItem(db, 'one')
    const second = db.write((d) => { d.exec("INSERT INTO item (name) VALUES ('two')"); store.failing = true })
    const third = db.write((d) => { store.failing = false; d.exec("INSERT INTO item (name) VALUES ('three')") })
    await first
    await expect(second).rejects.toBeInstanceOf(ApiError)
    await third
    expect(await names(db)).toEqual(['one', 'three'])
  })

  it('reads wait for the writes queued before them', async () => {
    const db = await Database.open(sqlite, idbStore(), 'main', migrate)
    const w = addItem(db, 'queued')
    expect(await names(db)).toEqual(['queued'])
    await w
  })
})

/** `addItem` through `transaction`, yielding to the event loop between statements as an async repository may. */
const tick = () => new Promise<void>((r) => setTimeout(r, 0))
const addItemAsync = (db: Database, name: string, payloadSize = 0) => db.transaction(async (d) => {
  d.exec({ sql: 'INSERT INTO item (name, payload) VALUES (?, ?)', bind: [name, payloadSize ? new Uint8Array(payloadSize).fill(7) : null] })
  await tick()
  const id = d.selectValue('SELECT last_insert_rowid()') as number
  for (let n = 0; n < 3; n++) { await tick(); d.exec({ sql: 'INSERT INTO part (item_id, n) VALUES (?, ?)', bind: [id, n] }) }
  return id
})
const namesAsync = (db: Database) => db.readAsync(async (d) => { await tick(); return d.selectValues('SELECT name FROM item ORDER BY id') as string[] })

describe('Database.transaction and readAsync: an asynchronous fn keeps every guarantee of write and read', () => {
  let sqlite: Sqlite3Static
  beforeAll(async () => { sqlite = await createSqliteLoader()() })

  it('every acknowledged transaction is in the store: a new instance sees them all, none interleaved', async () => {
    const store = idbStore()
    const db = await Database.open(sqlite, store, 'main', migrate)
    const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => addItemAsync(db, `item ${i}`, i === 5 ? 200_000 : 0)))
    // Queued, not interleaved: each item's parts were inserted under the id it read.
    expect(new Set(ids).size).toBe(12)
    const again = await Database.open(sqlite, idbStore(idbOf.get(store)), 'main', migrate)
    expect(await namesAsync(again)).toEqual(Array.from({ length: 12 }, (_, i) => `item ${i}`))
    expect(await again.read((d) => d.selectValues('SELECT count(*) FROM part GROUP BY item_id'))).toEqual(Array(12).fill(3))
    expect(await again.read((d) => d.selectValue('SELECT length(payload) FROM item WHERE name = ?', ['item 5']))).toBe(200_000)
  })

  it('a transaction whose fn rejects after awaiting is rolled back and nothing is saved', async () => {
    const store = new HookedStore(idbStore())
    const db = await Database.open(sqlite, store, 'main', migrate)
    await addItemAsync(db, 'kept')
    const saves = store.saves
    await expect(db.transaction(async (d) => {
      d.exec({ sql: 'INSERT INTO item (name) VALUES (?)', bind: ['half'] })
      await tick()
      throw new Error('validation failed halfway')
    })).rejects.toThrow('validation failed halfway')
    expect(store.saves).toBe(saves)
    expect(await namesAsync(db)).toEqual(['kept'])
    await addItemAsync(db, 'next')
    expect(await namesAsync(db)).toEqual(['kept', 'next'])
  })

  it('a failing save answers 503 with nothing visible; later transactions work and survive', async () => {
    const store = new HookedStore(idbStore())
    const db = await Database.open(sqlite, store, 'main', migrate)
    await addItemAsync(db, 'before')
    store.failing = true
    const err = await addItemAsync(db, 'lost', 100_000).then(() => undefined, (e: unknown) => e)
    store.failing = false
    expect((err as ApiError).toBody()).toMatchObject({ status_code: 503, exception: 'nextgisweb.core.exception.OperationalError' })
    expect(await namesAsync(db)).toEqual(['before'])
    expect(await db.readAsync(async (d) => d.selectValue('SELECT count(*) FROM part'))).toBe(3)
    await addItemAsync(db, 'after')
    const again = await Database.open(sqlite, idbStore(idbOf.get(store.inner)), 'main', migrate)
    expect(await namesAsync(again)).toEqual(['before', 'after'])
  })

  it('memory that runs out after an await is a 507 (not a raw SQLite error); nothing stays', async () => {
    const store = new HookedStore(idbStore())
    const db = await Database.open(sqlite, store, 'main', migrate)
    await addItemAsync(db, 'before')
    const err = await db.transaction(async (d) => {
      await tick()
      store.full = true
      d.exec({ sql: 'INSERT INTO item (name, payload) VALUES (?, ?)', bind: ['lost', new Uint8Array(300_000)] })
    }).then(() => undefined, (e: unknown) => e)
    store.full = false
    expect((err as ApiError).toBody()).toMatchObject({ status_code: 507, data: { storage: 'memory' } })
    expect(await namesAsync(db)).toEqual(['before'])
    await addItemAsync(db, 'after')
    expect(await namesAsync(db)).toEqual(['before', 'after'])
  })

  it('readAsync maps SQLite\'s "full" thrown after an await to 507, as read does when it is thrown at once', async () => {
    const db = await Database.open(sqlite, idbStore(), 'main', migrate)
    const full = () => Object.assign(new Error('database or disk is full'), { resultCode: sqlite.capi.SQLITE_FULL })
    const err = await db.readAsync(async () => { await tick(); throw full() }).then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).toBody()).toMatchObject({ status_code: 507, data: { storage: 'memory' } })
    expect(await namesAsync(db)).toEqual([])
  })

  it('reads (read and readAsync) wait for the transactions queued before them', async () => {
    const db = await Database.open(sqlite, idbStore(), 'main', migrate)
    const w = addItemAsync(db, 'queued')
    expect(await namesAsync(db)).toEqual(['queued'])
    expect(await names(db)).toEqual(['queued'])
    await w
  })
})

describe('Database over FileStore', () => {
  it('acknowledged writes survive a restart on the same folder', async () => {
    const sqlite = await createSqliteLoader()()
    const dir = await tmp()
    const db = await Database.open(sqlite, new FileStore(dir), 'main', migrate)
    await Promise.all(['a', 'b', 'c'].map((n) => addItem(db, n)))
    const again = await Database.open(sqlite, new FileStore(dir), 'main', migrate)
    expect(await names(again)).toEqual(['a', 'b', 'c'])
  })
})

describe('Database: what a write costs, what is full', () => {
  let sqlite: Sqlite3Static
  beforeAll(async () => { sqlite = await createSqliteLoader()() })

  /** A database of `rows` items of 400 bytes, indexed. */
  async function filled(store: Store, rows: number): Promise<Database> {
    const db = await Database.open(sqlite, store, 'main', (d) => {
      migrate(d)
      d.exec('CREATE INDEX IF NOT EXISTS item_name ON item (name)')
    })
    for (let done = 0; done < rows; done += 5000) {
      await db.write((d) => {
        for (let i = done; i < Math.min(rows, done + 5000); i++) d.exec({ sql: 'INSERT INTO item (name, payload) VALUES (?, ?)', bind: [`item ${i}`, new Uint8Array(400).fill(i & 255)] })
      })
    }
    return db
  }

  it.each([
    ['MemoryStore', () => new MemoryStore()],
    ['IdbStore', () => idbStore()],
    ['FileStore', async () => new FileStore(await tmp())],
  ] as const)('an edit writes a few pages, in a small and in a four times larger database alike (%s)', async (_name, make) => {
    const cost: number[] = []
    for (const rows of [4000, 16000]) {
      const store = new HookedStore(await make())
      const db = await filled(store, rows)
      store.written = 0
      await db.write((d) => d.exec({ sql: 'UPDATE item SET name = ? WHERE id = ?', bind: ['edited', Math.floor(rows / 2)] }))
      cost.push(store.written)
      await db.close()
    }
    // A leaf of the table, two of the index, their parents, the header: not the 2–8 MB file.
    for (const c of cost) expect(c).toBeLessThanOrEqual(12 * 4096)
  })

  it('a page store saves an edit as a few page rows, not segments (IndexedDB)', async () => {
    const store = idbStore()
    const db = await filled(store, 8000)
    const factory = idbOf.get(store)!
    const count = async () => {
      const d = new Dexie('outpost-test', { indexedDB: factory, IDBKeyRange })
      await d.open()
      try { return { pages: await d.table('pages').count(), chunks: await d.table('chunks').count() } } finally { d.close() }
    }
    const before = await count()
    await db.write((d) => d.exec(`UPDATE item SET name = 'edited' WHERE id = 4000`))
    const after = await count()
    expect(after.chunks).toBe(before.chunks)
    expect(after.pages - before.pages).toBeGreaterThan(0)
    expect(after.pages - before.pages).toBeLessThanOrEqual(8)
  })

  it('memory that runs out while SQLite writes is a 507 saying so; nothing of the write stays, later writes work', async () => {
    const store = new HookedStore(idbStore())
    const db = await Database.open(sqlite, store, 'main', migrate)
    await addItem(db, 'before')
    store.full = true
    const err = await addItem(db, 'lost', 300_000).then(() => undefined, (e: unknown) => e)
    store.full = false
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).toBody()).toMatchObject({ status_code: 507, title: 'Insufficient storage',
      exception: 'nextgisweb.core.exception.InsufficientStorage', data: { storage: 'memory' } })
    expect(await names(db)).toEqual(['before'])
    expect(await db.read((d) => d.selectValue('SELECT count(*) FROM part'))).toBe(3)
    await addItem(db, 'after')
    const again = await Database.open(sqlite, idbStore(idbOf.get(store.inner)), 'main', migrate)
    expect(await names(again)).toEqual(['before', 'after'])
    expect(await again.read((d) => d.selectValue('PRAGMA integrity_check'))).toBe('ok')
  })

  it('a full quota at commit is a 507 saying so; memory goes back to what the store holds', async () => {
    const inner = idbStore()
    const db = await Database.open(sqlite, inner, 'main', migrate)
    await addItem(db, 'before')
    const put = IDBObjectStore.prototype.put
    const spy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args) {
      if (this.name === 'pages' || this.name === 'chunks') throw new DOMException('The quota has been exceeded.', 'QuotaExceededError')
      return put.apply(this, args)
    })
    const err = await addItem(db, 'lost', 50_000).then(() => undefined, (e: unknown) => e)
    spy.mockRestore()
    expect((err as ApiError).toBody()).toMatchObject({ status_code: 507, data: { storage: 'quota' } })
    expect((err as ApiError).message).toMatch(/quota/)
    expect(await names(db)).toEqual(['before'])
    await addItem(db, 'after')
    const again = await Database.open(sqlite, idbStore(idbOf.get(inner)), 'main', migrate)
    expect(await names(again)).toEqual(['before', 'after'])
  })
})

describe('Database: housekeeping', () => {
  it("runs the file's tidy steps after a write while no request comes, until it has nothing left", async () => {
    const sqlite = await createSqliteLoader()()
    const inner = new MemoryStore()
    let steps = 0
    const store = new HookedStore(inner)
    const open = store.openDatabase.bind(store)
    store.openDatabase = async (name) => Object.assign(await open(name), { tidy: async () => ++steps < 3 })
    const db = await Database.open(sqlite, store, 'main', migrate)
    await addItem(db, 'a')
    expect(steps).toBe(0) // not on the write's path
    await new Promise((r) => setTimeout(r, 1000))
    expect(steps).toBe(3)
    await addItem(db, 'b')
    await new Promise((r) => setTimeout(r, 400))
    expect(steps).toBe(4)
  })
})

describe('Database: residency', () => {
  it('keeps at most OPEN_DATABASES evictable databases open; the others give their memory back and reopen with their data and functions', async () => {
    const sqlite = await createSqliteLoader()()
    const store = idbStore()
    const dbs: Database[] = []
    for (let i = 0; i < OPEN_DATABASES + 3; i++) {
      const db = await Database.open(sqlite, store, `layer-${i}`, migrate, { evictable: true,
        onConnect: (d) => d.createFunction('tag', () => `db ${i}`, { arity: 0, deterministic: true }) })
      await addItem(db, `item of ${i}`, 100_000)
      dbs.push(db)
    }
    const versions = dbs.map((d) => d.version)
    await Promise.all(dbs.map((d) => d.read(() => undefined)))
    const stats = residencyOf(store).stats()
    expect(stats.count).toBe(OPEN_DATABASES)
    // Released ones hold nothing; open ones their pages.
    expect(dbs.slice(0, 3).map((d) => d.resident())).toEqual([0, 0, 0])
    expect(dbs.at(-1)!.resident()).toBeGreaterThan(0)
    for (const [i, db] of dbs.entries()) {
      expect(await names(db)).toEqual([`item of ${i}`])
      expect(await db.read((d) => d.selectValue('SELECT tag()'))).toBe(`db ${i}`)
    }
    expect(residencyOf(store).stats().count).toBe(OPEN_DATABASES)
    // Reopened with the content they were released with: the version (what tile caches key on) stays.
    expect(dbs.map((d) => d.version)).toEqual(versions)
  })

  it('releases a database unused for longer than the idle time', () => {
    const r = new Residency({ idleMs: 1000 })
    const released: string[] = []
    const res = (name: string) => ({ resident: () => 10, release: () => { released.push(name) } })
    const a = res('a')
    const b = res('b')
    r.used(a, 0)
    r.used(b, 500)
    r.used(b, 1400)
    expect(released).toEqual(['a'])
    expect(r.stats()).toEqual({ count: 1, bytes: 10 })
  })
})
