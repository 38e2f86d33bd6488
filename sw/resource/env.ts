/**
 * @module resource/env
 * The resource component's context: who asks, and the services the tree needs.
 */
import type { Database } from '../store/database.ts'
import type { Principal } from '../auth/types.ts'
import type { ClassLookup } from './class.ts'
import type { AclEvaluator } from '../auth/acl.ts'

export interface ResourceServices {
  main: Database
  classes: ClassLookup
  acl: AclEvaluator
  platform: { now(): Date; log(message: string, err?: unknown): void }
}

export interface ResourceVariables {
  services: ResourceServices
  user: Principal
}
