/**
 * @module sqlite/main/journal
 * The change journal of the tree (`JournalWrite`): one row per create, change, move or delete.
 */
import type { SqlDb } from '../../store/database.ts'
import type { JournalWrite } from '../../resource/repository.ts'

export const journalWrite = (db: SqlDb): JournalWrite => ({
  add: async (e) => {
    db.exec({ sql: `INSERT INTO journal (tstamp, user_id, resource_id, action, payload) VALUES (?, ?, ?, ?, ?)`,
      bind: [e.tstamp, e.userId, e.resourceId, e.action, JSON.stringify(e.payload)] })
  },
})
