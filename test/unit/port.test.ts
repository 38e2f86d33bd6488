/**
 * The data port's contract (test/port/contract.ts) against the SQLite implementation over
 * each store of today (the three of the store contract). An implementation joins by adding
 * its own `portContract` line here.
 */
import { afterAll } from 'vitest'
import { AsyncLocalStorage } from 'node:async_hooks'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { IDBFactory, IDBKeyRange } from 'fake-indexeddb'
import { Database } from '../../sw/store/database.ts'
import { migrateMain } from '../../sw/sqlite/migrate.ts'
import { IdbStore } from '../../sw/store/idb.ts'
import { MemoryStore } from '../../sw/store/memory.ts'
import type { Store } from '../../sw/store/store.ts'
import { FileStore } from '../../sw/host/node-store.ts'
import { openSqlitePort, type SqlitePort } from '../../sw/sqlite/port.ts'
import type { JournalEntry } from '../../sw/resource/repository.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { portContract, type PortUnderTest } from '../port/contract.ts'
import { HookedStore } from './hooked-store.ts'

const dirs: string[] = []
afterAll(async () => { for (const d of dirs) await rm(d, { recursive: true, force: true }) })

const sqlite = createSqliteLoader()
/** One for the file: each instance adds its own hooks to every promise. */
const asyncLocal = new AsyncLocalStorage<unknown>()

/** What a port of this test runs over: its hooked store, its main database, and a store over the same data (a restart). */
interface Made { store: HookedStore; main: Database; again?: () => Store }
const made = new WeakMap<SqlitePort, Made>()

async function sqlitePort(inner: Store, again?: () => Store): Promise<SqlitePort> {
  const store = new HookedStore(inner)
  const main = await Database.open(await sqlite(), store, 'main', migrateMain)
  // As on the Node host under tests: async-local storage for the nested-unit-of-work guard.
  const port = openSqlitePort({ main, store, asyncContext: () => asyncLocal as AsyncLocalStorage<never> })
  made.set(port, { store, main, again })
  return port
}

/** The SQLite port over the stores `make` gives. */
/**
 * How a store fails a commit: IndexedDB refuses the commit's transaction (a full quota); a
 * store whose file writes go straight to memory or disk fails the writes themselves (memory or
 * disk full), since a refused marker after them would not model anything real.
 */
type Failure = 'failing' | 'full'

function overStore(make: () => Promise<{ store: Store; again?: () => Store }>, persists: boolean, failure: Failure): PortUnderTest<SqlitePort> {
  return {
    fresh: async () => { const m = await make(); return sqlitePort(m.store, m.again) },
    reopen: persists ? async (p) => {
      const { store, again } = made.get(p)!
      await p.close()
      await store.close()
      return sqlitePort(again!())
    } : undefined,
    failCommits: (p, on) => { made.get(p)!.store[failure] = on },
    layer: (p) => made.get(p)!.main.write((db) => {
      db.exec(`INSERT OR IGNORE INTO resource (id, cls, parent_id, display_name, owner_user_id, creation_date)
        VALUES (0, 'resource_group', NULL, 'Root', 1, '2026-01-01')`)
      db.exec(`INSERT INTO resource (cls, parent_id, display_name, owner_user_id, creation_date) VALUES ('vector_layer', 0, 'L', 1, '2026-01-01')`)
      return Number(db.selectValue('SELECT last_insert_rowid()'))
    }),
    // The port has no journal read: this implementation's test looks at its table.
    journal: async (p) => {
      const rows = await made.get(p)!.main.read((db) => db.selectObjects('SELECT tstamp, user_id, resource_id, action, payload FROM journal ORDER BY id'))
      return rows.map((r): JournalEntry => ({ tstamp: String(r.tstamp), userId: Number(r.user_id), resourceId: Number(r.resource_id),
        action: String(r.action), payload: JSON.parse(String(r.payload)) }))
    },
  }
}

portContract('SQLite over MemoryStore', overStore(async () => ({ store: new MemoryStore() }), false, 'full'))
portContract('SQLite over IdbStore (fake-indexeddb)', overStore(async () => {
  const factory = new IDBFactory()
  const idb = () => new IdbStore({ name: 'outpost-port', deps: { indexedDB: factory, IDBKeyRange } })
  return { store: idb(), again: idb }
}, true, 'failing'))
portContract('SQLite over FileStore (a temporary folder)', overStore(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'outpost-port-'))
  dirs.push(dir)
  return { store: new FileStore(dir), again: () => new FileStore(dir) }
}, true, 'full'))
