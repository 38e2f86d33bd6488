/**
 * @module feature/attachment/routes
 * `feature_attachment.*` (spec §4.6–§4.7, reference §6): list, create, read, change and delete
 * a feature's attachments, download their bytes and image thumbnails. Reads are open to
 * everyone; writes need an administrator (anyone else gets 403).
 */
import { fileHeaders } from '../../core/media-type.ts'
import { internalServerError } from '../../core/error.ts'
import { quotePlus } from '../../core/text.ts'
import { json, readJsonObject } from '../../core/http.ts'
import { onPath, type RequestContext, type Routes } from '../../core/routes.ts'
import { lastValue, queryBool, queryInt } from '../../core/validate.ts'
import type { FeatureVariables } from '../env.ts'
import type { AttachmentRow, FeatureLayer, FeatureRead } from '../types.ts'
import { featureNotFound } from '../errors.ts'
import { layerOf, writableLayerOf } from '../layer.ts'
import { attachmentJson, isImageMime } from '../serialize.ts'
import { writeFeatures, type FeatureWriter, type Written } from '../write.ts'
import { addAttachment, changeAttachment, checkKeynames, parseFields, Staging } from './service.ts'
import { attachmentNotFound, imageNotReadable, invalidImageSize, notAnImage } from './errors.ts'
import { ImageError, thumbnail } from './image.ts'

type Ctx = RequestContext<FeatureVariables>

const COLLECTION = '/api/resource/{id}/feature/{fid}/attachment/'
const ITEM = `${COLLECTION}{aid}`

const num = (c: Ctx, name: string) => Number(c.req.param(name))

/** Writes as the request's user; the answer's `version` is added on versioned layers (reference §6). */
async function write<T>(c: Ctx, layer: FeatureLayer, fn: (w: FeatureWriter) => Promise<T>, staging?: Staging): Promise<Written<T>> {
  return writeFeatures(c.get('services'), layer, [], fn, { staging, userId: c.get('user').id })
}

const withVersion = (body: Record<string, unknown>, w: Written<unknown>) =>
  (w.version === undefined ? body : { ...body, version: w.version })

/** Attachment `aid` of feature `fid` or the original's 404. */
async function rowOf(tx: FeatureRead, layer: FeatureLayer, fid: number, aid: number): Promise<AttachmentRow> {
  const row = await tx.attachment(fid, aid)
  if (!row) throw attachmentNotFound(layer.meta.resourceId, fid, aid)
  return row
}

/** The attachment's bytes; a row without its blob is a broken store, not a user error. */
async function bytesOf(c: Ctx, row: AttachmentRow): Promise<Uint8Array> {
  const bytes = await c.get('services').data.blobs.getBlob(row.blob_id)
  if (bytes) return bytes
  if (row.size === 0) return new Uint8Array(0)
  throw internalServerError(new Error(`The bytes of attachment ${row.id} are missing from the store.`))
}

/** Python's `mimetypes.guess_extension` for the types attachments usually have. */
const EXTENSIONS: Record<string, string> = {
  'image/jpeg': '.jpg', 'image/png': '.png', 'image/gif': '.gif', 'image/webp': '.webp', 'image/tiff': '.tiff',
  'image/svg+xml': '.svg', 'text/plain': '.txt', 'text/csv': '.csv', 'text/html': '.html', 'application/pdf': '.pdf',
  'application/zip': '.zip', 'application/json': '.json', 'application/xml': '.xml', 'application/octet-stream': '.bin',
  'audio/mpeg': '.mp3', 'video/mp4': '.mp4',
}

function body(bytes: Uint8Array): ArrayBuffer {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
    ? bytes.buffer : bytes.slice().buffer as ArrayBuffer
}

export function mountAttachment(routes: Routes<FeatureVariables>): void {
  routes.add('feature_attachment.collection', COLLECTION, ['GET', 'POST'], { GET: onPath('data', 'read'), POST: onPath('data', 'write') }, async (c) => {
    const fid = num(c, 'fid')
    if (c.req.method === 'GET') {
      // The feature's existence is not checked, as in the original: a missing one has none.
      const layer = await layerOf(c)
      return json(await layer.read(async (tx) => ((await tx.attachments([fid])).get(fid) ?? []).map(attachmentJson)))
    }
    const layer = await writableLayerOf(c)
    const req = await readJsonObject(c.req.raw)
    if (!await layer.read((tx) => tx.exists(fid))) throw featureNotFound(layer.meta.resourceId, fid)
    const fields = parseFields(req, '$')
    const staging = new Staging(c.get('services'), layer.meta.resourceId)
    const file = await staging.commit(() => staging.stage(req, '$'))
    const written = await write(c, layer, async ({ tx }) => {
      if (!await tx.exists(fid)) throw featureNotFound(layer.meta.resourceId, fid)
      const aid = await addAttachment(tx, fid, fields, file)
      await checkKeynames(tx, fid)
      return aid
    }, staging)
    return json(withVersion({ id: written.result }, written))
  })

  routes.add('feature_attachment.item', ITEM, ['GET', 'PUT', 'DELETE'], { GET: onPath('data', 'read'), PUT: onPath('data', 'write'), DELETE: onPath('data', 'write') }, async (c) => {
    const fid = num(c, 'fid'), aid = num(c, 'aid')
    if (c.req.method === 'GET') {
      const layer = await layerOf(c)
      return json(attachmentJson(await layer.read((tx) => rowOf(tx, layer, fid, aid))))
    }
    const layer = await writableLayerOf(c)
    if (c.req.method === 'DELETE') {
      await write(c, layer, async ({ tx }) => tx.removeAttachment(await rowOf(tx, layer, fid, aid)))
      return json(null) // the original's body (reference §6)
    }
    const req = await readJsonObject(c.req.raw)
    await layer.read((tx) => rowOf(tx, layer, fid, aid))
    const fields = parseFields(req, '$')
    const staging = new Staging(c.get('services'), layer.meta.resourceId)
    const file = req.file_upload === undefined || req.file_upload === null ? undefined
      : await staging.commit(() => staging.stage(req, '$'))
    const written = await write(c, layer, async ({ tx }) => {
      await changeAttachment(tx, await rowOf(tx, layer, fid, aid), fields, file)
      await checkKeynames(tx, fid)
    }, staging)
    return json(withVersion({ id: aid }, written))
  })

  routes.add('feature_attachment.download', `${ITEM}/download`, 'GET', onPath('data', 'read'), async (c) => {
    const fid = num(c, 'fid'), aid = num(c, 'aid')
    // `fileobj`: one of the files the attachment had (the changes feed names them, reference §12).
    const fileobj = queryInt(new URL(c.req.url).searchParams, 'fileobj')
    const layer = await layerOf(c)
    const row = await layer.read(async (tx) => {
      const current = await tx.attachment(fid, aid)
      if (fileobj === undefined || current?.fileobj === fileobj) return rowOf(tx, layer, fid, aid)
      const blob = tx.history && await tx.history.attachmentVersion(fid, aid) && await tx.history.attachmentBlob(aid, fileobj)
      if (!blob) throw attachmentNotFound(layer.meta.resourceId, fid, aid)
      return { ...(current ?? { id: aid, fid, keyname: null, name: null, mime_type: 'application/octet-stream',
        description: null, file_meta: null }), blob_id: blob, size: -1, fileobj }
    })
    const bytes = await bytesOf(c, row)
    const name = row.name || `unnamed${row.id}${EXTENSIONS[row.mime_type] ?? ''}`
    return new Response(body(bytes), { headers: fileHeaders(row.mime_type, `filename*=utf-8''${quotePlus(name)}`) })
  })

  routes.add('feature_attachment.image', `${ITEM}/image`, 'GET', onPath('data', 'read'), async (c) => {
    const fid = num(c, 'fid'), aid = num(c, 'aid')
    const params = new URL(c.req.url).searchParams
    const size = lastValue(params, 'size')
    let box: [number, number] | undefined
    if (size !== undefined) {
      const m = /^(\d+)x(\d+)$/.exec(size)
      if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw invalidImageSize(size)
      box = [Number(m[1]), Number(m[2])]
    }
    const crop = queryBool(params, 'crop', false)
    const layer = await layerOf(c)
    const row = await layer.read((tx) => rowOf(tx, layer, fid, aid))
    if (!isImageMime(row.mime_type)) throw notAnImage(row.mime_type)
    let bytes = await bytesOf(c, row)
    if (box) {
      try {
        bytes = thumbnail(bytes, row.mime_type, box[0], box[1], crop)
      } catch (err) {
        if (err instanceof ImageError) throw imageNotReadable(err.message)
        throw err
      }
    }
    return new Response(body(bytes), { headers: { 'content-type': row.mime_type, 'x-content-type-options': 'nosniff' } })
  })
}
