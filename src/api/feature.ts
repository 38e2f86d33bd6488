/**
 * @module api/feature
 * Features of a vector layer (spec §4.3–§4.6), file uploads and feature attachments, as the
 * field-collection views use them: geometries as GeoJSON in Web Mercator (the map's
 * projection, `srs=3857` on reads and writes) and dates as ISO strings (`dt_format=iso`).
 */
import { apiUrl } from './base.ts'
import { NetworkError, request, ServerError } from './request.ts'

/** A GeoJSON geometry (the layer's type; coordinates in EPSG:3857). */
export interface Geometry { type: string; coordinates: unknown }

export type FieldValue = string | number | boolean | null

export interface Attachment {
  id: number
  name: string | null
  keyname?: string | null
  size: number
  mime_type: string
  description?: string | null
  is_image?: boolean
}

export interface Feature {
  id: number
  label?: string
  geom: Geometry | null
  fields: Record<string, FieldValue>
  extensions?: { attachment?: Attachment[] | null; description?: string | null }
}

/** What the listing, the count and the table share: filters by the original's query names. */
export interface FeatureQuery {
  /** Case-insensitive text search over the layer's text-search fields. */
  ilike?: string
  /** `fld_<keyname>[__<op>]` → value. */
  filters?: Record<string, string>
  /** `name` or `-name` (descending). */
  orderBy?: string
  limit?: number
  offset?: number
}

const READ = { geom_format: 'geojson', srs: 3857, dt_format: 'iso' } as const
const WRITE = { geom_format: 'geojson', srs: 3857, dt_format: 'iso' } as const

function queryOf(q: FeatureQuery): Record<string, string | number | undefined> {
  const out: Record<string, string | number | undefined> = {}
  if (q.ilike) out.ilike = q.ilike
  for (const [k, v] of Object.entries(q.filters ?? {})) if (v !== '') out[k] = v
  if (q.orderBy) out.order_by = q.orderBy
  if (q.limit !== undefined) {
    out.limit = q.limit
    out.offset = q.offset ?? 0
  }
  return out
}

export const listFeatures = (layer: number, q: FeatureQuery = {}, signal?: AbortSignal) =>
  request<Feature[]>(`/api/resource/${layer}/feature/`, { query: { ...READ, label: 'true', ...queryOf(q) }, signal })

export const countFeatures = (layer: number, q: FeatureQuery = {}) =>
  request<{ total_count: number; filtered_count?: number }>(`/api/resource/${layer}/feature_count`,
    { query: { ...queryOf({ ...q, limit: undefined, orderBy: undefined }) } })

export const getFeature = (layer: number, fid: number) =>
  request<Feature>(`/api/resource/${layer}/feature/${fid}`, { query: { ...READ } })

/**
 * An item of `extensions.attachment` in a feature write, which is the feature's whole list:
 * `{id}` keeps that attachment, an item with `file_upload` attaches an uploaded file, and
 * attachments not listed are deleted — all in the feature's one transaction.
 */
export type AttachmentWrite =
  | { id: number }
  | { file_upload: { id: string; size: number }; name?: string; mime_type?: string }

export interface FeatureWrite {
  geom?: Geometry
  fields?: Record<string, FieldValue>
  extensions?: { attachment?: AttachmentWrite[] }
}

export const createFeature = (layer: number, body: FeatureWrite) =>
  request<{ id: number }>(`/api/resource/${layer}/feature/`, { method: 'POST', query: { ...WRITE }, json: body })

export const updateFeature = (layer: number, fid: number, body: FeatureWrite) =>
  request<{ id: number }>(`/api/resource/${layer}/feature/${fid}`, { method: 'PUT', query: { ...WRITE }, json: body })

export const deleteFeature = (layer: number, fid: number) =>
  request<{ id: number }>(`/api/resource/${layer}/feature/${fid}`, { method: 'DELETE' })

export interface UploadMeta { id: string; size: number; name: string; mime_type: string }

/** Uploads one file (multipart, field `file`); the answer refers to it in later requests. */
export async function uploadFile(file: Blob, name: string): Promise<UploadMeta> {
  const form = new FormData()
  form.append('file', file, name)
  let res: Response
  try {
    res = await fetch(apiUrl('/api/component/file_upload/'), { method: 'POST', body: form, credentials: 'include' })
  } catch (err) {
    throw new NetworkError('The server could not be reached (file upload).', { cause: err })
  }
  const body = await res.json().catch(() => undefined)
  if (!res.ok || !body?.upload_meta?.[0]) {
    throw new ServerError(body?.title ? body : { title: `HTTP ${res.status}`, message: 'The upload failed.',
      status_code: res.status, exception: 'unknown' })
  }
  return body.upload_meta[0] as UploadMeta
}

const attachments = (layer: number, fid: number) => `/api/resource/${layer}/feature/${fid}/attachment/`

export const listAttachments = (layer: number, fid: number) => request<Attachment[]>(attachments(layer, fid))

/** The extension item that attaches an uploaded file. */
export const attachUpload = (u: UploadMeta): AttachmentWrite =>
  ({ file_upload: { id: u.id, size: u.size }, name: u.name, mime_type: u.mime_type })

export const thumbnailUrl = (layer: number, fid: number, aid: number, size = 160) =>
  apiUrl(`${attachments(layer, fid)}${aid}/image?size=${size}x${size}`)

export const downloadUrl = (layer: number, fid: number, aid: number) => apiUrl(`${attachments(layer, fid)}${aid}/download`)
