/**
 * The UI's client of the geoservice catalogue (`/api/v1/`, spec/catalogue-api.md) and of the
 * import route. Plain fetch: the backend is the same-origin service worker or Node host.
 */

import { apiUrl } from './base.ts'

export type ServiceType = 'tms' | 'wms' | 'wfs' | 'geojson'

export interface GeoserviceItem {
  id: number
  guid: string
  name: string
  desc: string | null
  type: ServiceType
  epsg: number | null
  icon: number | null
  cumulative_status: string | null
  extent: string | null
}

export interface GeoserviceDetail extends GeoserviceItem {
  url: string
  origin_url?: string
  alt_urls?: string[]
  z_min?: number | null
  z_max?: number | null
  y_origin_top?: boolean
  params?: string | null
  layers?: string | null
  format?: string | null
  license_name: string | null
  license_url: string | null
  copyright_text: string | null
  copyright_url: string | null
  terms_of_use_url: string | null
}

export interface SearchQuery {
  search?: string
  type?: ServiceType | ''
  /** [minLon, minLat, maxLon, maxLat] in EPSG:4326: only services whose extent meets it. */
  bbox?: [number, number, number, number]
  limit?: number
}

export class CatalogueError extends Error {
  constructor(message: string, readonly status: number) { super(message) }
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(apiUrl(url))
  if (!res.ok) throw new CatalogueError(`The catalogue answered ${res.status}.`, res.status)
  return (await res.json()) as T
}

export async function searchGeoservices(q: SearchQuery): Promise<{ count: number; results: GeoserviceItem[] }> {
  const p = new URLSearchParams()
  if (q.search?.trim()) p.set('search', q.search.trim())
  if (q.type) p.set('type', q.type)
  if (q.bbox) {
    const [x0, y0, x1, y1] = q.bbox
    p.set('intersects_extent', `SRID=4326;POLYGON((${x0} ${y0}, ${x1} ${y0}, ${x1} ${y1}, ${x0} ${y1}, ${x0} ${y0}))`)
  }
  p.set('limit', String(q.limit ?? 50))
  return getJson(`/api/v1/geoservices/?${p}`)
}

export const getGeoservice = (id: number) => getJson<GeoserviceDetail>(`/api/v1/geoservices/${id}/`)

export function iconUrl(icon: number | null, size = 24): string {
  return apiUrl(icon === null ? `/api/v1/icons/default?width=${size}&height=${size}` : `/api/v1/icons/${icon}/content?width=${size}&height=${size}`)
}

function toBase64(bytes: Uint8Array): string {
  let s = ''
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(s)
}

/**
 * Imports a catalogue folder chosen with a directory picker (the QMS data layout:
 * geoservices.json, icons.json, icons/<id>.png, geoservice_status*.json). Needs an administrator.
 */
export async function importCatalogueFiles(files: File[]): Promise<{ geoservices: number; icons: number; geoservice_status: number }> {
  // Paths relative to the chosen folder: drop the folder's own name.
  const byPath = new Map(files.map((f) => [(f.webkitRelativePath || f.name).split('/').slice(1).join('/') || f.name, f]))
  const text = async (name: string) => { const f = byPath.get(name); return f ? JSON.parse(await f.text()) : undefined }
  const geoservices = await text('geoservices.json')
  if (!geoservices) throw new CatalogueError('The folder has no geoservices.json.', 422)
  const iconList = ((await text('icons.json')) ?? []) as Array<{ id: number }>
  const icons = await Promise.all(iconList.map(async (i) => {
    const f = byPath.get(`icons/${i.id}.png`)
    if (!f) throw new CatalogueError(`The folder has no icons/${i.id}.png.`, 422)
    return { ...i, content: toBase64(new Uint8Array(await f.arrayBuffer())) }
  }))
  const statuses = (await text('geoservice_status.json')) ?? (await text('geoservice_status.synthetic.json')) ?? []
  const def = byPath.get('icons/default.png')
  const body = { geoservices, icons, geoservice_status: statuses, ...(def ? { default_icon: toBase64(new Uint8Array(await def.arrayBuffer())) } : {}) }
  const res = await fetch(apiUrl('/api/component/outpost/catalogue/import'), { method: 'POST', body: JSON.stringify(body), credentials: 'include' })
  const out = await res.json().catch(() => ({}))
  if (!res.ok) throw new CatalogueError(out.message ?? out.title ?? `Import failed (${res.status}).`, res.status)
  return out
}
