import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { Database, type SqlDb } from '../../sw/store/database.ts'
import { IdbStore } from '../../sw/store/idb.ts'
import { MemoryStore } from '../../sw/store/memory.ts'
import type { ImageSave, Store } from '../../sw/store/store.ts'
import { FileStore } from '../../sw/host/node-store.ts'
import { ApiError } from '../../sw/core/error.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { storeContract } from './store-contract.ts'

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

/** Passes everything to `inner`, but rejects saves while `failing` is set (a full disk). */
class FlakyStore implements Store {
  failing = false
  saves = 0
  constructor(readonly inner: Store) {}
  loadImage(name: string) { return this.inner.loadImage(name) }
  async saveImage(name: string, save: ImageSave) {
    if (this.failing) throw new Error('QuotaExceededError (injected)')
    this.saves++
    return this.inner.saveImage(name, save)
  }
  deleteImage(name: string) { return this.inner.deleteImage(name) }
  listImages() { return this.inner.listImages() }
  putBlob(id: string, data: Uint8Array) { return this.inner.putBlob(id, data) }
  putBlobStream(id: string, chunks: AsyncIterable<Uint8Array>) { return this.inner.putBlobStream(id, chunks) }
  getBlob(id: string) { return this.inner.getBlob(id) }
  deleteBlob(id: string) { return this.inner.deleteBlob(id) }
  close() { return this.inner.close() }
}

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
    const store = new FlakyStore(idbStore())
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
    const store = new FlakyStore(idbStore())
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
    const store = new FlakyStore(idbStore())
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
