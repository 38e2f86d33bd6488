/**
 * @module api/auth
 * Session login and logout (a cookie), the current user, and changing a password.
 */
import { request } from './request.ts'

export interface CurrentUser {
  id: number
  keyname: string
  display_name: string
  auth_medium: string | null
  password_change_required: boolean
}

/** The guest's keyname: anyone who has not logged in. */
export const GUEST_KEYNAME = 'guest'

/** Shorter passwords are refused by the backend. */
export const MIN_PASSWORD_LENGTH = 8

export const getCurrentUser = () => request<CurrentUser>('/api/component/auth/current_user')

export const login = (login: string, password: string) =>
  request<Omit<CurrentUser, 'auth_medium'>>('/api/component/auth/login', { method: 'POST', json: { login, password } })

export const logout = () => request<unknown>('/api/component/auth/logout', { method: 'POST' })

export const changePassword = (userId: number, password: string) =>
  request<unknown>(`/api/component/auth/user/${userId}`, { method: 'PUT', json: { password } })
