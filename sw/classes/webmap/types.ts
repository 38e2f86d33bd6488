/**
 * @module classes/webmap/types
 * What a web map keeps in its resource row's `data` (JSON), in the API's snake_case where the
 * field is the wire's, so that reading it back is close to a copy. The whole map is one row:
 * its tree, settings, basemap list and annotations change together with the resource, in the
 * tree's unit of work, and go with it on delete; no table of its own (the data port's schema
 * is shared by every host and engine).
 */

export type LayerAdapter = 'image' | 'tile'
export type LegendSymbols = 'expand' | 'collapse' | 'disable'
export type AnnotationDefault = 'no' | 'yes' | 'messages'

export interface LayerItem {
  /** Ours, per web map: display_config's `id`/`key`; never read from input. */
  id: number
  item_type: 'layer'
  display_name: string
  layer_style_id: number
  layer_adapter: LayerAdapter
  layer_enabled: boolean
  layer_identifiable: boolean
  /** 0..100; `layer_opacity` is derived from it, as the original stores only this (reference §1.3). */
  layer_transparency: number | null
  /** The larger of the two: the zoomed-out limit. */
  layer_min_scale_denom: number | null
  layer_max_scale_denom: number | null
  legend_symbols: LegendSymbols | null
  draw_order_position: number | null
}

export interface GroupItem {
  id: number
  item_type: 'group'
  display_name: string
  group_expanded: boolean
  group_enabled: boolean
  group_exclusive: boolean
  children: Item[]
}

export type Item = LayerItem | GroupItem

/** `[left, bottom, right, top]` in degrees, a side null when unset (`extent_*` scalars). */
export type Sides = [number | null, number | null, number | null, number | null]

export interface Basemap {
  resource_id: number
  display_name: string
  enabled: boolean
  opacity: number | null
}

export interface Annotation {
  id: number
  /** WKT in EPSG:3857, as sent (checked by the geometry kernel). */
  geom: string
  public: boolean
  description: string | null
  style: Record<string, unknown> | null
  /** Who made it. Unlike the original (which keeps it only for private ones), kept for every annotation. */
  user_id: number
}

export interface WebMapData {
  title: string | null
  draw_order_enabled: boolean | null
  editable: boolean
  annotation_enabled: boolean
  annotation_default: AnnotationDefault
  legend_symbols: LegendSymbols | null
  measure_srs: number | null
  bookmark_resource: number | null
  options: Record<string, boolean>
  extent: Sides
  extent_const: Sides
  root: Item[]
  basemaps: Basemap[]
  background_color: string | null
  basemap_disable: boolean
  annotations: Annotation[]
  /** The next item or annotation id of this web map. */
  next_id: number
}

export function emptyWebMap(): WebMapData {
  return {
    title: null, draw_order_enabled: null, editable: true, annotation_enabled: false, annotation_default: 'no',
    legend_symbols: null, measure_srs: null, bookmark_resource: null, options: {},
    extent: [-180, -90, 180, 90], extent_const: [null, null, null, null], root: [],
    basemaps: [], background_color: null, basemap_disable: false, annotations: [], next_id: 1,
  }
}

/** Every layer item of `items`, depth first, in tree order. */
export function* layersOf(items: readonly Item[]): Generator<LayerItem> {
  for (const it of items) {
    if (it.item_type === 'layer') yield it
    else yield* layersOf(it.children)
  }
}
