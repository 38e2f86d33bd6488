/**
 * @module upload/routes
 * `file_upload.collection`, `file_upload.item` and the legacy `file_upload.upload`
 * (spec §4.10, reference §7): multipart POST, raw PUT, and TUS 1.0.0 (creation, termination).
 */
import { pageNotFound, validationError } from '../core/error.ts'
import { json } from '../core/http.ts'
import { PUBLIC, type RequestContext, type Routes } from '../core/routes.ts'
import { bodyChunks } from '../core/limits.ts'
import { dispositionName, sanitizeName } from './body.ts'
import { fileUploadNotCompleted, fileUploadNotFound, offsetConflict, unsupportedMediaType, uploadQuotaExceeded, uploadTooLarge } from './errors.ts'
import {
  deleteUpload, discardStaged, findUpload, recordUploads, stageUpload, storeUploads, toRecord, tusAppend, tusCreate, uploadCutoff,
} from './service.ts'
import { uploadMaxSize } from './limits.ts'
import type { Principal } from '../auth/types.ts'
import { readForm } from './multipart.ts'
import { pendingBytes, uploadQuota } from './stream.ts'
import { intHeader, isTusRequest, parseUploadMetadata, TUS_CONTENT_TYPE, TUS_EXTENSIONS, TUS_VERSION, tusResponse } from './tus.ts'
import type { UploadInfo } from './types.ts'
import type { UploadServices } from './env.ts'
import { normalizeUploadId } from './upload-id.ts'

/** The upload component's context: anonymous uploads have a quota of their own. */
export interface UploadVariables {
  services: UploadServices
  user: Principal
}

type Ctx = RequestContext<UploadVariables>

const COLLECTION = '/api/component/file_upload/'

/** Media type without parameters, lowercased. */
const mediaType = (v: string | undefined) => (v ?? '').split(';')[0]!.trim().toLowerCase()

/** OPTIONS: what TUS this server speaks. */
function collectionOptions(c: Ctx): Response {
  return new Response(null, { status: 204, headers: { 'Tus-Resumable': TUS_VERSION, 'Tus-Version': TUS_VERSION,
    'Tus-Extension': TUS_EXTENSIONS, 'Tus-Max-Size': String(uploadMaxSize(c.get('services').platform)) } })
}

/** POST: a TUS creation when `Tus-Resumable` is sent, a multipart form, or else a raw body. */
async function collectionPost(c: Ctx): Promise<Response> {
  if (isTusRequest(c.req.raw.headers)) return tusCreateRoute(c)
  if (mediaType(c.req.header('content-type')) === 'multipart/form-data') return formPost(c)
  // The spec accepts a raw body POSTed to the legacy path; the original has no such case for
  // the collection (a 500), so both paths take it.
  return rawPut(c)
}

/**
 * How much the request may upload: `max` bytes per file, the host's limit, and for an
 * anonymous uploader `room`, what is left of the quota (`quota` is then set, for the check
 * inside the write); `Infinity` for a logged-in user.
 */
interface Budget { max: number; room: number; quota?: number }

async function uploadBudget(c: Ctx): Promise<Budget> {
  const services = c.get('services')
  const max = uploadMaxSize(services.platform)
  if (!c.get('user').isGuest) return { max, room: Infinity }
  const quota = uploadQuota(services.platform)
  return { max, room: Math.max(0, quota - await pendingBytes(services, uploadCutoff(services.platform))), quota }
}

/** The 413 or 402 for a file past `Math.min(b.max, b.room)` bytes. */
const overBudget = (b: Budget) => () => (b.room < b.max ? uploadQuotaExceeded(b.quota!) : uploadTooLarge(b.max))

/**
 * Multipart: `files[]` (several) or `file` (one, named by the `name` field if sent). Each file
 * part streams into its blob while the form is read; the parts that do not count (a repeated
 * `file`, files beside `files[]`) and everything of a refused form are deleted again.
 */
async function formPost(c: Ctx): Promise<Response> {
  const services = c.get('services')
  const budget = await uploadBudget(c)
  // The whole form counts against an anonymous uploader's quota; each file against the size limit.
  const body = bodyChunks(c.req.raw, budget.room, () => uploadQuotaExceeded(budget.quota!))
  const entries = await readForm(c.req.header('content-type') ?? '', body,
    { maxFile: budget.max, fileTooLarge: () => uploadTooLarge(budget.max) },
    (part, chunks) => stageUpload(services, { bytes: chunks, name: sanitizeName(part.filename), mimeType: part.type }),
    (staged) => discardStaged(services, staged))
  const all = await Promise.all(entries.map(async (e) => ({ name: e.name, text: 'text' in e ? e.text : undefined,
    file: 'file' in e ? await e.file : undefined })))
  const many = all.filter((e) => e.name === 'files[]')
  const field = many.length ? 'files[]' : 'file'
  // A repeated `file` counts once, the last, as webob's MultiDict reads it.
  const values = many.length ? many : all.filter((e) => e.name === 'file').slice(-1)
  const chosen = values.flatMap((v) => (v.file ? [v.file] : []))
  await discardStaged(services, all.flatMap((e) => (e.file && !chosen.includes(e.file) ? [e.file] : [])))
  if (!values.length || chosen.length < values.length) {
    await discardStaged(services, chosen)
    if (!values.length) throw validationError('The form has no `file` or `files[]` field.', { location: ['body', 'file'] })
    throw validationError(`Expected a file, got a text value - at form field \`${field}\``, { location: ['body', field] })
  }
  const name = all.filter((e) => e.name === 'name' && e.text !== undefined).pop()?.text
  // The spec names the file by the `name` field; the original reads only the part's filename.
  if (field === 'file' && name !== undefined && sanitizeName(name)) chosen[0]!.name = sanitizeName(name)
  return json({ upload_meta: await recordUploads(services, chosen, budget.quota) })
}

/** PUT (or a non-form POST): the body is the file, streamed into the store. 201 with one record, no wrapper. */
async function rawPut(c: Ctx): Promise<Response> {
  const budget = await uploadBudget(c)
  const type = c.req.header('content-type')
  // As the original, a form content type (curl's default) says nothing about the file.
  const mimeType = type && mediaType(type) !== 'application/x-www-form-urlencoded' ? type : undefined
  const [record] = await storeUploads(c.get('services'), [{ bytes: bodyChunks(c.req.raw, Math.min(budget.max, budget.room), overBudget(budget)), mimeType,
    name: dispositionName(c.req.header('content-disposition') ?? null) }], budget.quota)
  return json(record, 201)
}

async function tusCreateRoute(c: Ctx): Promise<Response> {
  const headers = c.req.raw.headers
  const size = intHeader(headers, 'upload-length')
  const budget = await uploadBudget(c)
  if (size > Math.min(budget.max, budget.room)) throw overBudget(budget)()
  const meta = parseUploadMetadata(headers.get('upload-metadata'))
  const id = await tusCreate(c.get('services'), size, sanitizeName(meta.name), meta.mime_type || undefined, budget.quota)
  // Absolute, as the original's route_url: clients take the id from its last segment.
  return tusResponse(201, { Location: new URL(COLLECTION + id, c.req.url).href })
}

/** The upload named by the path; a malformed id matches no route, an unknown one is a 404. */
async function itemOf(c: Ctx): Promise<UploadInfo> {
  const raw = c.req.param('id') ?? ''
  const id = normalizeUploadId(raw)
  if (!id) throw pageNotFound()
  const info = await findUpload(c.get('services'), id)
  if (!info) throw fileUploadNotFound(id, 404)
  return info
}

/** GET the record; HEAD (which the router hands to GET) answers the TUS offset. */
async function itemGet(c: Ctx): Promise<Response> {
  const info = await itemOf(c)
  if (c.req.method === 'HEAD') {
    isTusRequest(c.req.raw.headers, true)
    return tusResponse(200, { 'Upload-Offset': String(info.received), 'Upload-Length': String(info.size),
      'Cache-Control': 'no-store' })
  }
  if (info.incomplete) throw fileUploadNotCompleted(info.id)
  return json(toRecord(info))
}

/** TUS PATCH: append the body at `Upload-Offset`. */
async function itemPatch(c: Ctx): Promise<Response> {
  const info = await itemOf(c)
  if (mediaType(c.req.header('content-type')) !== TUS_CONTENT_TYPE) throw unsupportedMediaType()
  const offset = intHeader(c.req.raw.headers, 'upload-offset')
  const left = info.size - offset
  const pastEnd = () => uploadTooLarge(info.size, `The chunk goes past the declared Upload-Length of ${info.size} bytes.`)
  const declared = c.req.header('content-length')
  if (declared && offset + Number(declared) > info.size) throw pastEnd()
  if (offset !== info.received) throw offsetConflict(offset, info.received)
  const end = await tusAppend(c.get('services'), info, offset, bodyChunks(c.req.raw, Math.max(left, 0), pastEnd))
  return tusResponse(204, { 'Upload-Offset': String(end) })
}

/** TUS termination, also the way to drop any upload early. */
async function itemDelete(c: Ctx): Promise<Response> {
  const info = await itemOf(c)
  if (!(await deleteUpload(c.get('services'), info.id))) throw fileUploadNotFound(info.id, 404)
  return tusResponse(204)
}

export function mountUpload(routes: Routes<UploadVariables>): void {
  // Before the item route, whose `{id}` would otherwise also see "upload".
  routes.add('file_upload.upload', '/api/component/file_upload/upload', ['POST', 'PUT'], PUBLIC('uploads are staging, with the anonymous quota (docs/upload.md)'), (c) =>
    c.req.method === 'PUT' ? rawPut(c) : collectionPost(c))
  routes.add('file_upload.collection', COLLECTION, ['OPTIONS', 'POST', 'PUT'], PUBLIC('uploads are staging, with the anonymous quota (docs/upload.md)'), (c) => {
    if (c.req.method === 'OPTIONS') return collectionOptions(c)
    return c.req.method === 'PUT' ? rawPut(c) : collectionPost(c)
  })
  routes.add('file_upload.item', '/api/component/file_upload/{id}', ['GET', 'PATCH', 'DELETE'], PUBLIC('an upload is named by its unguessable id'), (c) => {
    if (c.req.method === 'PATCH') return itemPatch(c)
    return c.req.method === 'DELETE' ? itemDelete(c) : itemGet(c)
  }, { id: '[^/]+' })
}
