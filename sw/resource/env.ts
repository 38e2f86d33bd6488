/**
 * @module resource/env
 * The resource component's context: who asks, and the services the tree needs.
 */
import type { LinkedNeeds, Principal } from '../auth/types.ts'
import type { ClassLookup } from './class.ts'
import type { AclEvaluator } from '../auth/acl.ts'
import type { DataPort } from '../port/port.ts'
import type { Identifiers } from '../core/identifiers.ts'

export interface ResourceServices {
  /** The data port (issue 22): the tree's writes run as its units of work. */
  data: DataPort
  /** `LinkedNeeds`: the effective permissions of a layer whose data needs a permission elsewhere. */
  classes: ClassLookup & LinkedNeeds
  acl: AclEvaluator
  platform: { now(): Date; log(message: string, err?: unknown): void }
  /** How answers spell class names (the spec's or the original's). */
  names: Identifiers
}

export interface ResourceVariables {
  services: ResourceServices
  user: Principal
}
