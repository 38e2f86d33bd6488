/**
 * @module api/wms
 * WMS in the app (docs/ogc.md): another service's layers through `wmsclient_connection` /
 * `wmsclient_layer`, and our styles served as a `wmsserver_service`.
 */
import { apiUrl } from './base.ts'
import { request } from './request.ts'
import { listOfClass, type ResourceItem } from './resource.ts'
import { listStyles } from './webmap.ts'

/** A leaf layer of the stored capabilities; `bbox` is west, south, east, north in WGS 84. */
export interface WmsCapLayer { id: string; title: string; bbox?: number[] | null }

/** The stored capabilities of a connection (`capcache`). */
export interface WmsCapabilities { formats: string[]; layers: WmsCapLayer[]; srs: string[] }

export const WMS_VERSIONS = ['1.1.1', '1.3.0'] as const

export const listWmsConnections = () => listOfClass('wmsclient_connection')

/** A connection's stored capabilities; `null` when none are stored (or the person may not connect). */
export async function wmsCapabilities(connection: number): Promise<WmsCapabilities | null> {
  const item = await request<ResourceItem & { wmsclient_connection?: { capcache?: WmsCapabilities | null } }>(`/api/resource/${connection}`)
  return item.wmsclient_connection?.capcache ?? null
}

/** Everything a WMS service may publish: the styles, and WMS client layers (each its own style). */
export async function listPublishable(): Promise<ResourceItem[]> {
  const [styles, wms] = await Promise.all([listStyles(), listOfClass('wmsclient_layer')])
  return [...styles, ...wms]
}

/** The absolute address a desktop GIS connects to (under the app's directory, as every API path). */
export const wmsServiceUrl = (id: number) => new URL(apiUrl(`/api/resource/${id}/wms`), location.origin).href

/** Reads the connection's capabilities from the service again and stores them (502 with the reason when it fails). */
export const requeryCapabilities = (connection: number) =>
  request<unknown>(`/api/resource/${connection}`, { method: 'PUT', json: { wmsclient_connection: { capcache: 'query' } } })
