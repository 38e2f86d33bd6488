/**
 * @module api/ingest
 * Layers from files: upload a file (`file_upload`), ask what GDAL sees in it (Outpost's
 * inspect endpoint), create a layer from it while watching the server's progress (a token
 * sent with the create, polled at `/api/component/outpost/progress/{token}`).
 */
import { request, type ErrorBody } from './request.ts'

/** What the upload endpoint answers: the `source` of a layer. */
export interface UploadRecord { id: string; size: number; name?: string; mime_type?: string }

export interface SourceLayerSummary {
  name: string
  feature_count: number | null
  geometry_type: string | null
  fields: Array<{ name: string; type: string }>
  srs: string | null
}
export interface SourceSummary { driver: string; encoding?: string; layers: SourceLayerSummary[] }

export interface IngestProgress {
  state: 'running' | 'done' | 'failed'
  stage: string
  done: number
  total: number | null
  result?: { id: number }
  error?: ErrorBody
}

export async function uploadFile(file: File, signal?: AbortSignal): Promise<UploadRecord> {
  const form = new FormData()
  form.append('file', file, file.name)
  const res = await request<{ upload_meta: UploadRecord[] }>('/api/component/file_upload/', { method: 'POST', body: form, signal })
  return res.upload_meta[0]!
}

export const inspectUpload = (source: UploadRecord & { encoding?: string }) =>
  request<SourceSummary>('/api/component/outpost/ingest/inspect', { method: 'POST', json: { source } })

/** A token for the progress of one request: random, unguessable, URL-safe. */
export function progressToken(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')
}

/** Creates a resource (a layer from a file), reporting its progress under `token`. */
export const createWithProgress = (body: Record<string, unknown>, token: string) =>
  request<{ id: number }>('/api/resource/', { method: 'POST', json: body, headers: { 'X-Outpost-Progress': token } })

/** The progress reported under `token`; `undefined` until the server has started the work. */
export async function progressOf(token: string, signal?: AbortSignal): Promise<IngestProgress | undefined> {
  try {
    return await request<IngestProgress>(`/api/component/outpost/progress/${token}`, { signal })
  } catch (err) {
    if ((err as { status?: number }).status === 404) return undefined
    throw err
  }
}
