/**
 * @module feature/identify
 * `feature_layer.identify` (spec §4.11, reference §10): the features of several layers that
 * intersect a geometry, read through each layer's feature-layer capability (a vector layer
 * answers from its R*Tree, then the exact test), at most 100 per layer, labelled by the
 * layer's label field.
 */
/** Whether the request's user has `scope.permission` on resource `id` (auth/acl.ts). */
export type May = (id: number, scope: string, permission: string) => Promise<boolean>
import { parseWkt } from '../geo/wkt.ts'
import { reproject } from '../geo/reproject.ts'
import { loadProjection } from '../geo/srs.ts'
import type { Geometry } from '../geo/geometry.ts'
import { validationError } from '../core/error.ts'
import { resourceHeads, type DataOutServices } from './capability.ts'
import { featureJson, rowShape } from './serialize.ts'
import { dumpOptions } from './query.ts'

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
export async function identify(services: DataOutServices, may: May, req: IdentifyRequest): Promise<IdentifyResult> {
  let geom: Geometry
  try {
    geom = parseWkt(req.geom)
  } catch {
    throw validationError('Geometry is not valid.')
  }
  const { classes, platform } = services
  const heads = (await resourceHeads(services, req.layers)).sort((a, b) => a.id - b.id)
  const parents = new Map((await resourceHeads(services, heads.flatMap((h) => (h.parentId === null ? [] : [h.parentId]))))
    .map((p) => [p.id, p]))
  const out: IdentifyResult = {}
  let total = 0
  for (const head of heads) {
    const key = String(head.id)
    const scopes = classes.find(head.cls)?.scopes ?? []
    if (scopes.includes('data') && !await may(head.id, 'data', 'read')) {
      out[key] = { error: 'Forbidden' }
      continue
    }
    const layer = head.isFeatureLayer ? await classes.featureLayer(head.id) : undefined
    if (!layer) {
      out[key] = { error: 'Not implemented' }
      continue
    }
    const { meta } = layer
    let g = geom
    if (req.srs !== meta.srs) {
      await loadProjection(meta.srs, platform.epsg)
      try {
        g = reproject(geom, req.srs, meta.srs)
      } catch {
        throw validationError(`Failed to project the geometry from EPSG:${req.srs} to EPSG:${meta.srs}.`)
      }
    }
    // The listing's own dumper, in `dt_format=iso`: dates as ISO strings, as the original's raw values.
    const opts = await dumpOptions(new URLSearchParams({ dt_format: 'iso', geom: 'no', extensions: '', label: 'true' }), meta, platform.epsg)
    const rows = await layer.read((tx) => tx.list({ filter: { conditions: [], intersects: g, filtered: true }, limit: IDENTIFY_LIMIT },
      rowShape(opts)))
    const parent = head.parentId === null ? undefined : parents.get(head.parentId)
    const parentName = parent && await may(parent.id, 'resource', 'read') ? parent.displayName : undefined
    const features = rows.map((r) => {
      const j = featureJson(r, meta, opts, undefined)
      const f: IdentifiedFeature = { id: r.fid, layerId: head.id, label: j.label as string, fields: j.fields as Record<string, unknown> }
      if (parentName !== undefined) f.parent = parentName
      return f
    })
    out[key] = { features, featureCount: features.length }
    total += features.length
  }
  out.featureCount = total
  return out
}
