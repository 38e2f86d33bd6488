/**
 * @module feature/attachment-routes
 * `feature_attachment.*` (spec §4.6–§4.7, reference §6): list, create, read, change and delete
 * a feature's attachments, download their bytes and image thumbnails. Reads are open to
 * everyone; writes need an administrator (anyone else gets 403).
 */
import type { Context } from 'hono'
import type { AppEnv } from '../core/env.ts'
import { internalServerError } from '../core/error.ts'
import { json, readJsonObject } from '../core/http.ts'
import type { RouteTable } from '../core/routes.ts'
import { lastValue, queryBool } from '../core/validate.ts'
import { fileHeaders } from '../core/media-type.ts'
import { requireAdmin } from '../auth/middleware.ts'
import { layersOf, type Layer } from './layers.ts'
import { FEATURE_TABLE, type LayerMeta } from './schema.ts'
import type { SqlDb } from '../store/database.ts'
import { featureNotFound } from './errors.ts'
import { attachmentJson, writeFeatures, type FeatureWriter } from './service.ts'
import {
  checkKeynames, deleteAttachment, getAttachment, insertAttachment, isImageMime, listAttachments, parseFields, Staging,
  updateAttachment, type AttachmentRow,
} from './attachment-service.ts'
import { attachmentNotFound, imageNotReadable, invalidImageSize, notAnImage } from './attachment-errors.ts'
import { ImageError, thumbnail } from './attachment-image.ts'

const COLLECTION = '/api/resource/{id}/feature/{fid}/attachment/'
const ITEM = `${COLLECTION}{aid}`

const num = (c: Context<AppEnv>, name: string) => Number(c.req.param(name))

async function open(c: Context<AppEnv>): Promise<{ meta: LayerMeta; layer: Layer }> {
  const reg = layersOf(c.get('services'))
  const meta = await reg.meta(num(c, 'id'))
  return { meta, layer: await reg.open(meta) }
}

/** The layer, once the user may write it. */
async function openWritable(c: Context<AppEnv>): Promise<{ meta: LayerMeta; layer: Layer }> {
  const reg = layersOf(c.get('services'))
  const meta = await reg.meta(num(c, 'id'))
  requireAdmin(c.get('user'), 'write', 'data', meta.resourceId)
  return { meta, layer: await reg.open(meta) }
}

function write<T>(c: Context<AppEnv>, layer: Layer, meta: LayerMeta, fn: (w: FeatureWriter) => T): Promise<T> {
  const { platform } = c.get('services')
  return writeFeatures(layer, meta, platform.now(), (id) => platform.store.deleteBlob(id), fn)
}

/** Attachment `aid` of feature `fid` or the original's 404. */
function rowOf(db: SqlDb, meta: LayerMeta, fid: number, aid: number): AttachmentRow {
  const row = getAttachment(db, fid, aid)
  if (!row) throw attachmentNotFound(meta.resourceId, fid, aid)
  return row
}

/** The attachment's bytes; a row without its blob is a broken store, not a user error. */
async function bytesOf(c: Context<AppEnv>, row: AttachmentRow): Promise<Uint8Array> {
  const bytes = await c.get('services').platform.store.getBlob(row.blob_id)
  if (bytes) return bytes
  if (row.size === 0) return new Uint8Array(0)
  throw internalServerError(new Error(`The bytes of attachment ${row.id} are missing from the store.`))
}

/** Python's `urllib.parse.quote_plus` with its default `safe=''`. */
export function quotePlus(s: string): string {
  return Array.from(new TextEncoder().encode(s), (b) => {
    const ch = String.fromCharCode(b)
    if (/[A-Za-z0-9_.~-]/.test(ch)) return ch
    return b === 0x20 ? '+' : `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  }).join('')
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

export function mountAttachment(routes: RouteTable): void {
  routes.add('feature_attachment.collection', COLLECTION, ['GET', 'POST'], async (c) => {
    const fid = num(c, 'fid')
    if (c.req.method === 'GET') {
      // The feature's existence is not checked, as in the original: a missing one has none.
      const { layer } = await open(c)
      return json(await layer.db.read((db) => listAttachments(db, fid)))
    }
    const { meta, layer } = await openWritable(c)
    const req = await readJsonObject(c.req.raw)
    const exists = (db: SqlDb) => db.selectValue(`SELECT 1 FROM ${FEATURE_TABLE} WHERE fid = ?`, [fid]) !== undefined
    if (!await layer.db.read(exists)) throw featureNotFound(meta.resourceId, fid)
    const fields = parseFields(req, '$')
    const staging = new Staging(c.get('services'), meta.resourceId)
    const id = await staging.commit(async () => {
      const file = await staging.stage(req, '$')
      return write(c, layer, meta, (w) => {
        if (!exists(w.db)) throw featureNotFound(meta.resourceId, fid)
        const aid = insertAttachment(w.db, fid, fields, file)
        checkKeynames(w.db, fid)
        return aid
      })
    })
    return json({ id })
  })

  routes.add('feature_attachment.item', ITEM, ['GET', 'PUT', 'DELETE'], async (c) => {
    const fid = num(c, 'fid'), aid = num(c, 'aid')
    if (c.req.method === 'GET') {
      const { meta, layer } = await open(c)
      return json(attachmentJson(await layer.db.read((db) => rowOf(db, meta, fid, aid))))
    }
    const { meta, layer } = await openWritable(c)
    if (c.req.method === 'DELETE') {
      await write(c, layer, meta, (w) => deleteAttachment(w.db, rowOf(w.db, meta, fid, aid), w.orphanBlobs))
      return json(null) // the original's body (reference §6)
    }
    const req = await readJsonObject(c.req.raw)
    await layer.db.read((db) => rowOf(db, meta, fid, aid))
    const fields = parseFields(req, '$')
    const staging = new Staging(c.get('services'), meta.resourceId)
    await staging.commit(async () => {
      const file = req.file_upload === undefined || req.file_upload === null ? undefined : await staging.stage(req, '$')
      await write(c, layer, meta, (w) => {
        updateAttachment(w.db, rowOf(w.db, meta, fid, aid), fields, file, w.orphanBlobs)
        checkKeynames(w.db, fid)
      })
    })
    return json({ id: aid })
  })

  routes.add('feature_attachment.download', `${ITEM}/download`, 'GET', async (c) => {
    const fid = num(c, 'fid'), aid = num(c, 'aid')
    const { meta, layer } = await open(c)
    const row = await layer.db.read((db) => rowOf(db, meta, fid, aid))
    const bytes = await bytesOf(c, row)
    const name = row.name || `unnamed${row.id}${EXTENSIONS[row.mime_type] ?? ''}`
    return new Response(body(bytes), { headers: fileHeaders(row.mime_type, `filename*=utf-8''${quotePlus(name)}`) })
  })

  routes.add('feature_attachment.image', `${ITEM}/image`, 'GET', async (c) => {
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
    const { meta, layer } = await open(c)
    const row = await layer.db.read((db) => rowOf(db, meta, fid, aid))
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
