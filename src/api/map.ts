/**
 * @module api/map
 * What the map reads from the backend: the feature layers with their fields, vector-tile
 * URLs, the raster layers and their styles, extents, identify (spec §4.11), the export formats and export downloads (spec §4.8),
 * and the offline world basemap.
 */
import { apiUrl } from './base.ts'
import sanitize from 'sanitize-filename'
import { NetworkError, request, ServerError } from './request.ts'
import type { ResourceItem } from './resource.ts'

/** Every vector layer with its class members (geometry type, fields, label field). */
export const listFeatureLayers = () =>
  request<ResourceItem[]>('/api/resource/search/', { query: { cls: 'vector_layer', serialization: 'full' } })

/** Every raster layer, and every raster style (its parent is its layer). */
export const listRasterLayers = () => request<ResourceItem[]>('/api/resource/search/', { query: { cls: 'raster_layer' } })
export const listRasterStyles = () => request<ResourceItem[]>('/api/resource/search/', { query: { cls: 'raster_style' } })
/** Every layer of a remote WMS: each draws itself (it is its own style), from the remote or, offline, from what was kept. */
export const listWmsLayers = () => request<ResourceItem[]>('/api/resource/search/', { query: { cls: 'wmsclient_layer' } })

/** The vector-tile URL template of resources (drawn bottom first). */
export const mvtUrl = (ids: number[]) =>
  apiUrl(`/api/component/feature_layer/mvt?resource=${ids.join(',')}&z={z}&x={x}&y={y}`)

export const WORLD_BASEMAP_URL = apiUrl('/api/component/outpost/basemap/{z}/{x}/{y}')

export interface LonLatExtent { minLon: number | null; minLat: number | null; maxLon: number | null; maxLat: number | null }

export const layerExtent = (id: number) => request<{ extent: LonLatExtent }>(`/api/resource/${id}/extent`).then((r) => r.extent)

export const featureExtent = (id: number, fid: number) =>
  request<{ extent: LonLatExtent | null }>(`/api/resource/${id}/feature/${fid}/extent`).then((r) => r.extent)

export const featureCount = (id: number) =>
  request<{ total_count: number }>(`/api/resource/${id}/feature_count`).then((r) => r.total_count)

export interface IdentifiedFeature { id: number; layerId: number; label: string; fields: Record<string, unknown>; parent?: string }
export type IdentifyAnswer = Record<string, { features: IdentifiedFeature[]; featureCount: number } | { error: string } | number>

/** Features of `layers` intersecting a WKT geometry in `srs`. */
export const identify = (geom: string, srs: number, layers: number[]) =>
  request<IdentifyAnswer>('/api/feature_layer/identify', { method: 'POST', json: { geom, srs, layers } })

export interface ExportFormatInfo { name: string; display_name: string; single_file: boolean; lonlat: 'only' | 'prefer' | null }

export const exportFormats = () =>
  request<{ exportFormats: ExportFormatInfo[] }>('/api/component/pyramid/settings', { query: { component: 'feature_layer' } })
    .then((s) => s.exportFormats)

export interface ExportOptions { format: string; srs?: number; zipped: boolean }

export function exportUrl(id: number, o: ExportOptions): string {
  const q = new URLSearchParams({ format: o.format, zipped: o.zipped ? 'true' : 'false' })
  if (o.srs !== undefined) q.set('srs', String(o.srs))
  return apiUrl(`/api/resource/${id}/export?${q}`)
}

export interface Download { blob: Blob; filename: string }

/**
 * Fetches a file, reporting the bytes received (and the total when the server sent one), and
 * returns it with the name from its `Content-Disposition`.
 */
export async function download(url: string, progress: (loaded: number, total: number | null) => void,
  signal?: AbortSignal): Promise<Download> {
  let res: Response
  try {
    res = await fetch(url, { credentials: 'include', signal })
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err
    throw new NetworkError('The server could not be reached (export).', { cause: err })
  }
  if (!res.ok) {
    const body = await res.json().catch(() => undefined)
    throw new ServerError(body?.title ? body : { title: `HTTP ${res.status}`, message: 'The export failed.', status_code: res.status, exception: 'unknown' })
  }
  const total = Number(res.headers.get('content-length')) || null
  const chunks: Uint8Array<ArrayBuffer>[] = []
  let loaded = 0
  const reader = res.body!.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value as Uint8Array<ArrayBuffer>)
    loaded += value.length
    progress(loaded, total)
  }
  const name = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(res.headers.get('content-disposition') ?? '')?.[1]
  return { blob: new Blob(chunks, { type: res.headers.get('content-type') ?? '' }), filename: name ? decodeURIComponent(name) : 'export' }
}

/**
 * The name an export is saved under: the layer's display name, made safe for file systems
 * (no `/ \\ : * ? " < > |`, control characters, reserved names like `CON`, trailing dots),
 * with the extension of the server's name. The server keeps the original's `<id>.<ext>`
 * (clients such as GDAL read it); a person looks for "Wells.gpkg", not "5.gpkg".
 */
export function exportFileName(title: string, served: string): string {
  const dot = served.indexOf('.')
  const ext = dot < 0 ? '' : served.slice(dot)
  const base = sanitize(title.replace(/\s+/g, ' ').trim(), { replacement: '_' }).slice(0, 120).trim()
  return base && !/^_+$/.test(base) ? `${base}${ext}` : served
}
