/**
 * @module api/users
 * Users and groups (reference ngw-services §5.2): the administrator's page lists, creates,
 * changes and deletes them; the Permissions tab lists them as principals of a rule.
 */
import { request } from './request.ts'

export interface User {
  id: number
  system: boolean
  keyname: string
  display_name: string
  is_administrator: boolean
  disabled: boolean
  /** Whether a password is set: the password itself is write-only. */
  password: boolean
  description?: string | null
  member_of?: number[]
}

export interface Group {
  id: number
  system: boolean
  keyname: string
  display_name: string
  description?: string | null
  members?: number[]
}

/** A write: `password` a string sets it, `false` clears it, absent keeps it. */
export interface UserWrite {
  keyname?: string
  display_name?: string
  description?: string | null
  disabled?: boolean
  password?: string | false
  member_of?: number[]
}

export interface GroupWrite {
  keyname?: string
  display_name?: string
  description?: string | null
  members?: number[]
}

const USERS = '/api/component/auth/user/'
const GROUPS = '/api/component/auth/group/'

/** The full forms need an administrator; `brief` (names only) needs nothing. */
export const listUsers = (brief = false) => request<User[]>(USERS, { query: brief ? { brief: true } : undefined })
export const listGroups = (brief = false) => request<Group[]>(GROUPS, { query: brief ? { brief: true } : undefined })
export const getUser = (id: number) => request<User>(`${USERS}${id}`)

export const createUser = (body: UserWrite) => request<{ id: number }>(USERS, { method: 'POST', json: body })
export const updateUser = (id: number, body: UserWrite) => request<{ id: number }>(`${USERS}${id}`, { method: 'PUT', json: body })
export const deleteUser = (id: number) => request<unknown>(`${USERS}${id}`, { method: 'DELETE' })

export const createGroup = (body: GroupWrite) => request<{ id: number }>(GROUPS, { method: 'POST', json: body })
export const updateGroup = (id: number, body: GroupWrite) => request<{ id: number }>(`${GROUPS}${id}`, { method: 'PUT', json: body })
export const deleteGroup = (id: number) => request<unknown>(`${GROUPS}${id}`, { method: 'DELETE' })
