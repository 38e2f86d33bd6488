/**
 * @module wasm/sqlite
 * Lazy loader for SQLite-WASM. The same module serves both hosts: the package's `node`
 * export reads the .wasm from disk, its browser export fetches it next to the bundle.
 */
import sqlite3InitModule, { type Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { sharedStart } from '../sw/core/once.ts'

/** Returns a function that starts SQLite on its first call and shares it afterwards. */
export function createSqliteLoader(): () => Promise<Sqlite3Static> {
  return sharedStart(() => sqlite3InitModule())
}
