/**
 * @module spatialdb/env
 * What the spatialdb component's routes read per request.
 */
import type { LinkedNeeds, Principal } from '../auth/types.ts'
import type { AclEvaluator } from '../auth/acl.ts'
import type { DataPort } from '../port/port.ts'
import type { SpatialDbPort } from '../port/spatialdb.ts'
import type { ResourceRefs } from '../resource/types.ts'
import type { SpatialDbSources } from './types.ts'

export interface SpatialDbServices {
  data: DataPort
  acl: AclEvaluator
  classes: SpatialDbSources & ResourceRefs & LinkedNeeds
  /** Absent in the service worker. */
  spatialDb?: SpatialDbPort
}

export interface SpatialDbVariables {
  services: SpatialDbServices
  user: Principal
}
