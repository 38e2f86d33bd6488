/**
 * @module auth/env
 * The auth component's context: what its middleware and routes read per request, and the
 * services they use. Other components read `user` through their own contexts.
 */
import type { ApiError } from '../core/error.ts'
import type { DataPort } from '../port/port.ts'
import type { Authenticator } from './service.ts'
import type { Principal } from './types.ts'

export interface AuthServices {
  data: DataPort
  auth: Authenticator
  platform: { now(): Date }
}

export interface AuthVariables {
  services: AuthServices
  /** Who sent the request; the guest when nobody logged in. */
  user: Principal
  authMedium: 'session' | 'basic' | null
  /** The stored key of the session the request's cookie names, whether or not it is live. */
  sessionKey: string | undefined
  /** The client's network address, where the host knows it (Node; a service worker does not). */
  peer: string | undefined
  /** Set when the request carried credentials that failed; thrown once a route matched. */
  authError: ApiError | undefined
}
