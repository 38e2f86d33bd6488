/**
 * @module core/env
 * Per-request values that middleware puts on the router context.
 */
import type { Platform } from '../platform/platform.ts'
import type { Services } from '../services.ts'
import type { Principal } from '../auth/types.ts'
import type { ApiError } from './error.ts'

export interface AppEnv {
  /** What the host knows of the request beyond the Request itself (`OutpostApp.fetch`'s second argument). */
  Bindings: {
    /** The client's network address, where the host knows it (Node; a service worker does not). */
    peer?: string
  } | undefined
  Variables: {
    requestId: string
    platform: Platform
    services: Services
    /** Who sent the request; the guest when nobody logged in. */
    user: Principal
    authMedium: 'session' | 'basic' | null
    /** The stored key of the session the request's cookie names, whether or not it is live. */
    sessionKey: string | undefined
    /** Set when the request carried credentials that failed; thrown once a route matched. */
    authError: ApiError | undefined
  }
}
