/**
 * @module map/layer-list
 * Keeps a map's OpenLayers layers in step with the layer list: one layer per entry, created
 * by its kind, stacked in list order (bottom first, above any basemap), shown or hidden, with
 * its opacity; and reloads a resource's layers after its features changed.
 */
import type Map from 'ol/Map.js'
import type BaseLayer from 'ol/layer/Base.js'
import type { Pixel } from 'ol/pixel.js'
import type { MapLayerEntry } from '../composables/useMapLayers.ts'
import { CROWDED_PROP, LAYER_KINDS, RESOURCE_PROP } from './layer-kinds.ts'
import type { CrowdedTiles } from './crowded-tiles.ts'

/** Layer-list layers start here: above basemaps (< 0), below the graticule and field layers. */
const Z_BASE = 10

export class MapLayerList {
  #layers = new globalThis.Map<string, BaseLayer>()
  /** Feature shown highlighted per resource (the open form's). */
  #selected = new globalThis.Map<number, number | null>()

  constructor(private readonly map: Map) {}

  sync(entries: readonly MapLayerEntry[]): void {
    const keys = new Set(entries.map((e) => e.key))
    for (const [key, layer] of this.#layers) {
      if (keys.has(key)) continue
      this.map.removeLayer(layer)
      this.#layers.delete(key)
    }
    entries.forEach((e, i) => {
      const kind = LAYER_KINDS[e.kind]
      if (!kind) return
      let layer = this.#layers.get(e.key)
      if (!layer) {
        layer = kind.create(e, (id) => this.#selected.get(id) ?? null)
        this.#layers.set(e.key, layer)
        this.map.addLayer(layer)
      }
      layer.setZIndex(Z_BASE + i)
      layer.setVisible(e.visible)
      layer.setOpacity(e.opacity)
    })
  }

  /** The OpenLayers layers drawing resource `id`. */
  layersOf(id: number): BaseLayer[] {
    return [...this.#layers.values()].filter((l) => l.get(RESOURCE_PROP) === id)
  }

  refresh(id: number): void {
    for (const [key, layer] of this.#layers) {
      if (layer.get(RESOURCE_PROP) === id) LAYER_KINDS[key.split(':')[0]!]?.refresh(layer)
    }
  }

  /** Highlights one feature of a resource (or none). */
  select(id: number, fid: number | null): void {
    this.#selected.set(id, fid)
    // The layers that draw: a group's own change does not restyle its layers.
    for (const l of this.layersOf(id)) for (const leaf of l.getLayersArray()) leaf.changed()
  }

  /**
   * The id of resource `id`'s feature drawn at `pixel` (within `tolerance` pixels): a feature
   * OpenLayers drew, or else a point painted into a crowded tile's image (map/crowded-tiles).
   */
  featureAt(id: number, pixel: Pixel, tolerance: number): number | undefined {
    const hit = this.map.forEachFeatureAtPixel(pixel, (f) => f, { layerFilter: (l) => l.get(RESOURCE_PROP) === id, hitTolerance: tolerance })
    const fid = hit?.getId()
    if (typeof fid === 'number') return fid
    const coordinate = this.map.getCoordinateFromPixel(pixel), resolution = this.map.getView().getResolution()
    if (!coordinate || !resolution) return undefined
    for (const l of this.layersOf(id)) {
      const painted = (l.get(CROWDED_PROP) as CrowdedTiles | undefined)?.featureAt(coordinate, resolution, tolerance)
      if (painted !== undefined) return painted
    }
    return undefined
  }

  dispose(): void {
    for (const layer of this.#layers.values()) this.map.removeLayer(layer)
    this.#layers.clear()
  }
}

const LISTS = new WeakMap<Map, MapLayerList>()

/** The layer list of a map (one per map, shared by the panels that use it). */
export function layerListOf(map: Map): MapLayerList {
  let l = LISTS.get(map)
  if (!l) LISTS.set(map, l = new MapLayerList(map))
  return l
}
