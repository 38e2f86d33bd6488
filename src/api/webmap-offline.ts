/**
 * @module api/webmap-offline
 * Taking a team's web map offline (Outpost's own endpoints, docs/webmaps.md "Taking a map
 * offline"): estimate, take with progress and Stop, the saved maps, refresh, remove.
 */
import { request } from './request.ts'

export type Bbox = [number, number, number, number]

export interface OfflineAsk { connection: number; webmap: number; bbox: Bbox; zooms: [number, number] }

export interface Missing { kind: 'layer' | 'style' | 'basemap' | 'tiles'; name: string; reason: string }

export interface OfflineEstimate {
  name: string
  extent: number[] | null
  layers: { remote: number; name: string; features: number; raster?: true }[]
  styles: number
  basemaps: { name: string; tiles: number }[]
  tiles: number
  tile_bytes: number
  features: number
  /** The rasters' samples: at most about their files' bytes. */
  raster_bytes: number
  bytes: number
  missing: Missing[]
}

export interface SavedMap {
  id: number
  /** `incomplete`: stopped, failed or cut (`stopped` says why); what came is kept, `resumeMap` goes on. */
  state: 'saving' | 'saved' | 'incomplete'
  stopped?: string
  name: string
  url: string
  webmap: number | null
  bbox: Bbox
  zooms: [number, number]
  layers: { name: string; remote: number; local: number; features: number; raster?: { bytes: number } }[]
  /** `resource`: the local basemap layer (`null` until the map is whole). */
  basemaps: { name: string; resource: number | null; tiles: number; bytes: number }[]
  missing: Missing[]
  size: { tiles: number; features: number; rasters: number; total: number }
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

/** What a refresh did with one basemap's tiles: `replaced` only when every tile of the area came again. */
export interface TileRefresh { name: string; tiles: number; bytes: number; failed: number; replaced: boolean }

/** A copied raster in a refresh: its file downloaded again into a new copy, or (`reason`) the copy kept. */
export interface RasterRefresh { name: string; renewed: boolean; bytes: number; reason?: string }

export interface Refreshed { status: 'ok' | 'conflicts' | 'error'; rounds: unknown[]; tiles: TileRefresh[]; rasters: RasterRefresh[]; saved: SavedMap }

/** Refreshes saved map `id` (its tiles and rasters again, a sync round of each layer), reporting progress under `token` when given. */
export const refreshMap = (id: number, token?: string) =>
  request<Refreshed>(`/api/resource/${id}/webmap_offline`, { method: 'POST', headers: token ? { 'X-Outpost-Progress': token } : {} })

/** Stops the job (take, resume or refresh) reported under `token`: what came is kept; one that had finished stays done. */
export async function stopRefresh(token: string): Promise<void> {
  await request(`/api/component/outpost/progress/${token}`, { method: 'DELETE' }).catch(() => undefined)
}

/** What a refresh says: a title (nothing changed: "Not refreshed") and its layers' rounds, each basemap's tiles and each raster. */
export function refreshSummary(r: Refreshed): { title: string; message: string } {
  const layers = r.status === 'error' ? 'The layers could not be synced with the team server.'
    : `The layers have the team server's changes${r.status === 'conflicts' ? ', with conflicts to resolve' : ''}.`
  const tiles = r.tiles.map((t) => t.replaced ? `${t.tiles} tiles of "${t.name}" replaced (${(t.bytes / 1048576).toFixed(1)} MB).`
    : `"${t.name}" keeps its tiles (${t.failed} could not be read).`)
  const rasters = r.rasters.map((c) => c.renewed ? `Raster "${c.name}" renewed (${(c.bytes / 1048576).toFixed(1)} MB).`
    : `Raster "${c.name}" keeps its copy: ${c.reason}.`)
  const nothing = r.status === 'error' && !r.tiles.some((t) => t.replaced) && !r.rasters.some((c) => c.renewed)
  return { title: nothing ? 'Not refreshed' : 'Refreshed', message: [layers, ...tiles, ...rasters].join(' ') }
}

export const removeMap = (id: number) =>
  request<{ freed: { tiles: number } }>(`/api/resource/${id}/webmap_offline`, { method: 'DELETE' })

/** Stops a take: the same as any job's stop (what came is kept, listed incomplete). */
export const stopTaking = stopRefresh

/** Goes on with incomplete saved map `id`: only what is not on the device yet comes, progress under `token`. */
export const resumeMap = (id: number, token?: string) =>
  request<{ id: number; saved: SavedMap }>(`/api/resource/${id}/webmap_offline/resume`, { method: 'POST', headers: token ? { 'X-Outpost-Progress': token } : {} })
