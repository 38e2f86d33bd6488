// port: legacy-sql (issue 22)
/**
 * @module port/legacy
 * The transition's escape hatch (issue 22): the SQLite connection under a unit of work, for
 * code not yet moved onto repositories (`ctx.db` of the class hooks and the tree service). An
 * implementation without SQL has none, and the final step of issue 22 removes this module.
 */
import type { SqlDb } from '../store/database.ts'

const connections = new WeakMap<object, SqlDb>()

/** Called by the SQLite implementation for each `tx` it makes (with its liveness check). */
export function bindLegacyDb(tx: object, db: SqlDb, live: () => void): void {
  connections.set(tx, new Proxy(db, {
    get(target, key) {
      live()
      const v = Reflect.get(target, key, target)
      return typeof v === 'function' ? v.bind(target) : v
    },
  }))
}

/** The connection under `tx`; throws for a `tx` of an implementation without one. */
export function legacyDb(tx: object): SqlDb {
  const db = connections.get(tx)
  if (!db) throw new Error('legacyDb: this data port has no SQLite connection (issue 22: move the caller onto repositories)')
  return db
}
