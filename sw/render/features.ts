/**
 * @module render/features
 * Features for drawing, from whatever class provides the feature-layer capability: the
 * layer's spatial-index query by box (`inBox`, geometries as stored), only the fields the
 * style reads; a layer without that fast path is read through `list` with an `intersects`
 * filter.
 */
import type { RenderServices } from './env.ts'
import type { Bbox, Geometry } from '../geo/geometry.ts'
import { encodeGpkg } from '../geo/gpkg.ts'
import type { Field, FieldValue } from '../feature/types.ts'
import type { FeatureRow } from './draw-vector.ts'
import type { Value } from './expression.ts'
import { notRenderable } from './errors.ts'

export interface FeatureSource {
  /** Changes whenever the layer's features or fields may have changed. */
  version: string
  srs: number
  /** Rows whose bbox meets `bbox` (in the layer's SRS), with the values of `fields` (keynames) in that order. */
  query(bbox: Bbox, fields: string[], signal?: AbortSignal): Promise<FeatureRow[]>
}

/** Values as expressions read them: big integers as numbers, blobs as nothing. */
const toValue = (v: FieldValue): Value => (typeof v === 'bigint' ? Number(v) : v instanceof Uint8Array ? null : v)

const boxPolygon = (b: Bbox): Geometry => ({ type: 'Polygon',
  coordinates: [[[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]], [b[0], b[1]]]] })

/** The features of layer `layerId`; 422 (cannot be rendered) when it is not a feature layer. */
export async function featureSource(services: RenderServices, layerId: number, styleId: number): Promise<FeatureSource> {
  const layer = await services.classes.featureLayer(layerId)
  if (!layer) throw notRenderable(styleId)
  const { meta } = layer
  const byKey = new Map(meta.fields.map((f) => [f.keyname, f]))
  const keys = meta.fields.map((f) => `${f.id}=${f.keyname}`).join(',')
  return {
    // A layer class without a version is never served from the tile cache.
    version: layer.token === undefined ? `uncached:${Math.random()}` : `${layer.token()}:${keys}`,
    srs: meta.srs,
    query: (bbox, wanted, signal) => layer.read(async (tx) => {
      signal?.throwIfAborted()
      const fields = wanted.map((k) => byKey.get(k)).filter((f): f is Field => !!f)
      // Unknown keynames read as NULL, as a style written for another layer would see them.
      const slot = wanted.map((k) => fields.findIndex((f) => f.keyname === k))
      const pick = (values: FieldValue[]) => slot.map((i) => (i < 0 ? null : toValue(values[i]!)))
      if (tx.inBox) return (await tx.inBox(bbox, fields)).map((r) => ({ fid: r.fid, geom: r.geom, values: pick(r.values) }))
      return (await tx.list({ filter: { conditions: [], intersects: boxPolygon(bbox), filtered: true } },
        { geom: true, fields, label: false, description: false }))
        .filter((r) => r.geom)
        .map((r) => ({ fid: r.fid, geom: encodeGpkg(r.geom!, meta.srs), values: pick(r.values) }))
    }),
  }
}
