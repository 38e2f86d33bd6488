// port: legacy-sql (issue 22)
/**
 * @module auth/principals
 * Users and groups as the original keeps them (reference ngw-services §5.1–5.2): one id sequence,
 * the system principals (guest, everyone, authenticated, owner, administrators) that cannot be
 * renamed or deleted, group membership, and the rule that `administrators` always keeps an
 * enabled member. Functions run inside the caller's read or write and throw `ApiError` before
 * anything is half-done.
 */
import { ApiError, validationError } from '../core/error.ts'
import { expectKind } from '../core/validate.ts'
import type { SqlDb } from '../store/database.ts'
import { ownsResources } from '../resource/service.ts'

export type Cls = 'U' | 'G'

interface Row {
  id: number; cls: Cls; keyname: string; display_name: string; system: number; disabled: number
  password_hash: string | null; language: string | null; description: string | null
}

const KEYNAME = /^[A-Za-z][A-Za-z0-9_-]*$/
const LANGUAGE = /^[a-z]{2,3}(-[a-z]{2,3})?$/

export const principalNotFound = (cls: Cls, id: number) => validationError(
  `${cls === 'U' ? 'User' : 'Group'} with id = ${id} was not found.`, { id })

export function principalRow(db: SqlDb, id: number, cls?: Cls): Row | undefined {
  const row = db.selectObject(`SELECT id, cls, keyname, display_name, system, disabled, password_hash, language, description
    FROM principal WHERE id = ?`, [id]) as Row | undefined
  return row && (!cls || row.cls === cls) ? row : undefined
}

const adminGroupId = (db: SqlDb) => db.selectValue(`SELECT id FROM principal WHERE keyname = 'administrators' AND cls = 'G'`) as number

const groupsOf = (db: SqlDb, userId: number) =>
  (db.selectValues(`SELECT group_id FROM principal_member WHERE user_id = ? ORDER BY group_id`, [userId]) as number[]).map(Number)
const membersOf = (db: SqlDb, groupId: number) =>
  (db.selectValues(`SELECT user_id FROM principal_member WHERE group_id = ? ORDER BY user_id`, [groupId]) as number[]).map(Number)

/** A user in the original's full form (`UserRead`), or its brief form. */
export function userJson(db: SqlDb, r: Row, brief: boolean): Record<string, unknown> {
  const memberOf = groupsOf(db, r.id)
  const out: Record<string, unknown> = { id: r.id, system: !!r.system, keyname: r.keyname, display_name: r.display_name,
    is_administrator: memberOf.includes(adminGroupId(db)), disabled: !!r.disabled, password: r.password_hash !== null,
    last_activity: null, oauth_subject: null }
  if (brief) return out
  return { ...out, superuser: false, alink: null, description: r.description, language: r.language, oauth_tstamp: null,
    member_of: memberOf, permissions: [] }
}

export function groupJson(db: SqlDb, r: Row, brief: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { id: r.id, system: !!r.system, keyname: r.keyname, display_name: r.display_name }
  if (brief) return out
  return { ...out, description: r.description, register: false, oauth_mapping: [], members: membersOf(db, r.id), permissions: [] }
}

export function listPrincipals(db: SqlDb, cls: Cls, systemOnly: boolean): Row[] {
  return db.selectObjects(`SELECT id, cls, keyname, display_name, system, disabled, password_hash, language, description
    FROM principal WHERE cls = ? ${systemOnly ? 'AND system = 1' : ''} ORDER BY id`, [cls]) as unknown as Row[]
}

/** What a POST or PUT body sets; `passwordHash` is hashed by the caller (PBKDF2 is asynchronous). */
export interface PrincipalInput {
  keyname?: string
  displayName?: string
  description?: string | null
  disabled?: boolean
  language?: string | null
  /** A new hash, `null` to clear it, `undefined` to keep it. */
  passwordHash?: string | null
  /** Group ids (users) or user ids (groups). */
  links?: number[]
}

const str = (v: unknown, path: string) => expectKind<string>('str', v, path)

/** Reads the fields of a body that are the same for users and groups (the password apart). */
export function principalInput(cls: Cls, body: Record<string, unknown>): PrincipalInput {
  const out: PrincipalInput = {}
  if (body.keyname !== undefined) {
    out.keyname = str(body.keyname, '$.keyname')
    if (!KEYNAME.test(out.keyname)) throw validationError(`Invalid keyname: ${out.keyname} - at \`$.keyname\``)
  }
  if (body.display_name !== undefined) {
    out.displayName = str(body.display_name, '$.display_name').trim()
    if (!out.displayName) throw validationError('Display name must not be empty - at `$.display_name`')
  }
  if (body.description !== undefined) out.description = expectKind<string>('str', body.description, '$.description', true)
  if (cls === 'U' && body.disabled !== undefined) out.disabled = expectKind<boolean>('bool', body.disabled, '$.disabled')
  if (cls === 'U' && body.language !== undefined) {
    out.language = expectKind<string>('str', body.language, '$.language', true)
    if (out.language !== null && !LANGUAGE.test(out.language)) throw validationError(`Invalid language - at \`$.language\``)
  }
  const linkKey = cls === 'U' ? 'member_of' : 'members'
  if (body[linkKey] !== undefined) {
    out.links = expectKind<unknown[]>('array', body[linkKey], `$.${linkKey}`)
      .map((v, i) => expectKind<number>('int', v, `$.${linkKey}[${i}]`))
  }
  return out
}

/**
 * Creates (`id` undefined) or changes a principal; returns its id. `isAdmin` is whether the
 * caller is an administrator: only they may touch system principals, administrators and the
 * `administrators` group. Returns whether the user's sessions must end (disabled, renamed, or
 * a password set by someone else).
 */
export function savePrincipal(db: SqlDb, cls: Cls, id: number | undefined, input: PrincipalInput): { id: number; endSessions: boolean } {
  const old = id === undefined ? undefined : principalRow(db, id, cls)
  if (id !== undefined && !old) throw principalNotFound(cls, id)
  if (old?.system && ((input.keyname !== undefined && input.keyname !== old.keyname)
    || (input.displayName !== undefined && input.displayName !== old.display_name))) {
    throw validationError(`The keyname and display name of system principal '${old.keyname}' cannot be changed.`)
  }
  if (!old && (input.keyname === undefined || input.displayName === undefined)) {
    throw validationError(`Object missing required field \`${input.keyname === undefined ? 'keyname' : 'display_name'}\` - at \`$\``)
  }
  const keyname = input.keyname ?? old!.keyname
  const displayName = input.displayName ?? old!.display_name
  if (db.selectValue(`SELECT 1 FROM principal WHERE keyname = ? COLLATE NOCASE AND id IS NOT ?`, [keyname, id ?? null])) {
    throw validationError(`Principal '${keyname}' already exists.`)
  }
  if (db.selectValue(`SELECT 1 FROM principal WHERE cls = ? AND lower(display_name) = lower(?) AND id IS NOT ?`, [cls, displayName, id ?? null])) {
    throw validationError(`Principal with full name '${displayName}' already exists.`)
  }
  const passwordHash = input.passwordHash === undefined ? old?.password_hash ?? null : input.passwordHash
  const disabled = input.disabled ?? !!old?.disabled
  if (old) {
    db.exec({ sql: `UPDATE principal SET keyname = ?, display_name = ?, description = ?, disabled = ?, language = ?, password_hash = ?
      WHERE id = ?`, bind: [keyname, displayName, input.description === undefined ? old.description : input.description,
      disabled ? 1 : 0, input.language === undefined ? old.language : input.language, passwordHash, id!] })
  } else {
    db.exec({ sql: `INSERT INTO principal (cls, keyname, display_name, description, disabled, language, password_hash)
      VALUES (?, ?, ?, ?, ?, ?, ?)`, bind: [cls, keyname, displayName, input.description ?? null, disabled ? 1 : 0,
      input.language ?? null, passwordHash] })
    id = Number(db.selectValue('SELECT last_insert_rowid()'))
  }
  if (input.links) setLinks(db, cls, id!, input.links)
  requireEnabledAdministrator(db)
  const endSessions = !!old && cls === 'U' && ((disabled && !old.disabled) || keyname !== old.keyname || input.passwordHash !== undefined)
  if (endSessions || (cls === 'U' && disabled)) db.exec({ sql: `DELETE FROM session WHERE user_id = ?`, bind: [id!] })
  return { id: id!, endSessions }
}

/** Replaces a user's groups or a group's members, as the original's `member_of` / `members`. */
function setLinks(db: SqlDb, cls: Cls, id: number, links: number[]): void {
  const other: Cls = cls === 'U' ? 'G' : 'U'
  for (const l of links) {
    const r = principalRow(db, l, other)
    if (!r) throw principalNotFound(other, l)
    const user = cls === 'U' ? principalRow(db, id)! : r
    // Of the system users only the guest can be put into groups (§5.1).
    if (user.system && user.keyname !== 'guest') throw validationError(`User '${user.keyname}' can't be a member of a group.`)
  }
  db.exec({ sql: `DELETE FROM principal_member WHERE ${cls === 'U' ? 'user_id' : 'group_id'} = ?`, bind: [id] })
  for (const l of new Set(links)) {
    db.exec({ sql: `INSERT INTO principal_member (group_id, user_id) VALUES (?, ?)`, bind: cls === 'U' ? [l, id] : [id, l] })
  }
}

/** 422 AdministratorRequired when `administrators` has no enabled member left (§5.2). */
function requireEnabledAdministrator(db: SqlDb): void {
  const n = db.selectValue(`SELECT count(*) FROM principal_member m JOIN principal u ON u.id = m.user_id
    WHERE m.group_id = ? AND u.disabled = 0`, [adminGroupId(db)]) as number
  if (!n) {
    throw new ApiError(422, 'Administrator required', { message: 'The administrators group must have at least one enabled member.',
      exception: 'nextgisweb.auth.exception.AdministratorRequired' })
  }
}

export function deletePrincipal(db: SqlDb, cls: Cls, id: number): void {
  const row = principalRow(db, id, cls)
  if (!row) throw principalNotFound(cls, id)
  if (row.system) throw validationError(`System principal '${row.keyname}' cannot be deleted.`)
  if (cls === 'U' && ownsResources(db, id)) {
    throw validationError('User is referenced with resources', { references_data: true })
  }
  db.exec({ sql: `DELETE FROM principal WHERE id = ?`, bind: [id] })
  requireEnabledAdministrator(db)
}

/** Whether the principal `id` is an administrator or the `administrators` group (changes need an administrator). */
export function isAdminPrincipal(db: SqlDb, id: number): boolean {
  const g = adminGroupId(db)
  return id === g || !!db.selectValue(`SELECT 1 FROM principal_member WHERE group_id = ? AND user_id = ?`, [g, id])
}
