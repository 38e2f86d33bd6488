/**
 * @module sqlite/port
 * The SQLite implementation of the data port (issue 22, docs/architecture.md "Data port"):
 * every repository over one main database, its writes in one queue.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { Database } from '../store/database.ts'
import type { Store } from '../store/store.ts'
import { residencyOf } from '../store/residency.ts'
import type { AsyncContext } from '../platform/platform.ts'
import type { DataPort } from '../port/port.ts'
import { SqliteTokens } from './tokens.ts'
import { SqliteFeatureTables } from './features/tables.ts'
import { Units, type Frames } from './uow.ts'
import { mainRead, mainWrite } from './tx.ts'
import { openSqliteCatalogue } from './catalogue.ts'
import { sharedStart } from '../core/once.ts'
import { migrateMain } from './migrate.ts'

export interface SqlitePortOptions {
  /** The main database, opened and migrated. */
  main: Database
  /** Where its blobs live (the platform's store). */
  store: Store
  /** The platform's async-local storage, for the nested-unit-of-work guard. */
  asyncContext?: <T>() => AsyncContext<T>
}

export interface SqlitePort extends DataPort {
  /** The main database itself: for tests that look at the rows a write left. */
  readonly main: Database
  readonly tokens: SqliteTokens
  readonly features: SqliteFeatureTables
}

/** The port over the store's main database, opened (created on first use) and migrated. */
export async function openSqliteData(load: () => Promise<Sqlite3Static>, options: Omit<SqlitePortOptions, 'main'>): Promise<SqlitePort> {
  const main = await Database.open(await load(), options.store, 'main', migrateMain)
  return openSqlitePort({ ...options, main })
}

export function openSqlitePort({ main, store, asyncContext }: SqlitePortOptions): SqlitePort {
  const units = new Units(main, asyncContext?.() as Frames | undefined)
  const tokens = new SqliteTokens(main)
  let catalogue: Database | undefined
  return {
    main,
    unitOfWork: (fn) => units.write(mainWrite, fn),
    read: (fn) => units.read(mainRead, fn),
    tokens,
    features: new SqliteFeatureTables(main.sqlite, store, tokens),
    blobs: {
      putBlob: (id, data) => store.putBlob(id, data),
      putBlobStream: (id, chunks) => store.putBlobStream(id, chunks),
      getBlob: (id) => store.getBlob(id),
      deleteBlob: (id) => store.deleteBlob(id),
      listBlobs: (prefix) => store.listBlobs(prefix),
    },
    // Opened on first use (a failed open is tried again); its token moves from 'closed' now.
    catalogue: sharedStart(() => openSqliteCatalogue(main.sqlite, store, (db) => {
      catalogue = db
      tokens.track('catalogue', db)
    })),
    sqlite: {
      stats: () => {
        const { count, bytes } = residencyOf(store).stats()
        return { wasmMemory: main.sqlite.wasm.heap8u().byteLength, layersOpen: count, layersResident: bytes }
      },
    },
    ping: async () => { await main.read((db) => db.selectValue('SELECT 1')) },
    close: async () => {
      await catalogue?.close()
      await main.close()
    },
  }
}
