/**
 * @module postgres/main/journal
 * The change journal of the tree (`JournalWrite`): one row per create, change, move or delete.
 */
import type { JournalWrite } from '../../resource/repository.ts'
import type { PgConn } from '../conn.ts'

export const journalWrite = (db: PgConn): JournalWrite => ({
  add: async (e) => {
    await db.exec(`INSERT INTO journal (tstamp, user_id, resource_id, action, payload) VALUES ($1, $2, $3, $4, $5)`,
      [e.tstamp, e.userId, e.resourceId, e.action, JSON.stringify(e.payload)])
  },
})
