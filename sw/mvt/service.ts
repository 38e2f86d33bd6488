/**
 * @module mvt/service
 * Vector tiles of feature layers (spec §4.9, reference §9), cut per request from each
 * layer's R*Tree and cached per layer and tile. One MVT layer `svc:<resource id>` per
 * resource, feature id = feature id, attributes by keyname.
 */
import type { Services } from '../services.ts'
import type { Bbox } from '../geo/geometry.ts'
import { reprojectBbox } from '../geo/reproject.ts'
import { padBbox, tileBbox } from '../geo/tile.ts'
import { columnOf, FEATURE_TABLE, RTREE_TABLE, type LayerMeta } from '../feature/schema.ts'
import { rowValue, VALUE_KIND, type RowValue } from '../feature/row-values.ts'
import { RowReader } from '../store/row-reader.ts'
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { openFeatureLayer } from '../feature/capability.ts'
import type { SqlDb } from '../store/database.ts'
import { concatBytes } from '../core/bytes.ts'
import { TileCache } from './cache.ts'
import { cutShape } from './cut.ts'
import { LayerEncoder } from './encode.ts'
import { readPoint, readShape, tileProjection } from './shape.ts'
import { countInBox, GRID, THIN_ABOVE, thinnedIds, type RtreeNodes } from './select.ts'

/** MVT layer names: the spec's fixed prefix and the resource id. */
export const LAYER_PREFIX = 'svc:'

export interface TileOptions {
  /** Tile coordinate range. @default 4096 */
  extent: number
  /** Fraction of the tile added on each side before clipping. @default 0.05 */
  padding: number
  /** Simplification tolerance in tile units (0 = none). @default extent / 512 */
  simplification: number
}

export interface TileAddress { z: number; x: number; y: number }

const CACHES = new WeakMap<Services, TileCache>()

/** The tile cache of an app. */
export function tileCacheOf(services: Services): TileCache {
  let c = CACHES.get(services)
  if (!c) CACHES.set(services, c = new TileCache())
  return c
}

const signatureOf = (meta: LayerMeta) =>
  JSON.stringify([meta.srs, meta.fields.map((f) => [f.id, f.keyname, f.datatype])])

/**
 * The encoded MVT layer of one feature layer for tile `t` (empty when no feature is in it),
 * from the cache when it is current.
 */
export async function layerTile(services: Services, resourceId: number, t: TileAddress, opts: TileOptions): Promise<Uint8Array> {
  const { meta, layer } = await openFeatureLayer(services, resourceId)
  const cache = tileCacheOf(services)
  const key = `${resourceId}/${t.z}/${t.x}/${t.y}/${opts.extent}/${opts.padding}/${opts.simplification}`
  const signature = signatureOf(meta)
  if (cache.isCurrent(resourceId, layer.db.version, signature)) {
    const hit = cache.get(key)
    if (hit) return hit
  }
  return layer.db.read((db) => {
    const nodes = cache.sync(resourceId, RTREE_TABLE, db, layer.db.version, signature, meta.srs)
    const hit = cache.get(key)
    if (hit) return hit
    const box3857 = padBbox(tileBbox(t.z, t.x, t.y), opts.padding)
    const bytes = cutLayer(layer.db.sqlite, db, meta, nodes, t, opts)
    cache.set(key, resourceId, box3857, bytes)
    return bytes
  })
}

/** The attribute columns of a layer's feature table, in field order. */
const selectColumns = (meta: LayerMeta) => ['f.fid', 'f.geom', ...meta.fields.map((f) => `f.${columnOf(f.id)}`)].join(', ')

/** Cuts the tile of one layer (inside a read of its database). */
export function cutLayer(sqlite: Sqlite3Static, db: SqlDb, meta: LayerMeta, nodes: RtreeNodes, t: TileAddress, opts: TileOptions): Uint8Array {
  const tile = tileBbox(t.z, t.x, t.y)
  const padded = padBbox(tile, opts.padding)
  const box: Bbox = meta.srs === 3857 ? padded : reprojectBbox(padded, 3857, meta.srs)
  const count = countInBox(db, RTREE_TABLE, box)
  const encoder = new LayerEncoder(`${LAYER_PREFIX}${meta.resourceId}`, opts.extent,
    meta.fields.map((f) => f.keyname), meta.fields.map((f) => VALUE_KIND[f.datatype]))
  if (count === 0) return encoder.finish()
  let sql: string
  let bind: (number | string)[]
  if (count <= THIN_ABOVE) {
    // The R*Tree drives the join: only the features in the box are read.
    sql = `SELECT ${selectColumns(meta)} FROM "${RTREE_TABLE}" r CROSS JOIN ${FEATURE_TABLE} f ON f.fid = r.id
      WHERE r.minx <= ? AND r.maxx >= ? AND r.miny <= ? AND r.maxy >= ?`
    bind = [box[2], box[0], box[3], box[1]]
  } else {
    const ids = thinnedIds(db, nodes, box, (box[2] - box[0]) / (GRID * (1 + 2 * opts.padding)))
    sql = `SELECT ${selectColumns(meta)} FROM ${FEATURE_TABLE} f WHERE f.fid IN (SELECT value FROM json_each(?))`
    bind = [JSON.stringify(ids)]
  }
  const project = tileProjection(meta.srs, tile, opts.extent)
  const pad = opts.extent * opts.padding
  const clip: Bbox = [-pad, -pad, opts.extent + pad, opts.extent + pad]
  const types = meta.fields.map((f) => f.datatype)
  const values: RowValue[] = new Array(types.length)
  const at: [number, number] = [0, 0]
  const r = new RowReader(sqlite, db, sql, bind)
  try {
    while (r.step()) {
      const blob = r.blobView(1)
      if (!blob) continue
      if (readPoint(blob, project, at)) {
        // Points, the bulk of big layers: no shape object, no clipping arrays.
        if (at[0] < clip[0] || at[1] < clip[1] || at[0] > clip[2] || at[1] > clip[3]) continue
        for (let i = 0; i < types.length; i++) values[i] = rowValue(r, i + 2, types[i]!)
        encoder.addPoint(r.number(0), Math.round(at[0]), Math.round(at[1]), values)
        continue
      }
      const shape = readShape(blob, project)
      const cut = shape && cutShape(shape, clip, opts.simplification)
      if (!cut) continue
      for (let i = 0; i < types.length; i++) values[i] = rowValue(r, i + 2, types[i]!)
      encoder.add(r.number(0), cut, values)
    }
  } finally {
    r.finalize()
  }
  return encoder.finish()
}

/**
 * The tile of several layers, bottom first: the concatenation of their MVT layers, or
 * `null` when none has a feature in it.
 */
export async function renderTile(services: Services, resourceIds: readonly number[], t: TileAddress,
  opts: TileOptions): Promise<Uint8Array | null> {
  const parts = await Promise.all(resourceIds.map((id) => layerTile(services, id, t, opts)))
  const out = concatBytes(parts)
  return out.length ? out : null
}
