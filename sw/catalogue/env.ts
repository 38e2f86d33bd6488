/**
 * @module catalogue/env
 * The catalogue's context: who asks, and the services it uses.
 */
import type { ApiError } from '../core/error.ts'
import type { Principal } from '../auth/types.ts'
import type { EpsgSource } from '../geo/srs.ts'
import type { Catalogue } from './service.ts'

export interface CatalogueServices {
  /** The app's catalogue, opened on first use. */
  catalogue(): Promise<Catalogue>
  platform: { epsg: EpsgSource }
}

export interface CatalogueVariables {
  services: CatalogueServices
  user: Principal
  authError: ApiError | undefined
}
