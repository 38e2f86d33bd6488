/**
 * The SQLite implementation's main database behind an app's data port: for tests and
 * benchmarks that look at (or set up) rows directly. The product never reaches it this way.
 */
import type { DataPort } from '../../sw/port/port.ts'
import type { SqlitePort } from '../../sw/sqlite/port.ts'

export const sqliteMain = (services: { data: DataPort }) => (services.data as SqlitePort).main
