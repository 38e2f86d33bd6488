/**
 * @module sqlite/main/uploads
 * The `upload` table (`UploadRead/Write`): the records of uploads, whose bytes are blobs
 * (upload/service.ts writes them before and deletes them after the unit of work).
 */
import type { SqlDb } from '../../store/database.ts'
import type { UploadRead, UploadWrite } from '../../upload/repository.ts'
import type { UploadRow } from '../../upload/types.ts'
import { dataBlob } from '../../upload/rows.ts'

export const uploadsRead = (db: SqlDb): UploadRead => ({
  get: async (id, since) => db.selectObject(
    'SELECT id, size, name, mime_type, received, parts, created FROM upload WHERE id = ? AND created >= ?',
    [id, since]) as UploadRow | undefined,
  pendingBytes: async (since) => Number(db.selectValue('SELECT coalesce(sum(size), 0) FROM upload WHERE created >= ?', [since])),
})

export const uploadsWrite = (db: SqlDb): UploadWrite => ({
  ...uploadsRead(db),
  insert: async (i, now) => {
    db.exec({ sql: 'INSERT INTO upload (id, size, name, mime_type, received, created) VALUES (?, ?, ?, ?, ?, ?)',
      bind: [i.id, i.size, i.name ?? null, i.mimeType ?? null, i.received, now.toISOString()] })
  },
  progress: async (id, received, parts, mime) => {
    db.exec({ sql: 'UPDATE upload SET received = ?, parts = ?, mime_type = coalesce(?, mime_type) WHERE id = ?',
      bind: [received, JSON.stringify(parts), mime ?? null, id] })
  },
  delete: async (id) => {
    db.exec({ sql: 'DELETE FROM upload WHERE id = ?', bind: [id] })
  },
  sweepExpired: async (since, limit) => {
    const rows = db.selectObjects('SELECT id, parts FROM upload WHERE created < ? ORDER BY created LIMIT ?',
      [since, limit]) as Array<Pick<UploadRow, 'id' | 'parts'>>
    const blobs: string[] = []
    for (const r of rows) {
      db.exec({ sql: 'DELETE FROM upload WHERE id = ?', bind: [r.id] })
      blobs.push(dataBlob(r.id), ...(JSON.parse(r.parts) as string[]))
    }
    return blobs
  },
})
