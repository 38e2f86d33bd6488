/**
 * @module sqlite/main/requests
 * The answers of keyed writes in the main database (`RequestLogRead/Write`), over
 * store/request-log.ts, which a layer's database shares until WP-C moves it here.
 */
import type { SqlDb } from '../../store/database.ts'
import { pastRequest, recordRequest } from '../../store/request-log.ts'
import type { RequestLogRead, RequestLogWrite } from '../../resource/repository.ts'

export const requestsRead = (db: SqlDb): RequestLogRead => ({
  past: async (key) => pastRequest(db, key),
})

export const requestsWrite = (db: SqlDb): RequestLogWrite => ({
  ...requestsRead(db),
  record: async (key, fingerprint, body, now) => recordRequest(db, key, fingerprint, body, now),
})
