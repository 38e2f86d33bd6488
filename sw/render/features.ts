/**
 * @module render/features
 * Features for drawing: the layer's R*Tree bbox query through the feature layer's
 * database, reading the geometry blob and only the fields the style needs.
 */
import type { Services } from '../services.ts'
import { layersOf } from '../feature/layers.ts'
import { columnOf, FEATURE_TABLE, RTREE_TABLE } from '../feature/schema.ts'
import type { Bbox } from '../geo/geometry.ts'
import type { FeatureRow } from './draw-vector.ts'
import type { Value } from './expression.ts'

export interface FeatureSource {
  /** A number that changes whenever the layer's features or fields may have changed. */
  version: string
  srs: number
  /** Rows whose bbox meets `bbox` (in the layer's SRS), with `fields` in that order. */
  query(bbox: Bbox, fields: string[], signal?: AbortSignal): Promise<FeatureRow[]>
}

/** The features of feature layer `layerId`. */
export async function featureSource(services: Services, layerId: number): Promise<FeatureSource> {
  const reg = layersOf(services)
  const meta = await reg.meta(layerId)
  const layer = await reg.open(meta)
  const byKey = new Map(meta.fields.map((f) => [f.keyname, f]))
  return {
    version: `${layer.db.version}:${layer.signature}`,
    srs: meta.srs,
    query: (bbox, fields, signal) => layer.db.read((db) => {
      signal?.throwIfAborted()
      // Unknown keynames read as NULL, as a style written for another layer would see them.
      const cols = fields.map((k) => (byKey.has(k) ? `f.${columnOf(byKey.get(k)!.id)}` : 'NULL'))
      const sql = `SELECT f.fid, f.geom${cols.map((c) => `, ${c}`).join('')} FROM ${RTREE_TABLE} r
        JOIN ${FEATURE_TABLE} f ON f.fid = r.id
        WHERE r.minx <= ? AND r.maxx >= ? AND r.miny <= ? AND r.maxy >= ? AND f.geom IS NOT NULL ORDER BY f.fid`
      const out: FeatureRow[] = []
      db.exec({ sql, bind: [bbox[2], bbox[0], bbox[3], bbox[1]], rowMode: 'array',
        callback: (r: unknown) => {
          const a = r as Value[] & [number, Uint8Array]
          out.push({ fid: Number(a[0]), geom: a[1], values: a.slice(2) as Value[] })
        } })
      return out
    }),
  }
}
