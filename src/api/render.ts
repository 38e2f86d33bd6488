/**
 * @module api/render
 * Styles and what the render API draws from them (spec §4.9): tile URLs for the map,
 * legend symbols, saving a style's XML, and Outpost's preview of an unsaved style.
 */
import { apiUrl } from './base.ts'
import { request, ServerError } from './request.ts'

export interface LegendSymbol {
  index: number
  render: boolean | null
  display_name: string
  icon: { format: string; data: string }
}

/** The XYZ template OpenLayers fills in; `timestamp` (ignored by the server) makes the map refetch after an edit. */
export function tileUrl(styleIds: number[], version = 0): string {
  return apiUrl(`/api/component/render/tile?z={z}&x={x}&y={y}&resource=${styleIds.join(',')}&nd=204&timestamp=${version}`)
}

export const legendSymbols = (styleId: number, iconSize = 20, signal?: AbortSignal) =>
  request<LegendSymbol[]>(`/api/resource/${styleId}/legend_symbols`, { query: { icon_size: iconSize }, signal })

export const saveStyleXml = (styleId: number, xml: string) =>
  request<unknown>(`/api/resource/${styleId}`, { method: 'PUT', json: { engine_style: { xml } } })

/** Creates a style under a layer; without `xml` the server makes a default one for the layer's geometry. */
export const createStyle = (layerId: number, displayName: string, xml?: string) =>
  request<{ id: number }>('/api/resource/', { method: 'POST', json: {
    resource: { cls: 'engine_style', parent: { id: layerId }, display_name: displayName },
    ...(xml === undefined ? {} : { engine_style: { xml } }) } })

/** Creates a raster layer's style (it has no settings: it draws the raster's own pixels). */
export const createRasterStyle = (layerId: number, displayName: string) =>
  request<{ id: number }>('/api/resource/', { method: 'POST', json: {
    resource: { cls: 'raster_style', parent: { id: layerId }, display_name: displayName } } })

/** A PNG of `xml` drawn over the layer's features in `extent` (EPSG:3857), not saved. */
export async function previewStyle(layerId: number, xml: string, extent: number[], size: [number, number], signal?: AbortSignal): Promise<Blob> {
  const res = await fetch(apiUrl('/api/component/outpost/render/preview'), { method: 'POST', credentials: 'include', signal,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ layer: { id: layerId }, extent, size, engine_style: { xml } }) })
  if (!res.ok) {
    const body = await res.json().catch(() => undefined)
    throw new ServerError(body ?? { title: `HTTP ${res.status}`, status_code: res.status, exception: 'unknown' })
  }
  return res.blob()
}
