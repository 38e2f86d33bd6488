/**
 * @module api/webmap
 * Web maps (docs/webmaps.md): the `webmap` member (its tree and extents), what a client draws
 * (`display_config`), the map's extent, making and changing a web map, and the styles a layer
 * item may point to.
 */
import { request } from './request.ts'
import type { ResourceItem } from './resource.ts'

/** A layer item of `root_item` as written (the server adds `style_parent_id` on read). */
export interface WebmapLayerItem {
  item_type: 'layer'
  display_name: string
  layer_style_id: number
  layer_adapter: 'image' | 'tile'
  layer_enabled?: boolean
  layer_opacity?: number | null
  layer_min_scale_denom?: number | null
  layer_max_scale_denom?: number | null
  style_parent_id?: number | null
}
export interface WebmapGroupItem {
  item_type: 'group'
  display_name: string
  group_expanded?: boolean
  group_enabled?: boolean
  group_exclusive?: boolean
  children: WebmapItem[]
}
export type WebmapItem = WebmapLayerItem | WebmapGroupItem

/** `[west, south, east, north]` in degrees. */
export type LonLatBox = [number, number, number, number]

export interface WebmapMember {
  initial_extent: LonLatBox | null
  bookmark_resource: { id: number } | null
  title: string | null
  root_item: { item_type: 'root'; children: WebmapItem[] }
  [key: string]: unknown
}

/** A node of `display_config.rootItem` (the original's DisplayConfig, reference §1.7). */
export interface DisplayLayer {
  id: number
  type: 'layer'
  label: string
  styleId: number
  layerId: number | null
  visibility: boolean
  opacity: number | null
  minScaleDenom: number | null
  maxScaleDenom: number | null
  legendInfo: { visible: 'expand' | 'collapse' | 'disable'; has_legend?: boolean }
  identification: { mode: string; resource: { id: number } } | null
}
export interface DisplayGroup {
  id: number
  type: 'group'
  label: string
  expanded: boolean
  exclusive: boolean
  visibility: boolean
  children: DisplayNode[]
}
export type DisplayNode = DisplayLayer | DisplayGroup

export interface DisplayBasemap {
  url: string
  display_name: string
  enabled: boolean
  opacity: number | null
  z_min: number | null
  z_max: number | null
  copyright_text: string | null
  copyright_url: string | null
}

export interface DisplayConfig {
  webmapId: number
  webmapTitle: string
  initialExtent: LonLatBox | null
  rootItem: { children: DisplayNode[] }
  /** The vector layer whose features are the map's bookmarks. */
  bookmarkLayerId: number | null
  annotations: { enabled: boolean; default: 'no' | 'yes' | 'messages'; scope: { read: boolean; write: boolean; manage: boolean } }
  webmapPlugin: { '@nextgisweb/basemap/plugin/base-map': { basemaps: DisplayBasemap[]; disable: boolean } }
}

export const displayConfig = (id: number, signal?: AbortSignal) =>
  request<DisplayConfig>(`/api/resource/${id}/webmap/display_config`, { signal })

/** A web map resource with its `webmap` member. */
export const getWebmap = (id: number) =>
  request<ResourceItem & { webmap: WebmapMember }>(`/api/resource/${id}`)

/** Every web map the person may see (the `resource` member only). */
export const listWebmaps = () =>
  request<ResourceItem[]>('/api/resource/search/', { query: { cls: 'webmap', serialization: 'resource' } })

/** Every style a layer item may draw, of any renderable class, with its layer (`parent`). */
export async function listStyles(): Promise<ResourceItem[]> {
  const classes = ['engine_style', 'qgis_vector_style', 'raster_style']
  const lists = await Promise.all(classes.map((cls) =>
    request<ResourceItem[]>('/api/resource/search/', { query: { cls, serialization: 'resource' } })))
  return lists.flat()
}

export interface WebmapWrite {
  title?: string | null
  annotation_enabled?: boolean
  bookmark_resource?: { id: number } | null
  initial_extent?: LonLatBox
  root_item?: { item_type: 'root'; children: WebmapItem[] }
}

export const createWebmap = (parent: number, displayName: string, webmap: WebmapWrite) =>
  request<{ id: number }>('/api/resource/', { method: 'POST', json: {
    resource: { cls: 'webmap', parent: { id: parent }, display_name: displayName }, webmap } })

export const changeWebmap = (id: number, displayName: string, webmap: WebmapWrite) =>
  request<unknown>(`/api/resource/${id}`, { method: 'PUT', json: { resource: { display_name: displayName }, webmap } })

/** An annotation: a shape in EPSG:3857 (WKT) with a text; `own` when the asker wrote it. */
export interface Annotation { id: number; geom: string; public: boolean; own: boolean; description: string | null; style: unknown }

export const listAnnotations = (webmap: number) => request<Annotation[]>(`/api/resource/${webmap}/annotation/`)

export const createAnnotation = (webmap: number, a: { geom: string; description: string; public: boolean }) =>
  request<{ id: number }>(`/api/resource/${webmap}/annotation/`, { method: 'POST', json: a })

export const changeAnnotation = (webmap: number, id: number, change: { geom?: string; description?: string }) =>
  request<{ id: number }>(`/api/resource/${webmap}/annotation/${id}`, { method: 'PUT', json: change })

export const deleteAnnotation = (webmap: number, id: number) =>
  request<unknown>(`/api/resource/${webmap}/annotation/${id}`, { method: 'DELETE' })
