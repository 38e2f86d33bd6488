/**
 * @module core/env
 * Per-request values that middleware puts on the router context.
 */
import type { Platform } from '../platform/platform.ts'
import type { Services } from '../services.ts'
import type { Principal } from '../auth/types.ts'
import type { ApiError } from './error.ts'

export interface AppEnv {
  Variables: {
    requestId: string
    platform: Platform
    services: Services
    /** Who sent the request; the guest when nobody logged in. */
    user: Principal
    authMedium: 'session' | 'basic' | null
    /** Set when the request carried credentials that failed; thrown once a route matched. */
    authError: ApiError | undefined
  }
}
