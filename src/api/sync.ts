/**
 * @module api/sync
 * Sync with a team's server (Outpost's own endpoints, docs/sync.md): connections, layers
 * taken offline from a remote, rounds, their state and conflicts.
 */
import { request } from './request.ts'
import type { Ref, ResourceItem } from './resource.ts'

export interface Counts { created: number; updated: number; deleted: number; attachments: number }

/** A remote feature the pulls could not take here, and why (docs/sync.md, "Problems"). */
export interface SyncProblem { fid: number | null; remote_fid: number; reason: string; since: string }

export interface SyncReport {
  status: 'ok' | 'conflicts' | 'error'
  pushed: Counts
  pulled: Counts
  conflicts: number
  problems: SyncProblem[]
  started: string
  finished: string
  error?: { title: string; message?: string }
  /** The server refused the push (the account may read the layer, not write it); the changes wait here. */
  push_refused?: { title: string; message: string }
}

export interface SyncProgress { stage: string; done: number; total: number | null }

export interface SyncState {
  remote: { connection: Ref; resource: Ref; url: string | null }
  local_changes: { features: number; attachments: number }
  conflicts: number
  problems: SyncProblem[]
  /** Said until a push goes through: the server refuses this account's changes (docs/sync.md). */
  push_refused: { title: string; message: string; since: string } | null
  last_sync: string | null
  pending: { push: boolean; pull: boolean }
  running: SyncProgress | null
  history: SyncReport[]
}

export interface LinkedLayer extends SyncState {
  id: number
  display_name: string | null
}

/** A feature as a conflict shows it: WKT, fields by keyname, description. */
export interface FeatureVersion { geom: string | null; fields: Record<string, unknown>; description: string | null }

export interface Conflict {
  id: number
  fid: number
  remote_fid: number
  kind: 'update/update' | 'update/delete' | 'delete/update'
  local: FeatureVersion | null
  remote: FeatureVersion | null
  created: string
}

export interface RemoteItem {
  id: number
  cls: string
  display_name: string
  children: boolean
  geometry_type: string | null
  feature_layer: boolean
  versioning: { enabled: boolean } | null
}

/** A merged feature: what it leaves out (geometry, description, fields) keeps its local value. */
export type Resolution = { keep: 'local' | 'remote' } | { feature: { geom?: string | null; fields?: Record<string, unknown>; description?: string | null } }

/** The team servers connected (remote connection resources, with their URL and login). */
export const listConnections = () =>
  request<ResourceItem[]>('/api/resource/search/', { query: { cls: 'remote_connection', serialization: 'full' } })

export const listLinked = () => request<LinkedLayer[]>('/api/component/outpost/sync/')

export const syncAll = () => request<SyncReport[]>('/api/component/outpost/sync/', { method: 'POST' })

export const syncState = (layer: number) => request<SyncState>(`/api/resource/${layer}/sync`)

export const syncLayer = (layer: number) => request<SyncReport>(`/api/resource/${layer}/sync`, { method: 'POST' })

export const listConflicts = (layer: number) => request<Conflict[]>(`/api/resource/${layer}/sync/conflict/`)

export const resolveConflict = (layer: number, conflict: number, body: Resolution) =>
  request<unknown>(`/api/resource/${layer}/sync/conflict/${conflict}`, { method: 'PUT', json: body })

/** The team's server the app is served from (an Outpost Node host), if it is. */
export const teamServer = () => request<{ url: string | null }>('/api/component/outpost/sync/team')

export const remoteChildren = (connection: number, parent: number) =>
  request<RemoteItem[]>(`/api/resource/${connection}/remote/`, { query: { parent } })

/** Creates a local layer linked to remote layer `remote` through `connection`, and downloads it. */
export const takeOffline = (connection: number, remote: number, name: string, parent = 0) =>
  request<{ id: number }>('/api/resource/', { method: 'POST', json: { resource: { cls: 'vector_layer', parent: { id: parent },
    display_name: name }, vector_layer: { remote: { connection: { id: connection }, resource: { id: remote } } } } })
