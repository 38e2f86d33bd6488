/**
 * @module feature/capability
 * How the data-out components (export, vector tiles, identify) reach a feature layer: by the
 * capability its class provides in the registry, never by class name, so any class that
 * provides features is served.
 */
import type { Platform } from '../platform/platform.ts'
import type { Principal } from '../auth/types.ts'
import type { Database } from '../store/database.ts'
import type { AclEvaluator } from '../auth/acl.ts'
import type { ClassLookup } from '../resource/class.ts'
import { resourceNotFound } from '../resource/errors.ts'
import { validationError } from '../core/error.ts'
import type { FeatureLayer, FeatureLayers } from './types.ts'

/** What the data-out components use of the app's services. */
export interface DataOutServices {
  platform: Platform
  main: Database
  /** Who may read which layer (identify leaves out the others). */
  acl: AclEvaluator
  classes: ClassLookup & FeatureLayers & { featureLayerOf(cls: string): unknown }
}

export interface DataOutVariables {
  services: DataOutServices
  user: Principal
  /** When the app began the request (`performance.now()`). */
  started?: number
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

/** Heads read at one version of the main database (a tile request reads them every time). */
const HEADS = new WeakMap<DataOutServices, { version: number; heads: Map<number, ResourceHead | null> }>()

/** The heads of the resources `ids` that exist, in the order of `ids` (missing ones left out). */
export async function resourceHeads(services: DataOutServices, ids: readonly number[]): Promise<ResourceHead[]> {
  const unique = [...new Set(ids)]
  const { main } = services
  let cache = HEADS.get(services)
  if (!cache || cache.version !== main.version) HEADS.set(services, cache = { version: main.version, heads: new Map() })
  const known = cache.heads
  const version = cache.version
  const missing = unique.filter((id) => !known.has(id))
  const read = new Map<number, ResourceHead | null>()
  if (missing.length) {
    const rows = await main.read((db) => db.selectObjects(
      `SELECT r.id, r.cls, r.display_name, r.parent_id FROM resource r WHERE r.id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(missing)])) as { id: number; cls: string; display_name: string; parent_id: number | null }[]
    const byId = new Map(rows.map((r) => [r.id, r]))
    for (const id of missing) {
      const r = byId.get(id)
      read.set(id, r ? { id, cls: r.cls, displayName: r.display_name, parentId: r.parent_id,
        isFeatureLayer: !!services.classes.featureLayerOf(r.cls) } : null)
    }
    // Kept only if no write landed in between (the read queued behind it otherwise).
    if (main.version === version) for (const [id, h] of read) known.set(id, h)
  }
  return unique.flatMap((id) => { const h = read.get(id) ?? known.get(id); return h ? [h] : [] })
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
