/**
 * @module render/env
 * The render component's context: who asks, and the services it draws with. Styles and
 * the layers they draw are found through `classes` (the registry's capabilities).
 */
import type { Principal } from '../auth/types.ts'
import type { AclEvaluator } from '../auth/acl.ts'
import type { Platform } from '../platform/platform.ts'
import type { RenderClasses } from './types.ts'
import type { DataPort } from '../port/port.ts'

export interface RenderServices {
  platform: Platform
  /** The data port: permission checks read through it. */
  data: DataPort
  classes: RenderClasses
  /** Who may read what: the one evaluator (auth/acl.ts). */
  acl: AclEvaluator
}

export interface RenderVariables {
  services: RenderServices
  user: Principal
}
