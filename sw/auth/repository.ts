/**
 * @module auth/repository
 * What users, groups, sessions, login limits and the permission evaluator need from storage
 * (issue 22, docs/architecture.md "Data port"). The evaluator (acl.ts) stays a synchronous
 * computation over what `AclRead` loads. `sw/sqlite/main/` implements these in SQL.
 */
import type { LimitEntry } from './rate-limit.ts'
import type { Principal } from './types.ts'

/** An ACL rule as stored in `resource.permissions` (reference §5.3). */
export interface AclRule {
  action: 'allow' | 'deny'
  principal: { id: number }
  identity: string
  scope: string
  permission: string
  propagate: boolean
}

/** The columns of a resource the evaluator compiles into a node (it reads them itself, by id). */
export interface AclRow { id: number; parent_id: number | null; cls: string; permissions: string }

/** The system principals' ids, looked up by keyname (never hard-coded, reference §5.1). */
export interface SystemIds { everyone: number; authenticated: number; guest: number }

export interface AclRead {
  /** The ACL change token (`acl_state`), read inside the caller's transaction so that it sees its own changes. */
  token(): Promise<number>
  /**
   * The change log after token `since`, oldest first: per change, the resource it names and that
   * resource as it is now (`row` null: deleted), or `resourceId` null for a change of principals
   * or memberships. Shorter than the tokens between when the log no longer reaches back.
   */
  changes(since: number): Promise<Array<{ resourceId: number | null; row: AclRow | null }>>
  /** A node and its ancestors, in one query; empty when `id` does not exist. */
  chain(id: number): Promise<AclRow[]>
  rows(ids: readonly number[]): Promise<AclRow[]>
  subjects(): Promise<{ system: SystemIds; memberships: [user: number, group: number][] }>
  /** Every allow rule anywhere in the tree (`mayCreateSomewhere`). */
  allowRules(): Promise<AclRule[]>
}

/** A user or group as stored. */
export interface PrincipalRow {
  id: number; cls: 'U' | 'G'; keyname: string; display_name: string; system: number; disabled: number
  password_hash: string | null; language: string | null; description: string | null
}
/** What a login checks: the user and its password's hash. */
export interface PrincipalLogin { principal: Principal; passwordHash: string | null }
export interface NewPrincipal {
  cls: 'U' | 'G'; keyname: string; displayName: string; description: string | null
  system?: boolean; disabled?: boolean; passwordHash?: string | null; language?: string | null
  /** The browser host's first-run password, still to be replaced. */
  mustChangePassword?: boolean
  /** Only the system principals of a fresh database have fixed ids; others get the next one. */
  id?: number
}
export type PrincipalPatch = Partial<Omit<NewPrincipal, 'cls' | 'system' | 'id'>>

/** Keynames compare case-insensitively everywhere (a login, `idOf`, `taken`), and are unique so. */
export interface PrincipalRead {
  user(id: number): Promise<Principal | undefined>
  byLogin(login: string): Promise<PrincipalLogin | undefined>
  row(id: number, cls?: 'U' | 'G'): Promise<PrincipalRow | undefined>
  list(cls: 'U' | 'G', systemOnly: boolean): Promise<PrincipalRow[]>
  groupsOf(userId: number): Promise<number[]>
  membersOf(groupId: number): Promise<number[]>
  idOf(keyname: string): Promise<number | undefined>
  /**
   * Whether `keyname` (of any class) or `displayName` (within `cls`) is used by a principal
   * other than `exceptId`; both compare case-insensitively.
   */
  taken(q: { keyname?: string; cls?: 'U' | 'G'; displayName?: string; exceptId?: number }): Promise<boolean>
  /** Enabled members of `administrators` (§5.2: there is always one). */
  enabledAdministrators(): Promise<number>
  /** Whether the user owns a resource (such a user cannot be deleted); reads the resource table. */
  ownsResources(userId: number): Promise<boolean>
  count(): Promise<number>
}
export interface PrincipalWrite extends PrincipalRead {
  insert(p: NewPrincipal): Promise<number>
  update(id: number, p: PrincipalPatch): Promise<void>
  /** Its memberships and sessions go with it. */
  delete(id: number): Promise<void>
  /** A user's groups (`cls` 'U') or a group's members ('G'), replaced whole. */
  setLinks(cls: 'U' | 'G', id: number, links: readonly number[]): Promise<void>
}

export interface SessionRead { user(key: string, now: Date): Promise<Principal | undefined> }
export interface SessionWrite extends SessionRead {
  /** Drops expired sessions too. */
  create(key: string, userId: number, now: Date, expires: Date): Promise<void>
  delete(key: string): Promise<void>
  endAll(userId: number, keep?: string): Promise<void>
}

export interface LoginLimitRead { load(now: number): Promise<Array<[string, LimitEntry]>> }
export interface LoginLimitWrite extends LoginLimitRead { save(e: Array<[string, LimitEntry | undefined]>, now: number): Promise<void> }
