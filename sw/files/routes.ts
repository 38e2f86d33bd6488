/**
 * @module files/routes
 * Stored files of resources, for any class that provides them (`files/types.ts`):
 * - `raster_layer.download` (`/api/resource/{id}/download`) and `raster_layer.cog`
 *   (`/api/resource/{id}/cog`, GET and HEAD, with ranges), as the original's
 *   `raster_layer/api.py` serves a raster's GeoTIFF;
 * - `resource.file_download` (`/api/resource/{id}/file/{name}`), one file of a bucket, and
 *   `file_bucket.export` (`/api/resource/{id}/export`), the whole bucket as a ZIP.
 * Reading needs `data.read`, which everyone has. Everything streams from the store.
 */
import { Zip, ZipPassThrough } from 'fflate'
import { ApiError } from '../core/error.ts'
import { onPath, type RequestContext, type Routes } from '../core/routes.ts'
import { resourceNotFound } from '../resource/errors.ts'
import { attachment, fileResponse } from './http.ts'
import { FILE_CHUNK, readRange, type ChunkSource } from './service.ts'
import type { BucketFile, FilesVariables } from './types.ts'

type Ctx = RequestContext<FilesVariables>

const COG_TYPE = 'image/tiff; application=geotiff; profile=cloud-optimized'

const fileNotFound = (id: number, name: string) => new ApiError(404, 'File not found', {
  message: `File '${name}' was not found in file bucket id = ${id}.`, data: { resource_id: id, name },
  exception: 'nextgisweb.pyramid.exception.PyramidHTTPError' })

const idOf = (c: Ctx) => Number(c.req.param('id'))

async function rasterOf(c: Ctx) {
  const id = idOf(c)
  const file = await c.get('services').classes.rasterFile(id)
  if (!file) throw resourceNotFound(id)
  return { id, file }
}

async function bucketOf(c: Ctx): Promise<{ id: number; files: BucketFile[] }> {
  const id = idOf(c)
  const files = await c.get('services').classes.bucketFiles(id)
  if (!files) throw resourceNotFound(id)
  return { id, files }
}

/** The files as one ZIP (stored, not recompressed), streamed file by file, chunk by chunk. */
function zipStream(store: ChunkSource, files: BucketFile[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const zip = new Zip((err, chunk, final) => {
        if (err) { controller.error(err); return }
        controller.enqueue(chunk)
        if (final) controller.close()
      })
      void (async () => {
        try {
          for (const f of files) {
            const entry = new ZipPassThrough(f.name)
            zip.add(entry)
            if (f.size === 0) entry.push(new Uint8Array(0), true)
            for (let at = 0; at < f.size; at += FILE_CHUNK) {
              entry.push(await readRange(store, f, at, at + FILE_CHUNK), at + FILE_CHUNK >= f.size)
            }
          }
          zip.end()
        } catch (err) {
          controller.error(err)
        }
      })()
    },
  })
}

export function mountFiles(routes: Routes<FilesVariables>): void {
  routes.add('raster_layer.cog', '/api/resource/{id}/cog', ['GET', 'HEAD'], onPath('data', 'read'), async (c) => {
    const { file } = await rasterOf(c)
    return fileResponse(c.get('services').data.blobs, file, { type: COG_TYPE, range: c.req.header('range'), head: c.req.method === 'HEAD' })
  })

  routes.add('raster_layer.download', '/api/resource/{id}/download', 'GET', onPath('data', 'read'), async (c) => {
    const { id, file } = await rasterOf(c)
    return fileResponse(c.get('services').data.blobs, file, { type: 'image/tiff; application=geotiff',
      disposition: `attachment; filename=${id}.tif`, range: c.req.header('range') })
  })

  routes.add('resource.file_download', '/api/resource/{id}/file/{name}', 'GET', onPath('data', 'read'), async (c) => {
    const { id, files } = await bucketOf(c)
    const name = c.req.param('name') ?? ''
    const file = files.find((f) => f.name === name)
    if (!file) throw fileNotFound(id, name)
    return fileResponse(c.get('services').data.blobs, file, { type: file.mime_type, disposition: attachment(file.name), range: c.req.header('range') })
  })

  routes.add('file_bucket.export', '/api/resource/{id}/export', 'GET', onPath('data', 'read'), async (c) => {
    const { id, files } = await bucketOf(c)
    return new Response(zipStream(c.get('services').data.blobs, files), { headers: { 'content-type': 'application/zip',
      'content-disposition': `attachment; filename=${id}.zip` } })
  })
}
