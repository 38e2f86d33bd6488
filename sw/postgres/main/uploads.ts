/**
 * @module postgres/main/uploads
 * The `upload` table (`UploadRead/Write`), as sqlite/main/uploads.ts: the records of uploads,
 * whose bytes are blobs (upload/service.ts writes them before and deletes them after the unit
 * of work).
 */
import type { UploadRead, UploadWrite } from '../../upload/repository.ts'
import type { UploadRow } from '../../upload/types.ts'
import { dataBlob } from '../../upload/rows.ts'
import type { PgConn } from '../conn.ts'

export const uploadsRead = (db: PgConn): UploadRead => ({
  get: async (id, since) => db.row<UploadRow>(
    'SELECT id, size, name, mime_type, received, parts, created FROM upload WHERE id = $1 AND created >= $2', [id, since]),
  pendingBytes: async (since) => Number(await db.value('SELECT coalesce(sum(size), 0) FROM upload WHERE created >= $1', [since])),
})

export const uploadsWrite = (db: PgConn): UploadWrite => ({
  ...uploadsRead(db),
  insert: async (i, now) => {
    await db.exec('INSERT INTO upload (id, size, name, mime_type, received, created) VALUES ($1, $2, $3, $4, $5, $6)',
      [i.id, i.size, i.name ?? null, i.mimeType ?? null, i.received, now.toISOString()])
  },
  progress: async (id, received, parts, mime) => {
    await db.exec('UPDATE upload SET received = $1, parts = $2, mime_type = coalesce($3, mime_type) WHERE id = $4',
      [received, JSON.stringify(parts), mime ?? null, id])
  },
  delete: async (id) => { await db.exec('DELETE FROM upload WHERE id = $1', [id]) },
  // One statement picks the oldest `limit` and deletes them; their blobs come back oldest first.
  sweepExpired: async (since, limit) => {
    const rows = await db.rows<Pick<UploadRow, 'id' | 'parts'>>(`WITH gone AS (
        DELETE FROM upload WHERE id IN (SELECT id FROM upload WHERE created < $1 ORDER BY created, id LIMIT $2)
        RETURNING id, parts, created)
      SELECT id, parts FROM gone ORDER BY created, id`, [since, limit])
    return rows.flatMap((r) => [dataBlob(r.id), ...(JSON.parse(r.parts) as string[])])
  },
})
