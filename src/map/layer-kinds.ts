/**
 * @module map/layer-kinds
 * How each kind of layer-list entry becomes an OpenLayers layer. A new source type (remote
 * services…) adds its kind here: `create` makes the layer, `refresh` reloads it after its data
 * changed, `legend` describes its swatch (`raster`: the list shows the style's own legend).
 */
import type BaseLayer from 'ol/layer/Base.js'
import TileLayer from 'ol/layer/Tile.js'
import XYZ from 'ol/source/XYZ.js'
import VectorTileLayer from 'ol/layer/VectorTile.js'
import VectorTileSource from 'ol/source/VectorTile.js'
import MVT from 'ol/format/MVT.js'
import type VectorTile from 'ol/VectorTile.js'
import type { FeatureLike } from 'ol/Feature.js'
import type Layer from 'ol/layer/Layer.js'
import LayerGroup from 'ol/layer/Group.js'
import ImageTile from 'ol/source/ImageTile.js'
import type RenderFeature from 'ol/render/Feature.js'
import { mvtUrl } from '../api/map.ts'
import { tileUrl } from '../api/render.ts'
import type { MapLayerEntry } from '../composables/useMapLayers.ts'
import { featureStyle, geometryKind, layerColor, type GeometryKind } from './styles.ts'
import { decodeInWorker, workerTileLoad } from './tile-decoder.ts'
import { CrowdedTiles } from './crowded-tiles.ts'

/** The property naming the resource an OpenLayers layer draws. */
export const RESOURCE_PROP = 'outpostResource'

export interface Legend { color: string; shape: GeometryKind | 'raster' }

export interface LayerKind {
  create(entry: MapLayerEntry, selected: (resourceId: number) => number | null): BaseLayer
  refresh(layer: BaseLayer): void
  legend(entry: MapLayerEntry): Legend
}

/**
 * Features in a tile beyond which it is crowded: its points become dots without labels
 * (map/styles). localStorage `outpost.map.crowdedTile` overrides it (the panning benchmark
 * measures the map without the rule in the same run).
 */
export const CROWDED_TILE = 1000
const crowdedTile = () => Number(localStorage.getItem('outpost.map.crowdedTile')) || CROWDED_TILE

/**
 * localStorage `outpost.map.crowdedTiles` = `vector` draws crowded tiles' points as OpenLayers
 * polygons on the page, as before they were painted in the worker (the panning benchmark
 * compares both in one run); so does `outpost.map.tileDecode` = `page`.
 */
const paintCrowded = () => decodeInWorker() && localStorage.getItem('outpost.map.crowdedTiles') !== 'vector'

/** The layer's crowded tiles as images, if it has them (map/crowded-tiles). */
export const CROWDED_PROP = 'outpostCrowdedTiles'

function vectorTileLayer(entry: MapLayerEntry, selected: (resourceId: number) => number | null, source: VectorTileSource,
  crowded: (f: FeatureLike) => boolean): VectorTileLayer {
  return new VectorTileLayer({
    source,
    style: featureStyle({ color: layerColor(entry.resourceId), labelKey: entry.labelKey, selected: () => selected(entry.resourceId), crowded }),
    declutter: true,
    properties: { [RESOURCE_PROP]: entry.resourceId, name: entry.key },
  })
}

/**
 * The layer drawn as before: every tile's features on the page (decoded in the worker, or by
 * OpenLayers' own loader), crowded tiles' points as polygons.
 */
function vectorOnly(entry: MapLayerEntry, selected: (resourceId: number) => number | null): VectorTileLayer {
  // Decoded in a worker (map/tile-decoder): a crowded tile's protobuf is not parsed on the page's thread.
  const source = new VectorTileSource({ format: new MVT(), url: mvtUrl([entry.resourceId]),
    tileLoadFunction: decodeInWorker() ? workerTileLoad : undefined })
  const crowded = new WeakSet<FeatureLike>()
  const limit = crowdedTile()
  source.on('tileloadend', (e) => {
    const features = (e.tile as VectorTile<FeatureLike>).getFeatures() ?? []
    if (features.length > limit) for (const f of features) crowded.add(f)
  })
  return vectorTileLayer(entry, selected, source, (f) => crowded.has(f))
}

/**
 * The layer with crowded tiles' points painted in the worker (map/crowded-tiles): under the
 * `VectorTile` layer an image-tile layer of the painted points.
 */
function vectorWithImages(entry: MapLayerEntry, selected: (resourceId: number) => number | null): LayerGroup {
  const url = mvtUrl([entry.resourceId])
  const source = new VectorTileSource({ format: new MVT(), url })
  const tiles = new CrowdedTiles({ url, tileGrid: source.getTileGrid()!, limit: crowdedTile(), color: layerColor(entry.resourceId) })
  source.setTileLoadFunction(tiles.vectorLoad)
  const images = new TileLayer({ source: new ImageTile({ loader: tiles.imageLoad, tileGrid: source.getTileGrid()!, transition: 0 }) })
  const features = vectorTileLayer(entry, selected, source, (f) => tiles.crowded.has(f as RenderFeature))
  return new LayerGroup({ layers: [images, features],
    properties: { [RESOURCE_PROP]: entry.resourceId, name: entry.key, [CROWDED_PROP]: tiles } })
}

const vector: LayerKind = {
  create: (entry, selected) => (paintCrowded() ? vectorWithImages(entry, selected) : vectorOnly(entry, selected)),
  refresh(layer) {
    ;(layer.get(CROWDED_PROP) as CrowdedTiles | undefined)?.clear()
    for (const l of layer.getLayersArray()) (l as Layer).getSource()?.refresh()
  },
  legend(entry) {
    return { color: layerColor(entry.resourceId), shape: geometryKind(entry.geometryType ?? 'POLYGON') }
  },
}

/** Bumped on every reload of a style's tiles: the URL changes, so neither the browser nor OpenLayers reuses old tiles. */
let styleVersion = 0

/** A style drawn by the backend (`render/tile`, offline in the service worker) as image tiles. */
const style: LayerKind = {
  create(entry) {
    // A class name of its own gives each style its own canvas (tests and tools can read its pixels).
    return new TileLayer({ className: `outpost-style outpost-style-${entry.resourceId}`,
      source: new XYZ({ url: tileUrl([entry.resourceId], styleVersion), transition: 0 }),
      properties: { [RESOURCE_PROP]: entry.resourceId, name: entry.key } })
  },
  refresh(layer) {
    ;(layer as TileLayer<XYZ>).getSource()?.setUrl(tileUrl([layer.get(RESOURCE_PROP) as number], ++styleVersion))
  },
  legend: () => ({ color: 'transparent', shape: 'raster' }),
}

export const LAYER_KINDS: Record<string, LayerKind> = { vector, style }
