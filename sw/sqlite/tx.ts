/**
 * @module sqlite/tx
 * The `tx` of a SQLite unit of work or read: the main database's repositories over its
 * connection, each made on first use and checked for liveness on every call.
 */
import type { SqlDb } from '../store/database.ts'
import type { MainRead, MainWrite } from '../port/port.ts'
import { assembleTx } from '../port/assemble.ts'
import { journalWrite } from './main/journal.ts'
import { requestsRead, requestsWrite } from './main/requests.ts'
import { principalsRead, principalsWrite } from './main/principals.ts'
import { sessionsRead, sessionsWrite } from './main/sessions.ts'
import { loginLimitsRead, loginLimitsWrite } from './main/login-limits.ts'
import { uploadsRead, uploadsWrite } from './main/uploads.ts'
import { filesRead, filesWrite } from './main/files.ts'
import { resourcesRead, resourcesWrite } from './main/resources.ts'
import { aclRead } from './main/acl.ts'
import { fieldsRead, fieldsWrite } from './main/fields.ts'

export function mainWrite(db: SqlDb, live: () => void): MainWrite {
  return assembleTx<MainWrite, SqlDb>(db, live, {
    requests: requestsWrite, journal: journalWrite, principals: principalsWrite, sessions: sessionsWrite, loginLimits: loginLimitsWrite,
    uploads: uploadsWrite, files: filesWrite, resources: resourcesWrite, acl: aclRead, fields: fieldsWrite,
  }, {
    // BEGIN IMMEDIATE already serializes every unit of work on the main database.
    lock: async () => { live() },
  })
}

/** Read members only: a write outside a transaction would be neither atomic nor saved. */
export function mainRead(db: SqlDb, live: () => void): MainRead {
  return assembleTx<MainRead, SqlDb>(db, live, {
    requests: requestsRead, principals: principalsRead, sessions: sessionsRead, loginLimits: loginLimitsRead, uploads: uploadsRead, files: filesRead,
    resources: resourcesRead, acl: aclRead, fields: fieldsRead,
  }, {})
}
