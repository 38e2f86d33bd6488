/**
 * @module postgres/main/files
 * The `file_pending` table (`FileRecordRead/Write`), as sqlite/main/files.ts: the intent
 * records of stored files (files/service.ts). A row is 'staged' until the unit of work that
 * adopts its file deletes it, 'released' once a unit of work stops referring to its file,
 * until its chunks are gone.
 */
import type { FileRecordRead, FileRecordWrite } from '../../files/repository.ts'
import type { StoredFile } from '../../files/types.ts'
import type { PgConn } from '../conn.ts'

/** The rows of `keys` go: their files are a resource's now (or forgotten). */
async function adopt(db: PgConn, keys: readonly string[]): Promise<void> {
  if (keys.length) await db.exec('DELETE FROM file_pending WHERE key = ANY($1::text[])', [[...keys]])
}

export const filesRead = (db: PgConn): FileRecordRead => ({
  released: async (keys) => db.rows<StoredFile>(`SELECT key, size FROM file_pending WHERE state = 'released' AND key = ANY($1::text[])`,
    [[...keys]]),
  all: async () => db.rows<StoredFile>('SELECT key, size FROM file_pending'),
})

export const filesWrite = (db: PgConn): FileRecordWrite => ({
  ...filesRead(db),
  stage: async (f, now) => {
    await db.exec(`INSERT INTO file_pending (key, size, state, created) VALUES ($1, $2, 'staged', $3)`, [f.key, f.size, now.toISOString()])
  },
  adopt: async (keys) => adopt(db, keys),
  // Rows that say `files` are to be deleted once the unit of work has committed (a staged row
  // becomes released). The last of a repeated key wins, as if released one by one; `created`
  // is SQLite's datetime('now') form, UTC.
  release: async (files) => {
    const last = [...new Map(files.map((f) => [f.key, f.size])).entries()]
    if (!last.length) return
    await db.exec(`INSERT INTO file_pending (key, size, state, created)
      SELECT key, size, 'released', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')
      FROM unnest($1::text[], $2::bigint[]) AS f(key, size)
      ON CONFLICT (key) DO UPDATE SET size = excluded.size, state = excluded.state, created = excluded.created`,
    [last.map(([k]) => k), last.map(([, s]) => s)])
  },
  forget: async (keys) => adopt(db, keys),
})
