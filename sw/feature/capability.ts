/**
 * @module feature/capability
 * How the data-out components (export, vector tiles, identify) reach a feature layer: by the
 * capability its class provides in the registry, never by class name, so any class that
 * provides features is served.
 */
import type { Platform } from '../platform/platform.ts'
import type { LinkedNeeds, Principal } from '../auth/types.ts'
import type { DataPort, PendingRefresh } from '../port/port.ts'
import type { AclEvaluator } from '../auth/acl.ts'
import type { ClassLookup } from '../resource/class.ts'
import type { ResourceRefs } from '../resource/types.ts'
import { resourceNotFound } from '../resource/errors.ts'
import { validationError } from '../core/error.ts'
import type { Identifiers } from '../core/identifiers.ts'
import type { RequestMarks } from '../core/routes.ts'
import type { FeatureLayer, FeatureLayers, GpkgFiles } from './types.ts'

/** What the data-out components use of the app's services. */
export interface DataOutServices {
  platform: Platform
  data: DataPort
  /** Who may read which layer (identify leaves out the others). */
  acl: AclEvaluator
  /** `LinkedNeeds`: what reading a layer's data needs elsewhere (auth/checkpoint). */
  classes: ClassLookup & FeatureLayers & ResourceRefs & LinkedNeeds & { featureLayerOf(cls: string): unknown }
  /** The GeoPackage file writer (exports). */
  gpkgFiles: GpkgFiles
  /** How answers spell names (MVT layers: `svc:<id>` or the original's `ngw:<id>`). */
  names: Identifiers
}

export interface DataOutVariables {
  services: DataOutServices
  user: Principal
  /** When the app began the request (`performance.now()`). */
  started?: number
  /** When the app had read the change tokens and authenticated the request. */
  marks?: RequestMarks
  /** Set when the route carries the request's refresh of the change tokens (`RouteOptions.carriesRefresh`). */
  pendingRefresh?: PendingRefresh
}

/** A resource asked for as a feature layer whose class is none (reference §9: 422). */
export const notFeatureLayer = (id: number) =>
  validationError(`Resource (ID=${id}) is not a feature layer.`, { resource_id: id })

/** A resource as the data-out components see it. */
export interface ResourceHead {
  id: number
  cls: string
  displayName: string
  parentId: number | null
  /** Whether its class provides the feature-layer capability. */
  isFeatureLayer: boolean
}

/** The heads of the resources `ids` that exist, in the order of `ids` (missing ones and repeats left out). */
export async function resourceHeads(services: DataOutServices, ids: readonly number[]): Promise<ResourceHead[]> {
  // The registry reads what it has not cached in one query and keeps it until the main database changes.
  const refs = await services.classes.refs([...new Set(ids)])
  return refs.flatMap((r) => (r ? [{ id: r.id, cls: r.cls, displayName: r.displayName, parentId: r.parentId,
    isFeatureLayer: !!services.classes.featureLayerOf(r.cls) }] : []))
}

/** The feature layer of resource `id`: 404 when it is missing, 422 when it is no feature layer. */
export async function requireFeatureLayer(services: DataOutServices, id: number): Promise<{ head: ResourceHead; layer: FeatureLayer }> {
  const [head] = await resourceHeads(services, [id])
  if (!head) throw resourceNotFound(id)
  if (!head.isFeatureLayer) throw notFeatureLayer(id)
  const layer = await services.classes.featureLayer(id)
  if (!layer) throw resourceNotFound(id)
  return { head, layer }
}
