/**
 * @module api/webmap-publish
 * Publishing a web map made in the app to a team's server (Outpost's own endpoint,
 * docs/webmaps.md "Publishing a map to the team's server"), with progress and Stop.
 */
import { request, ServerError } from './request.ts'

export interface Skipped { kind: string; name: string; reason: string }

export interface Publication {
  /** The web map there, and the link that opens it there for anyone. */
  id: number
  url: string
  group: number
  updated: boolean
  layers: { name: string; local: number; remote: number; how: 'linked' | 'created'; pushed: number }[]
  styles: number
  basemaps: number
  annotations: number
  skipped: Skipped[]
  remembered: boolean
}

/** Where a map was published last (`undefined`: never from here). */
export interface Published { url: string; connection: number; group: number; webmap: number; published: string }

/** Publishes web map `id` through `connection` into remote group `parent`, reporting progress under `token`. */
export const publishWebmap = (id: number, connection: number, parent: number, token: string) =>
  request<Publication>(`/api/resource/${id}/webmap_publish`, { method: 'POST', json: { connection: { id: connection }, parent: { id: parent } },
    headers: { 'X-Outpost-Progress': token } })

export async function lastPublished(id: number): Promise<Published | undefined> {
  try {
    return await request<Published>(`/api/resource/${id}/webmap_publish`)
  } catch (err) {
    if (err instanceof ServerError && err.status === 404) return undefined
    throw err
  }
}

/** Stops the publish under `token`: it undoes what it made there. One that had just finished stays published. */
export async function stopPublishing(token: string): Promise<void> {
  await request(`/api/component/outpost/progress/${token}`, { method: 'DELETE' }).catch(() => undefined)
}
