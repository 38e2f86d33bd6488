/**
 * @module mvt/service
 * Vector tiles of feature layers (spec §4.9, reference §9), cut per request from each
 * layer's R*Tree and cached per layer and tile. One MVT layer `svc:<resource id>` (the
 * original's `ngw:<resource id>` when the app answers with its names) per resource, feature
 * id = feature id, attributes by keyname.
 */
import type { Bbox, Geometry } from '../geo/geometry.ts'
import { reprojectBbox } from '../geo/reproject.ts'
import { padBbox, tileBbox } from '../geo/tile.ts'
import type { FeatureLayer, LayerMeta } from '../feature/types.ts'
import type { GpkgTables } from '../feature/types.ts'
import type { DataOutServices } from '../feature/capability.ts'
import type { PendingRefresh } from '../port/port.ts'
import { canonicalValue, rowValue, VALUE_KIND, type RowValue } from '../feature/row-values.ts'
import { concatBytes } from '../core/bytes.ts'
import { indexBudget, TileCache } from './cache.ts'
import { cutShape } from './cut.ts'
import { LayerEncoder } from './encode.ts'
import { readPoint, readShape, shapeOf, tileProjection, tinyInTile } from './shape.ts'
import { GRID, mayHoldMore, THIN_ABOVE, thinnedIds, type RtreeNodes } from './select.ts'
import { IndexBuilder, type TileFrame } from './tile-index.ts'

/** MVT layer names: the spec's fixed prefix and the resource id, unless `TileOptions.layerPrefix` says otherwise. */
export const LAYER_PREFIX = 'svc:'

export interface TileOptions {
  /** Tile coordinate range. @default 4096 */
  extent: number
  /** Fraction of the tile added on each side before clipping. @default 0.05 */
  padding: number
  /** Simplification tolerance in tile units (0 = none). @default extent / 512 */
  simplification: number
  /**
   * The prefix of each layer's name: the app's (core/identifiers: `svc:`, or the original's
   * `ngw:`, by which ngw-kit finds its layer). One per app, as the tile cache is. @default LAYER_PREFIX
   */
  layerPrefix?: string
}

export interface TileAddress { z: number; x: number; y: number }

const CACHES = new WeakMap<object, TileCache>()

/** The tile cache of an app (one per services object), with its host's budget for tile indexes. */
export function tileCacheOf(services: { platform: { host: 'service-worker' | 'node' } }): TileCache {
  let c = CACHES.get(services)
  if (!c) CACHES.set(services, c = new TileCache(undefined, indexBudget(services.platform.host)))
  return c
}

const signatureOf = (meta: LayerMeta) =>
  JSON.stringify([meta.srs, meta.fields.map((f) => [f.id, f.keyname, f.datatype])])

const layerName = (id: number, opts: TileOptions) => `${opts.layerPrefix ?? LAYER_PREFIX}${id}`

const emptyLayer = (meta: LayerMeta, opts: TileOptions) => new LayerEncoder(layerName(meta.resourceId, opts), opts.extent,
  meta.fields.map((f) => f.keyname), meta.fields.map((f) => VALUE_KIND[f.datatype]))

/** An encoded MVT layer, whether it came from the tile cache, and from where; `ms`: an engine's cut, its time. */
export interface LayerTile { bytes: Uint8Array; cached: boolean; source: TileSource; ms?: number }

/**
 * Where a layer's tile came from: the tile cache, the layer's tile index, its R*Tree (while
 * the index is being built: `indexing`), its engine (`FeatureLayer.tile`: PostGIS's
 * `ST_AsMVT`), or the generic feature reads.
 */
export type TileSource = 'cache' | 'index' | 'rtree' | 'indexing' | 'engine' | 'generic'

/**
 * The encoded MVT layer of one feature layer for tile `t` (empty when no feature is in it).
 * Layers with GeoPackage storage are cut from their tile index (mvt/tile-index.ts) or, until
 * it is built and for thinned tiles, from their R*Tree, and cached; others come from their
 * engine when it cuts tiles (`FeatureLayer.tile`: a PostGIS layer's one `ST_AsMVT` statement)
 * or are read through the generic feature reads, cached while the layer's change token stays
 * (no token: uncached).
 */
export async function layerTile(services: DataOutServices, layer: FeatureLayer, t: TileAddress, opts: TileOptions,
  pending?: PendingRefresh): Promise<LayerTile> {
  const { meta, gpkg } = layer
  const id = meta.resourceId
  const cache = tileCacheOf(services)
  const key = `${id}/${t.z}/${t.x}/${t.y}/${opts.extent}/${opts.padding}/${opts.simplification}`
  const box = padBbox(tileBbox(t.z, t.x, t.y), opts.padding)
  const signature = signatureOf(meta)
  if (pending && !pending.done) {
    // The request put off reading the change tokens: only an engine's statement carries the
    // read, and only for a tile the cache may not hold (a cached one needs no statement).
    const cachedMaybe = cache.isCurrent(id, layer.token?.() ?? '', signature) && cache.get(key)
    if (gpkg || !layer.tile || cachedMaybe) await pending.run()
  }
  if (!gpkg) return genericLayerTile(cache, layer, t, opts, key, box, signature, pending)
  const fromIndex = () => cache.index(id)?.cut(layerName(id, opts), opts.extent, indexFrame(t, opts), THIN_ABOVE)
  if (cache.isCurrent(id, gpkg.token(), signature)) {
    const hit = cache.get(key)
    if (hit) return { bytes: hit, cached: true, source: 'cache' }
    // Current, as a cached tile is: the layer's tile index needs no read of the database.
    const bytes = fromIndex()
    if (bytes) {
      cache.set(key, id, box, bytes)
      return { bytes, cached: false, source: 'index' }
    }
  }
  const out = await gpkg.read((tables): LayerTile => {
    const nodes = cache.sync(id, tables, gpkg.token(), signature, meta.srs)
    const hit = cache.get(key)
    if (hit) return { bytes: hit, cached: true, source: 'cache' }
    const indexed = fromIndex()
    const bytes = indexed ?? cutLayer(tables, meta, nodes, t, opts)
    cache.set(key, id, box, bytes)
    return { bytes, cached: false, source: indexed ? 'index' : cache.indexing(id) ? 'indexing' : 'rtree' }
  })
  if (cache.wantsIndex(id)) {
    void buildIndex(cache, layer, services.platform.log)
    if (out.source === 'rtree') out.source = 'indexing'
  }
  return out
}

/**
 * Reads a layer into its tile index (mvt/tile-index.ts) in slices between requests; tiles are
 * cut from the R*Tree until it is ready. A failed build is logged and leaves the layer on
 * the R*Tree (until its database is reopened).
 */
/** A tile of a layer without GeoPackage storage, cached on its change token when it has one. */
async function genericLayerTile(cache: TileCache, layer: FeatureLayer, t: TileAddress, opts: TileOptions, key: string, box: Bbox,
  signature: string, pending?: PendingRefresh): Promise<LayerTile> {
  const source = layer.tile ? 'engine' : 'generic'
  const cut = async () => {
    if (!layer.tile) return genericTile(layer, t, opts)
    const bytes = await layer.tile(t, { extent: opts.extent, padding: opts.padding, simplification: opts.simplification,
      layerName: layerName(layer.meta.resourceId, opts), thinAbove: THIN_ABOVE, grid: GRID }, pending)
    // An engine of another port leaves the read to us: before the tile is answered (or kept) at all.
    await pending?.run()
    return bytes
  }
  const timed = async (): Promise<LayerTile> => {
    const t0 = performance.now()
    const bytes = await cut()
    return { bytes, cached: false, source, ms: performance.now() - t0 }
  }
  const token = layer.token?.()
  if (token === undefined) return timed()
  // Put off: the tile is cut first (the cache holds nothing for it), and kept only if the read it carried moved no token.
  if (pending && !pending.done) {
    const out = await timed()
    if (layer.token!() === token) {
      cache.syncToken(layer.meta.resourceId, token, signature)
      cache.set(key, layer.meta.resourceId, box, out.bytes)
    }
    return out
  }
  cache.syncToken(layer.meta.resourceId, token, signature)
  const hit = cache.get(key)
  if (hit) return { bytes: hit, cached: true, source: 'cache' }
  const out = await timed()
  // A write of this process during the read moved the token: what was read may predate it, so it is not kept.
  if (layer.token!() === token) cache.set(key, layer.meta.resourceId, box, out.bytes)
  return out
}

async function buildIndex(cache: TileCache, layer: FeatureLayer, log: (message: string, err?: unknown) => void): Promise<void> {
  const id = layer.meta.resourceId
  const builder = new IndexBuilder(layer.meta, cache.indexBudget)
  cache.startIndex(id, builder)
  try {
    for (;;) {
      const index = await layer.gpkg!.read((t) => cache.isBuilding(id, builder) ? builder.step(t) : null)
      if (index !== undefined) { cache.finishIndex(id, builder, index ?? undefined); return }
      // Requests waiting meanwhile go first.
      await new Promise((resolve) => setTimeout(resolve, 0))
    }
  } catch (err) {
    log(`Building the tile index of layer ${id} failed`, err)
    cache.finishIndex(id, builder, undefined)
  }
}

/** The padded tile in the layer's SRS, and the clip box and projection in tile units. */
function tileFrame(meta: LayerMeta, t: TileAddress, opts: TileOptions) {
  const tile = tileBbox(t.z, t.x, t.y)
  const padded = padBbox(tile, opts.padding)
  const pad = opts.extent * opts.padding
  return { box: (meta.srs === 3857 ? padded : reprojectBbox(padded, 3857, meta.srs)) as Bbox,
    clip: [-pad, -pad, opts.extent + pad, opts.extent + pad] as Bbox, project: tileProjection(meta.srs, tile, opts.extent) }
}

/** The padded tile (EPSG:3857), its clip box, origin and scale, as a tile index cuts it. */
function indexFrame(t: TileAddress, opts: TileOptions): TileFrame {
  const tile = tileBbox(t.z, t.x, t.y)
  const pad = opts.extent * opts.padding
  const box = padBbox(tile, opts.padding)
  return { box, clip: [-pad, -pad, opts.extent + pad, opts.extent + pad], cell: (box[2] - box[0]) / (GRID * (1 + 2 * opts.padding)),
    x0: tile[0], y0: tile[3], k: opts.extent / (tile[2] - tile[0]), tolerance: opts.simplification }
}

/** Cuts the tile of one layer from its GeoPackage tables (inside a read of its database). */
export function cutLayer(tables: GpkgTables, meta: LayerMeta, nodes: RtreeNodes, t: TileAddress, opts: TileOptions): Uint8Array {
  const { box, clip, project } = tileFrame(meta, t, opts)
  // Most tiles hold few features: the inner R*Tree nodes tell so without a counting query.
  const full = mayHoldMore(tables, nodes, box, THIN_ABOVE) && tables.countInBox(box) > THIN_ABOVE
  const encoder = emptyLayer(meta, opts)
  const types = meta.fields.map((f) => f.datatype)
  const values: RowValue[] = new Array(types.length)
  const at: [number, number] = [0, 0]
  // The R*Tree's answer for the box, or (a full tile) the thinned features.
  const r = full ? tables.byFids(thinnedIds(tables, nodes, box, (box[2] - box[0]) / (GRID * (1 + 2 * opts.padding))), meta.fields)
    : tables.boxRows(box, meta.fields)
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
      // Lines and polygons under one tile unit round to nothing: skipped before they are read.
      if (tinyInTile(blob, project)) continue
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

/** A tile through the generic reads: the features intersecting the padded tile, at most THIN_ABOVE. */
async function genericTile(layer: FeatureLayer, t: TileAddress, opts: TileOptions): Promise<Uint8Array> {
  const { meta } = layer
  const { box, clip, project } = tileFrame(meta, t, opts)
  const area: Geometry = { type: 'Polygon', coordinates: [[[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]], [box[0], box[1]]]] }
  const rows = await layer.read((tx) => tx.list({ filter: { conditions: [], intersects: area, filtered: true }, limit: THIN_ABOVE },
    { geom: true, fields: meta.fields, label: false, description: false }))
  const encoder = emptyLayer(meta, opts)
  const types = meta.fields.map((f) => f.datatype)
  for (const row of rows) {
    const shape = row.geom && shapeOf(row.geom, project)
    const cut = shape && cutShape(shape, clip, opts.simplification)
    if (cut) encoder.add(row.fid, cut, row.values.map((v, i) => canonicalValue(v, types[i]!)))
  }
  return encoder.finish()
}

/** A tile of several layers; `cached` when every layer came from the tile cache. */
export interface Tile {
  bytes: Uint8Array | null
  cached: boolean
  /** Where the layers that were not in the tile cache came from (each once). */
  sources: TileSource[]
  /** The longest of the engines' cuts (layers are cut side by side), ms; none when no engine cut. */
  engineMs?: number
}

/**
 * The tile of several layers, bottom first: the concatenation of their MVT layers, or
 * `null` bytes when none has a feature in it. `pending`: the request's put-off refresh of the
 * change tokens (port.ts `PendingRefresh`), settled before this resolves.
 */
export async function renderTile(services: DataOutServices, layers: readonly FeatureLayer[], t: TileAddress,
  opts: TileOptions, pending?: PendingRefresh): Promise<Tile> {
  // A put-off refresh is carried by one layer's statement: with several layers, read first.
  if (pending && layers.length !== 1) await pending.run()
  const parts = await Promise.all(layers.map((l) => layerTile(services, l, t, opts, pending)))
  const out = concatBytes(parts.map((p) => p.bytes))
  const engines = parts.filter((p) => p.ms !== undefined).map((p) => p.ms!)
  return { bytes: out.length ? out : null, cached: parts.every((p) => p.cached),
    sources: [...new Set(parts.filter((p) => !p.cached).map((p) => p.source))], ...(engines.length ? { engineMs: Math.max(...engines) } : {}) }
}
