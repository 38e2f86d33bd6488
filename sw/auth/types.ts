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

/**
 * A permission that a resource's data permissions need on another resource (reference
 * ngw-services §4.5: a PostGIS layer's `data.read` needs `connection.connect` on its
 * connection). `id` is the resource whose data it guards, `on` the other one.
 */
export interface LinkedNeed { id: number; on: number; scope: string; permission: string }

/** Where the checkpoint learns of linked needs: the class registry. */
export interface LinkedNeeds {
  /** The linked needs of the resources `ids` (most have none). */
  linkedNeeds(ids: readonly number[]): Promise<LinkedNeed[]>
}
