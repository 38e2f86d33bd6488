/**
 * @module postgres/tx
 * The `tx` of a PostgreSQL unit of work or read: the main data's repositories over the
 * transaction's connection (port/assemble.ts makes them on first use and checks liveness).
 * `lock('tree')` is already held by every unit of work (uow.ts's main lock); a layer's lock is
 * an advisory lock of its own, for the feature writes that run outside the main lock.
 */
import type { ChangeTokens, MainRead, MainWrite } from '../port/port.ts'
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

/** Answers the ACL's change token (`acl_state`) of a read, given the query that reads it. */
export type AclToken = (read: () => Promise<number>) => Promise<number>

/**
 * The ACL token read once per move of the 'main' change counter: `acl_state` changes only in
 * a main unit of work (the triggers of schema/acl.ts on the tree, principals and membership),
 * and every one of those moves 'main' (port.ts), which each request refreshes first. So while
 * 'main' stands still the token read before still holds, and a request's permission check costs
 * no statement. The counter is taken before the read: a commit between the two only makes the
 * remembered token newer than its counter, and the next move reads it again.
 */
export function aclTokenOnce(tokens: ChangeTokens): AclToken {
  let known: { main: string; version: number } | undefined
  return async (read) => {
    const main = tokens.current('main')
    if (known?.main === main) return known.version
    const version = await read()
    known = { main, version }
    return version
  }
}

/**
 * Read members only: the transaction is READ ONLY. `aclToken` answers the ACL's token (a unit
 * of work reads it in its own transaction, which sees its own uncommitted changes).
 */
export function pgMainRead(db: PgConn, live: () => void, aclToken?: AclToken): MainRead {
  const read = aclToken ? { ...READ, acl: (c: PgConn) => { const acl = aclRead(c); return { ...acl, token: () => aclToken(acl.token) } } } : READ
  return assembleTx<MainRead, PgConn>(db, live, read, {})
}
