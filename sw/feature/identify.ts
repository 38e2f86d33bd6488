/**
 * @module feature/identify
 * `feature_layer.identify` (spec §4.11, reference §10): the features of several layers that
 * intersect a geometry, found through each layer's spatial index (R*Tree, then the exact
 * test), at most 100 per layer, labelled by the layer's label field.
 */
import type { Services } from '../services.ts'
import type { Principal } from '../auth/types.ts'
import { getClass } from '../classes/registry.ts'
import { permissionsOf } from '../resource/permissions.ts'
import { parseWkt, toWkt } from '../geo/wkt.ts'
import { reproject } from '../geo/reproject.ts'
import type { Geometry } from '../geo/geometry.ts'
import { openFeatureLayer, resourceHeads } from './capability.ts'
import { dumpOptions, selection } from './query.ts'
import { listFeatures } from './service.ts'
import { validationError } from '../core/error.ts'

/** Features per layer at most (the original's limit: the answer must stay small). */
export const IDENTIFY_LIMIT = 100

export interface IdentifyRequest {
  /** WKT in `srs`. */
  geom: string
  srs: number
  layers: number[]
}

export interface IdentifiedFeature {
  id: number
  layerId: number
  label: string
  fields: Record<string, unknown>
  parent?: string
}

export type IdentifyResult = Record<string, { features: IdentifiedFeature[]; featureCount: number } | { error: string } | number>

/** Identifies; throws 422 for a geometry that cannot be read or projected. */
export async function identify(services: Services, user: Principal, req: IdentifyRequest): Promise<IdentifyResult> {
  let geom: Geometry
  try {
    geom = parseWkt(req.geom)
  } catch {
    throw validationError('Geometry is not valid.')
  }
  const heads = (await resourceHeads(services, req.layers)).sort((a, b) => a.id - b.id)
  const parentIds = heads.map((h) => h.parentId).filter((p): p is number => p !== null)
  const parents = new Map((await resourceHeads(services, parentIds)).map((p) => [p.id, p]))
  const out: IdentifyResult = {}
  let total = 0
  for (const head of heads) {
    const key = String(head.id)
    const perms = permissionsOf(user, head.cls)
    if (getClass(head.cls).scopes.includes('data') && !perms.data?.read) {
      out[key] = { error: 'Forbidden' }
      continue
    }
    if (!head.isFeatureLayer) {
      out[key] = { error: 'Not implemented' }
      continue
    }
    const { meta, layer } = await openFeatureLayer(services, head.id)
    let g = geom
    try {
      if (req.srs !== meta.srs) g = reproject(geom, req.srs, meta.srs)
    } catch {
      throw validationError(`Failed to project the geometry from EPSG:${req.srs} to EPSG:${meta.srs}.`)
    }
    // The listing's own filter (R*Tree + exact intersects) and dumper, in `dt_format=iso`.
    const params = new URLSearchParams({ intersects: toWkt(g), dt_format: 'iso', geom: 'no', extensions: '', label: 'true' })
    const sel = selection(params, meta)
    const opts = dumpOptions(params, meta)
    const rows = await layer.db.read((db) => listFeatures(db, layer, meta, opts, { sel, limit: IDENTIFY_LIMIT }))
    const parent = head.parentId === null ? undefined : parents.get(head.parentId)
    const parentName = parent && permissionsOf(user, parent.cls).resource?.read ? parent.displayName : undefined
    const features = rows.map((r) => {
      const f: IdentifiedFeature = { id: r.id as number, layerId: head.id, label: r.label as string, fields: r.fields as Record<string, unknown> }
      if (parentName !== undefined) f.parent = parentName
      return f
    })
    out[key] = { features, featureCount: features.length }
    total += features.length
  }
  out.featureCount = total
  return out
}
