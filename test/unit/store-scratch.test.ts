import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { Database, type SqlDb } from '../../sw/store/database.ts'
import { IdbStore } from '../../sw/store/idb.ts'
import { MemoryStore } from '../../sw/store/memory.ts'
import { FileStore } from '../../sw/host/node-store.ts'
import { registerCopy } from '../../sw/store/vfs.ts'
import { attachImage } from '../../sw/sqlite/gpkg-file/source.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'

// An ingest's converted GeoPackage is a scratch database of our VFS (`registerCopy`), attached
// to the new layer's connection; the write that fills the layer also fixes rows of the scratch
// copy. That write must commit on every store (WAL on disk, the rollback journal in the
// browser), and the scratch copy must stay out of what the store keeps.

const dirs: string[] = []
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }) })

const migrate = (db: SqlDb) => db.exec('CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)')

describe('a scratch copy attached to a database', () => {
  let sqlite: Sqlite3Static
  beforeAll(async () => { sqlite = await createSqliteLoader()() })

  /** The bytes of a SQLite file with table `s` of `n` rows (several pages). */
  function sourceBytes(n: number): Uint8Array {
    const db = new sqlite.oo1.DB(':memory:')
    try {
      db.exec(`CREATE TABLE s (fid INTEGER PRIMARY KEY, v INTEGER, pad BLOB)`)
      db.exec({ sql: `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?) INSERT INTO s SELECT i, i, zeroblob(300) FROM k`, bind: [n] })
      return sqlite.capi.sqlite3_js_db_export(db)
    } finally {
      db.close()
    }
  }

  it.each([
    ['MemoryStore', async () => ({ store: new MemoryStore() })],
    ['IdbStore', async () => {
      const factory = new IDBFactory()
      const make = () => new IdbStore({ name: 'outpost-scratch', deps: { indexedDB: factory, IDBKeyRange } })
      return { store: make(), reopen: make }
    }],
    ['FileStore', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'outpost-scratch-'))
      dirs.push(dir)
      return { store: new FileStore(dir), reopen: () => new FileStore(dir) }
    }],
  ] as const)('%s: a write over the database and the copy commits as the database\'s; the copy is never stored', async (_name, make) => {
    const { store, reopen } = await make() as { store: MemoryStore | IdbStore | FileStore; reopen?: () => IdbStore | FileStore }
    const bytes = sourceBytes(3000)
    const copy = registerCopy(sqlite, bytes)
    const db = await Database.open(sqlite, store, 'layer-1', migrate)
    await db.read((c) => attachImage(c, copy))
    await db.write((c) => {
      c.exec('UPDATE src.s SET v = -v WHERE fid % 1000 = 0')
      c.exec('INSERT INTO item (id, v) SELECT fid, v FROM src.s')
    })
    expect(await db.read((c) => c.selectValue('SELECT sum(v < 0) FROM src.s'))).toBe(3)
    await db.read((c) => c.exec('DETACH src'))
    copy.close()
    // Gone with its path: nothing opens it again.
    await expect(db.read((c) => attachImage(c, copy))).rejects.toThrow()
    await db.close()
    expect(await store.listDatabases()).toEqual(['layer-1'])
    const again = await Database.open(sqlite, reopen?.() ?? store, 'layer-1', migrate)
    expect(await again.read((c) => c.selectArrays('SELECT count(*), sum(v < 0), sum(abs(v)) FROM item'))).toEqual([[3000, 3, 3000 * 3001 / 2]])
    await again.close()
  })
})
