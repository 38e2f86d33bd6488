/**
 * @module sqlite/main/files
 * The `file_pending` table (`FileRecordRead/Write`): the intent records of stored files
 * (files/service.ts). A row is 'staged' until the unit of work that adopts its file deletes it,
 * 'released' once a unit of work stops referring to its file, until its chunks are gone.
 */
import type { SqlDb } from '../../store/database.ts'
import type { FileRecordRead, FileRecordWrite } from '../../files/repository.ts'
import type { StoredFile } from '../../files/types.ts'
import { fileRecordSql } from '../../files/in-write.ts'

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
  adopt: async (keys) => fileRecordSql.adopt(db, keys),
  release: async (files) => fileRecordSql.release(db, files),
  forget: async (keys) => fileRecordSql.adopt(db, keys),
})
