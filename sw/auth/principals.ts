/**
 * @module auth/principals
 * Users and groups as the original keeps them (reference ngw-services §5.1–5.2): one id sequence,
 * the system principals (guest, everyone, authenticated, owner, administrators) that cannot be
 * renamed or deleted, group membership, and the rule that `administrators` always keeps an
 * enabled member. Functions run inside the caller's read or unit of work (`tx`) and throw
 * `ApiError`, which rolls the unit of work back.
 */
import { ApiError, validationError } from '../core/error.ts'
import { expectKind } from '../core/validate.ts'
import type { MainRead, MainWrite } from '../port/port.ts'
import type { PrincipalRow as Row } from './repository.ts'

export type Cls = 'U' | 'G'

const KEYNAME = /^[A-Za-z][A-Za-z0-9_-]*$/
const LANGUAGE = /^[a-z]{2,3}(-[a-z]{2,3})?$/

export const principalNotFound = (cls: Cls, id: number) => validationError(
  `${cls === 'U' ? 'User' : 'Group'} with id = ${id} was not found.`, { id })

/** The id of `administrators` (looked up, never hard-coded: reference §5.1). */
const adminGroupId = async (tx: MainRead) => (await tx.principals.idOf('administrators'))!

/** A user in the original's full form (`UserRead`), or its brief form. */
export async function userJson(tx: MainRead, r: Row, brief: boolean): Promise<Record<string, unknown>> {
  const memberOf = await tx.principals.groupsOf(r.id)
  const out: Record<string, unknown> = { id: r.id, system: !!r.system, keyname: r.keyname, display_name: r.display_name,
    is_administrator: memberOf.includes(await adminGroupId(tx)), disabled: !!r.disabled, password: r.password_hash !== null,
    last_activity: null, oauth_subject: null }
  if (brief) return out
  return { ...out, superuser: false, alink: null, description: r.description, language: r.language, oauth_tstamp: null,
    member_of: memberOf, permissions: [] }
}

export async function groupJson(tx: MainRead, r: Row, brief: boolean): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { id: r.id, system: !!r.system, keyname: r.keyname, display_name: r.display_name }
  if (brief) return out
  return { ...out, description: r.description, register: false, oauth_mapping: [], members: await tx.principals.membersOf(r.id), permissions: [] }
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
export async function savePrincipal(tx: MainWrite, cls: Cls, id: number | undefined, input: PrincipalInput): Promise<{ id: number; endSessions: boolean }> {
  const { principals } = tx
  const old = id === undefined ? undefined : await principals.row(id, cls)
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
  if (await principals.taken({ keyname, exceptId: id })) {
    throw validationError(`Principal '${keyname}' already exists.`)
  }
  if (await principals.taken({ cls, displayName, exceptId: id })) {
    throw validationError(`Principal with full name '${displayName}' already exists.`)
  }
  const passwordHash = input.passwordHash === undefined ? old?.password_hash ?? null : input.passwordHash
  const disabled = input.disabled ?? !!old?.disabled
  if (old) {
    await principals.update(id!, { keyname, displayName, description: input.description === undefined ? old.description : input.description,
      disabled, language: input.language === undefined ? old.language : input.language, passwordHash })
  } else {
    id = await principals.insert({ cls, keyname, displayName, description: input.description ?? null, disabled,
      language: input.language ?? null, passwordHash })
  }
  if (input.links) await setLinks(tx, cls, id!, input.links)
  await requireEnabledAdministrator(tx)
  const endSessions = !!old && cls === 'U' && ((disabled && !old.disabled) || keyname !== old.keyname || input.passwordHash !== undefined)
  if (endSessions || (cls === 'U' && disabled)) await tx.sessions.endAll(id!)
  return { id: id!, endSessions }
}

/** Replaces a user's groups or a group's members, as the original's `member_of` / `members`. */
async function setLinks(tx: MainWrite, cls: Cls, id: number, links: number[]): Promise<void> {
  const other: Cls = cls === 'U' ? 'G' : 'U'
  for (const l of links) {
    const r = await tx.principals.row(l, other)
    if (!r) throw principalNotFound(other, l)
    const user = cls === 'U' ? (await tx.principals.row(id))! : r
    // Of the system users only the guest can be put into groups (§5.1).
    if (user.system && user.keyname !== 'guest') throw validationError(`User '${user.keyname}' can't be a member of a group.`)
  }
  await tx.principals.setLinks(cls, id, links)
}

/** 422 AdministratorRequired when `administrators` has no enabled member left (§5.2). */
async function requireEnabledAdministrator(tx: MainRead): Promise<void> {
  if (!await tx.principals.enabledAdministrators()) {
    throw new ApiError(422, 'Administrator required', { message: 'The administrators group must have at least one enabled member.',
      exception: 'nextgisweb.auth.exception.AdministratorRequired' })
  }
}

export async function deletePrincipal(tx: MainWrite, cls: Cls, id: number): Promise<void> {
  const row = await tx.principals.row(id, cls)
  if (!row) throw principalNotFound(cls, id)
  if (row.system) throw validationError(`System principal '${row.keyname}' cannot be deleted.`)
  if (cls === 'U' && await tx.principals.ownsResources(id)) {
    throw validationError('User is referenced with resources', { references_data: true })
  }
  await tx.principals.delete(id)
  await requireEnabledAdministrator(tx)
}

/** Whether the principal `id` is an administrator or the `administrators` group (changes need an administrator). */
export async function isAdminPrincipal(tx: MainRead, id: number): Promise<boolean> {
  const g = await adminGroupId(tx)
  return id === g || (await tx.principals.groupsOf(id)).includes(g)
}
