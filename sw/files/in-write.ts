// port: legacy-sql (issue 22)
/**
 * @module files/in-write
 * The two record changes a class hook makes inside the tree's unit of work: adopting the files
 * a resource now refers to, releasing those it stops referring to (files/service.ts tells the
 * story). The hooks are synchronous and get only the connection (`ctx.db`) until the tree
 * hands them `ctx.tx` (issue 22 WP-A); then they call `tx.files.adopt/release` and this module
 * goes. sw/sqlite/main/files.ts runs these same statements for `FileRecordWrite`.
 */
import type { SqlDb } from '../store/database.ts'
import { dropRows, type FileServices } from './service.ts'
import type { StoredFile } from './types.ts'

export const fileRecordSql = {
  /** The rows of `keys` go: their files are a resource's now (or forgotten). */
  adopt(db: SqlDb, keys: readonly string[]): void {
    for (const key of keys) db.exec({ sql: `DELETE FROM file_pending WHERE key = ?`, bind: [key] })
  },
  /** Rows that say `files` are to be deleted once the write has committed. */
  release(db: SqlDb, files: readonly StoredFile[]): void {
    for (const f of files) {
      db.exec({ sql: `INSERT OR REPLACE INTO file_pending (key, size, state, created) VALUES (?, ?, 'released', datetime('now'))`,
        bind: [f.key, f.size] })
    }
  },
}

/** Inside the main write that makes a resource refer to `files`: they are the resource's now. */
export function adoptFiles(db: SqlDb, files: StoredFile[]): void {
  fileRecordSql.adopt(db, files.map((f) => f.key))
}

/**
 * Inside a main write that stops referring to `files` (a resource deleted, a bucket's file
 * dropped): returns what deletes their chunks once the write has committed. Until it has
 * run, the rows say what is to be deleted, so a worker stopped in between loses nothing.
 */
export function releaseFiles(services: FileServices, db: SqlDb, files: StoredFile[]): () => Promise<void> {
  fileRecordSql.release(db, files)
  return () => dropRows(services, files)
}
