/**
 * @module webmap/layers
 * A web map's layers on an OpenLayers map: each layer item drawn by the app's own layer
 * factory for styles (map/layer-kinds, the backend's image tiles), stacked as the tree says
 * (its first item on top), shown only within its scale range; and the web map's basemaps
 * (XYZ tile URLs) under them, over the bundled world map.
 */
import type Map from 'ol/Map.js'
import type BaseLayer from 'ol/layer/Base.js'
import TileLayer from 'ol/layer/Tile.js'
import XYZ from 'ol/source/XYZ.js'
import type { DisplayBasemap, DisplayLayer, DisplayNode } from '../api/webmap.ts'
import type { MapLayerEntry } from '../composables/useMapLayers.ts'
import { LAYER_KINDS } from '../map/layer-kinds.ts'

/** Metres per pixel at scale 1:1 (OGC's standard pixel of 0.28 mm), in EPSG:3857. */
const METRES_PER_PIXEL_AT_1 = 0.00028
/** Web-map layers are stacked from here: above basemaps (< 0), below the graticule (100). */
const Z_BASE = 10

/** A layer item as the view shows it: what the person switched, over what the map says. */
export interface WebmapLayerState { visible: boolean; opacity: number }

/** The layer items of a tree, top of the tree first (the order they are listed). */
export function layersOf(nodes: readonly DisplayNode[]): DisplayLayer[] {
  return nodes.flatMap((n) => (n.type === 'group' ? layersOf(n.children) : [n]))
}

/** The resolutions (m/px) between which a layer is drawn: `max ≤ scale ≤ min` (docs/webmaps.md). */
export function resolutionRange(l: Pick<DisplayLayer, 'minScaleDenom' | 'maxScaleDenom'>): { minResolution?: number; maxResolution?: number } {
  return {
    minResolution: l.maxScaleDenom ? l.maxScaleDenom * METRES_PER_PIXEL_AT_1 : undefined,
    maxResolution: l.minScaleDenom ? l.minScaleDenom * METRES_PER_PIXEL_AT_1 : undefined,
  }
}

/** The entry the app's style factory takes for a layer item. */
const entryOf = (l: DisplayLayer): MapLayerEntry => ({ key: `webmap:${l.id}`, kind: 'style', resourceId: l.styleId,
  title: l.label, layerTitle: l.label, layerId: l.layerId ?? l.styleId, visible: l.visibility, opacity: l.opacity ?? 1 })

export class WebmapLayers {
  #layers = new globalThis.Map<number, BaseLayer>()
  #basemaps: BaseLayer[] = []

  constructor(private readonly map: Map) {}

  /** Draws `tree`'s layers (replacing any drawn before) with the states given per item id. */
  show(tree: readonly DisplayNode[], basemaps: readonly DisplayBasemap[], state: Record<number, WebmapLayerState>): void {
    this.dispose()
    const items = layersOf(tree)
    items.forEach((l, i) => {
      const layer = LAYER_KINDS.style!.create(entryOf(l), () => null)
      const range = resolutionRange(l)
      if (range.minResolution !== undefined) layer.setMinResolution(range.minResolution)
      if (range.maxResolution !== undefined) layer.setMaxResolution(range.maxResolution)
      layer.setZIndex(Z_BASE + items.length - i)
      layer.set('webmapItem', l.id)
      this.#layers.set(l.id, layer)
      this.map.addLayer(layer)
    })
    this.#basemaps = basemaps.map((b, i) => {
      const layer = new TileLayer({ source: new XYZ({ url: b.url, minZoom: b.z_min ?? 0, maxZoom: b.z_max ?? 19,
        attributions: b.copyright_text ? [b.copyright_text] : undefined }), zIndex: -900 - i, visible: b.enabled,
      opacity: b.opacity ?? 1, properties: { name: `webmap-basemap:${i}` } })
      this.map.addLayer(layer)
      return layer
    })
    this.update(state)
  }

  /** Applies the visibility and opacity of each item. */
  update(state: Record<number, WebmapLayerState>): void {
    for (const [id, layer] of this.#layers) {
      const s = state[id]
      if (!s) continue
      layer.setVisible(s.visible)
      layer.setOpacity(s.opacity)
    }
  }

  /** Shows basemap `index` only (or none with -1). */
  chooseBasemap(index: number): void {
    this.#basemaps.forEach((l, i) => l.setVisible(i === index))
  }

  dispose(): void {
    for (const layer of [...this.#layers.values(), ...this.#basemaps]) this.map.removeLayer(layer)
    this.#layers.clear()
    this.#basemaps = []
  }
}
