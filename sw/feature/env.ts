/**
 * @module feature/env
 * The feature component's context: who asks, and the services it uses. Layers are found
 * through `classes` (the registry's capability lookup), whatever class provides them.
 */
import type { Principal } from '../auth/types.ts'
import type { Platform } from '../platform/platform.ts'
import type { DataPort } from '../port/port.ts'
import type { UploadServices } from '../upload/env.ts'
import type { FeatureLayers } from './types.ts'

export interface FeatureServices extends UploadServices {
  platform: Platform
  /** The main data (a version's author, read through the auth component's service). */
  data: DataPort
  classes: FeatureLayers
}

export interface FeatureVariables {
  services: FeatureServices
  user: Principal
}
