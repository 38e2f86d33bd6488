/**
 * @module sqlite/main/files
 * The `file_pending` table (`FileRecordRead/Write`): the intent records of stored files
 * (files/service.ts). A row is 'staged' until the unit of work that adopts its file deletes it,
 * 'released' once a unit of work stops referring to its file, until its chunks are gone.
 */
import type { SqlDb } from '../../store/database.ts'
import type { FileRecordRead, FileRecordWrite } from '../../files/repository.ts'
import type { StoredFile } from '../../files/types.ts'

/** The rows of `keys` go: their files are a resource's now (or forgotten). */
function adopt(db: SqlDb, keys: readonly string[]): void {
  for (const key of keys) db.exec({ sql: `DELETE FROM file_pending WHERE key = ?`, bind: [key] })
}

export const filesRead = (db: SqlDb): FileRecordRead => ({
  released: async (keys) => db.selectObjects(
    `SELECT key, size FROM file_pending WHERE state = 'released' AND key IN (SELECT value FROM json_each(?))`,
    [JSON.stringify(keys)]) as unknown as StoredFile[],
  all: async () => db.selectObjects(`SELECT key, size FROM file_pending`) as unknown as StoredFile[],
})

export const filesWrite = (db: SqlDb): FileRecordWrite => ({
  ...filesRead(db),
  stage: async (f, now) => {
    db.exec({ sql: `INSERT INTO file_pending (key, size, state, created) VALUES (?, ?, 'staged', ?)`,
      bind: [f.key, f.size, now.toISOString()] })
  },
  adopt: async (keys) => adopt(db, keys),
  // Rows that say `files` are to be deleted once the unit of work has committed.
  release: async (files) => {
    for (const f of files) {
      db.exec({ sql: `INSERT OR REPLACE INTO file_pending (key, size, state, created) VALUES (?, ?, 'released', datetime('now'))`,
        bind: [f.key, f.size] })
    }
  },
  forget: async (keys) => adopt(db, keys),
})
