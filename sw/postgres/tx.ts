/**
 * @module postgres/tx
 * The `tx` of a PostgreSQL unit of work or read: the main data's repositories over the
 * transaction's connection (port/assemble.ts makes them on first use and checks liveness).
 * `lock('tree')` is already held by every unit of work (uow.ts's main lock); a layer's lock is
 * an advisory lock of its own, for the feature writes that run outside the main lock.
 */
import type { MainRead, MainWrite } from '../port/port.ts'
import { assembleTx } from '../port/assemble.ts'
import type { PgConn } from './conn.ts'
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

/** The advisory lock key of layer `id`'s feature writes: 'L' in the high bits, the id below. */
export const layerLock = (id: number) => String(0x4c000000_00000 + id)

const READ: Record<string, (db: PgConn) => object> = {
  requests: requestsRead,
  principals: principalsRead,
  sessions: sessionsRead,
  loginLimits: loginLimitsRead,
  uploads: uploadsRead,
  files: filesRead,
  resources: resourcesRead,
  acl: aclRead,
  fields: fieldsRead,
}

const WRITE: Record<string, (db: PgConn) => object> = {
  requests: requestsWrite, journal: journalWrite,
  principals: principalsWrite,
  sessions: sessionsWrite,
  loginLimits: loginLimitsWrite,
  uploads: uploadsWrite,
  files: filesWrite,
  resources: resourcesWrite,
  acl: aclRead,
  fields: fieldsWrite,
}

export function pgMainWrite(db: PgConn, live: () => void): MainWrite {
  return assembleTx<MainWrite, PgConn>(db, live, WRITE, {
    lock: async (key: string) => {
      live()
      if (key.startsWith('layer:')) await db.exec('SELECT pg_advisory_xact_lock($1)', [layerLock(Number(key.slice(6)))])
    },
  })
}

/** Read members only: the transaction is READ ONLY. */
export function pgMainRead(db: PgConn, live: () => void): MainRead {
  return assembleTx<MainRead, PgConn>(db, live, READ, {})
}
