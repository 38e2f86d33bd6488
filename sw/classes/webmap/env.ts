/**
 * @module classes/webmap/env
 * What the web map's routes read per request: the data port, the one evaluator, and the class
 * registry's lookups (refs, classes, layers and their extents, linked needs).
 */
import type { AclEvaluator } from '../../auth/acl.ts'
import type { LinkedNeeds, Principal } from '../../auth/types.ts'
import type { FeatureLayers } from '../../feature/types.ts'
import type { DataPort } from '../../port/port.ts'
import type { ClassLookup } from '../../resource/class.ts'
import type { ResourceRefs } from '../../resource/types.ts'

export interface WebMapServices {
  data: DataPort
  acl: AclEvaluator
  classes: ClassLookup & ResourceRefs & LinkedNeeds & Required<FeatureLayers>
}

export interface WebMapVariables {
  services: WebMapServices
  user: Principal
}
