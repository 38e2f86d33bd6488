/**
 * @module auth/types
 * Users as the backend sees them. Wire shapes are built in `routes.ts`.
 */

export interface Principal {
  id: number
  keyname: string
  displayName: string
  /** Member of `administrators`: may change anything. */
  isAdmin: boolean
  isGuest: boolean
  /** A disabled user cannot log in (401 UserDisabledException). */
  disabled: boolean
  /** The browser host's default password is still in place. */
  mustChangePassword: boolean
  language: string | null
}

export const GUEST_ID = 1
