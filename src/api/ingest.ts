/**
 * @module api/ingest
 * Layers from files: upload a file (`file_upload`), ask what GDAL sees in it (Outpost's
 * inspect endpoint), create a layer from it while watching the server's progress (a token
 * sent with the create, polled at `/api/component/outpost/progress/{token}`), and cancel it
 * (DELETE on that token: the server stops the work and creates nothing).
 */
import { request, ServerError, type ErrorBody } from './request.ts'
import { deleteResource } from './resource.ts'

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

/** Deletes an upload nobody will use (the dialog was cancelled): it would wait for its expiry. */
export const deleteUpload = (id: string) =>
  request<void>(`/api/component/file_upload/${encodeURIComponent(id)}`, { method: 'DELETE' })

/**
 * Cancels the create reported under `token`, and makes sure it leaves nothing: when the server
 * had already finished (a 409 naming the result), or had not started yet (404: the create may
 * still come), what `create` answers is deleted.
 */
export async function cancelCreate(token: string, create: Promise<{ id: number }>): Promise<void> {
  try {
    await request<IngestProgress>(`/api/component/outpost/progress/${token}`, { method: 'DELETE' })
    return
  } catch (err) {
    const result = err instanceof ServerError ? (err.data.result as { id?: number } | undefined) : undefined
    if (result?.id !== undefined) { await deleteResource(result.id); return }
  }
  const made = await create.catch(() => undefined)
  if (made) await deleteResource(made.id)
}

/**
 * Starts GDAL in the server (the service worker) if it is not running, and answers how often it
 * was started: the dialog asks when it opens, so GDAL starts while the file uploads, and again
 * while it stays open, so the browser does not stop an idle worker (and its GDAL) meanwhile.
 */
export const startGdal = () =>
  request<{ starts: number; started: boolean; start_ms: number | null }>('/api/component/outpost/gdal/start', { method: 'POST' })
