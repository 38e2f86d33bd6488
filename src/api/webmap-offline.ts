/**
 * @module api/webmap-offline
 * Taking a team's web map offline (Outpost's own endpoints, docs/webmaps.md "Taking a map
 * offline"): estimate, take with progress and Stop, the saved maps, refresh, remove.
 */
import { request, ServerError } from './request.ts'

export type Bbox = [number, number, number, number]

export interface OfflineAsk { connection: number; webmap: number; bbox: Bbox; zooms: [number, number] }

export interface Missing { kind: 'layer' | 'style' | 'basemap' | 'tiles'; name: string; reason: string }

export interface OfflineEstimate {
  name: string
  extent: number[] | null
  layers: { remote: number; name: string; features: number }[]
  styles: number
  basemaps: { name: string; tiles: number }[]
  tiles: number
  tile_bytes: number
  features: number
  bytes: number
  missing: Missing[]
}

export interface SavedMap {
  id: number
  state: 'saving' | 'saved'
  name: string
  url: string
  webmap: number | null
  bbox: Bbox
  zooms: [number, number]
  layers: { name: string; remote: number; local: number; features: number }[]
  basemaps: { name: string; resource: number; tiles: number; bytes: number }[]
  missing: Missing[]
  size: { tiles: number; features: number; total: number }
  saved: string
  refreshed: string | null
}

const body = (a: OfflineAsk) => ({ connection: { id: a.connection }, webmap: { id: a.webmap }, bbox: a.bbox, zooms: a.zooms })

export const estimateOffline = (a: OfflineAsk) =>
  request<OfflineEstimate>('/api/component/outpost/webmap_offline/estimate', { method: 'POST', json: body(a) })

/** Takes the map offline, reporting progress under `token` (ingest's progress endpoint; its DELETE stops the job). */
export const takeMapOffline = (a: OfflineAsk, token: string) =>
  request<{ id: number; saved: SavedMap }>('/api/component/outpost/webmap_offline/', { method: 'POST', json: body(a), headers: { 'X-Outpost-Progress': token } })

export const savedMaps = () => request<SavedMap[]>('/api/component/outpost/webmap_offline/')

export const refreshMap = (id: number) =>
  request<{ status: 'ok' | 'conflicts' | 'error'; rounds: unknown[] }>(`/api/resource/${id}/webmap_offline`, { method: 'POST' })

export const removeMap = (id: number) =>
  request<{ freed: { tiles: number } }>(`/api/resource/${id}/webmap_offline`, { method: 'DELETE' })

/**
 * Stops the job reported under `token`. One that had already finished is removed again (its
 * group id is in the refusal), so Stop never leaves a saved map behind.
 */
export async function stopTaking(token: string): Promise<void> {
  try {
    await request(`/api/component/outpost/progress/${token}`, { method: 'DELETE' })
  } catch (err) {
    const result = err instanceof ServerError ? (err.data.result as { id?: number } | undefined) : undefined
    if (result?.id !== undefined) await removeMap(result.id)
  }
}
