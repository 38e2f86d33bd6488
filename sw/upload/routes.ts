/**
 * @module upload/routes
 * `file_upload.collection`, `file_upload.item` and the legacy `file_upload.upload`
 * (spec §4.10, reference §7): multipart POST, raw PUT, and TUS 1.0.0 (creation, termination).
 */
import { pageNotFound, validationError } from '../core/error.ts'
import { json } from '../core/http.ts'
import type { RequestContext, Routes } from '../core/routes.ts'
import { dispositionName, readBytes, sanitizeName } from './body.ts'
import { badRequest, fileUploadNotCompleted, fileUploadNotFound, offsetConflict, unsupportedMediaType, uploadTooLarge } from './errors.ts'
import { deleteUpload, findUpload, storeUploads, toRecord, tusAppend, tusCreate, type NewUpload } from './service.ts'
import { uploadMaxSize } from './limits.ts'
import { intHeader, isTusRequest, parseUploadMetadata, TUS_CONTENT_TYPE, TUS_EXTENSIONS, TUS_VERSION, tusResponse } from './tus.ts'
import type { UploadInfo, UploadServices } from './types.ts'
import { normalizeUploadId } from './upload-id.ts'

/** The upload component's context. */
export interface UploadVariables {
  services: UploadServices
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

/** Multipart: `files[]` (several) or `file` (one, named by the `name` field if sent). */
async function formPost(c: Ctx): Promise<Response> {
  const max = uploadMaxSize(c.get('services').platform)
  let form: FormData
  try {
    form = await c.req.raw.formData()
  } catch (err) {
    throw badRequest(`The multipart body could not be parsed: ${(err as Error).message}`)
  }
  const many = form.getAll('files[]')
  const field = many.length ? 'files[]' : 'file'
  // A repeated `file` counts once, the last, as webob's MultiDict reads it.
  const values = many.length ? many : form.getAll('file').slice(-1)
  if (!values.length) {
    throw validationError('The form has no `file` or `files[]` field.', { location: ['body', 'file'] })
  }
  // Every part is checked before any is stored: a refused form stores nothing.
  const parts: File[] = []
  for (const v of values) {
    if (typeof v === 'string') {
      throw validationError(`Expected a file, got a text value - at form field \`${field}\``, { location: ['body', field] })
    }
    if (v.size > max) throw uploadTooLarge(max)
    parts.push(v)
  }
  const files: NewUpload[] = []
  for (const f of parts) {
    files.push({ bytes: new Uint8Array(await f.arrayBuffer()), name: sanitizeName(f.name), mimeType: f.type || undefined })
  }
  const name = form.get('name')
  // The spec names the file by the `name` field; the original reads only the part's filename.
  if (field === 'file' && typeof name === 'string' && sanitizeName(name)) files[0]!.name = sanitizeName(name)
  return json({ upload_meta: await storeUploads(c.get('services'), files) })
}

/** PUT (or a non-form POST): the body is the file. 201 with one record, no wrapper. */
async function rawPut(c: Ctx): Promise<Response> {
  const bytes = await readBytes(c.req.raw, uploadMaxSize(c.get('services').platform))
  const type = c.req.header('content-type')
  // As the original, a form content type (curl's default) says nothing about the file.
  const mimeType = type && mediaType(type) !== 'application/x-www-form-urlencoded' ? type : undefined
  const [record] = await storeUploads(c.get('services'), [{ bytes, mimeType,
    name: dispositionName(c.req.header('content-disposition') ?? null) }])
  return json(record, 201)
}

async function tusCreateRoute(c: Ctx): Promise<Response> {
  const headers = c.req.raw.headers
  const size = intHeader(headers, 'upload-length')
  const max = uploadMaxSize(c.get('services').platform)
  if (size > max) throw uploadTooLarge(max)
  const meta = parseUploadMetadata(headers.get('upload-metadata'))
  const id = await tusCreate(c.get('services'), size, sanitizeName(meta.name), meta.mime_type || undefined)
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
  const bytes = await readBytes(c.req.raw, Math.max(left, 0), pastEnd)
  const end = await tusAppend(c.get('services'), info, offset, bytes)
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
  routes.add('file_upload.upload', '/api/component/file_upload/upload', ['POST', 'PUT'], (c) =>
    c.req.method === 'PUT' ? rawPut(c) : collectionPost(c))
  routes.add('file_upload.collection', COLLECTION, ['OPTIONS', 'POST', 'PUT'], (c) => {
    if (c.req.method === 'OPTIONS') return collectionOptions(c)
    return c.req.method === 'PUT' ? rawPut(c) : collectionPost(c)
  })
  routes.add('file_upload.item', '/api/component/file_upload/{id}', ['GET', 'PATCH', 'DELETE'], (c) => {
    if (c.req.method === 'PATCH') return itemPatch(c)
    return c.req.method === 'DELETE' ? itemDelete(c) : itemGet(c)
  }, { id: '[^/]+' })
}
