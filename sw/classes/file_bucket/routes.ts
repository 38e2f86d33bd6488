/**
 * @module classes/file_bucket/routes
 * `resource.file_download` (`/api/resource/{id}/file/{name}`, one file with its media type)
 * and `file_bucket.export` (`/api/resource/{id}/export`, the whole bucket as a ZIP, as the
 * original's `resource.export` does for buckets). Both stream from the store.
 */
import { Zip, ZipPassThrough } from 'fflate'
import type { Context } from 'hono'
import type { AppEnv } from '../../core/env.ts'
import { ApiError } from '../../core/error.ts'
import type { RouteTable } from '../../core/routes.ts'
import { resourceNotFound } from '../../resource/errors.ts'
import { getRow } from '../../resource/service.ts'
import { attachment, fileResponse } from '../../files/http.ts'
import { readRange, FILE_CHUNK } from '../../files/service.ts'
import type { Store } from '../../store/store.ts'
import { bucketFiles, type BucketFile } from './index.ts'

const fileNotFound = (id: number, name: string) => new ApiError(404, 'File not found', {
  message: `File '${name}' was not found in file bucket id = ${id}.`, data: { resource_id: id, name },
  exception: 'nextgisweb.pyramid.exception.PyramidHTTPError' })

async function bucket(c: Context<AppEnv>): Promise<{ id: number; files: BucketFile[] }> {
  const id = Number(c.req.param('id'))
  const row = await c.get('services').main.read((db) => getRow(db, id))
  if (!row || row.cls !== 'file_bucket') throw resourceNotFound(id)
  return { id, files: bucketFiles(JSON.parse(row.data) as Record<string, unknown>) }
}

/** The files as one ZIP (stored, not recompressed), streamed file by file, chunk by chunk. */
function zipStream(store: Store, files: BucketFile[]): ReadableStream<Uint8Array> {
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

export function mountFileBucket(routes: RouteTable): void {
  routes.add('resource.file_download', '/api/resource/{id}/file/{name}', 'GET', async (c) => {
    const { id, files } = await bucket(c)
    const name = c.req.param('name') ?? ''
    const file = files.find((f) => f.name === name)
    if (!file) throw fileNotFound(id, name)
    return fileResponse(c.get('platform').store, file, { type: file.mime_type, disposition: attachment(file.name), range: c.req.header('range') })
  })

  routes.add('file_bucket.export', '/api/resource/{id}/export', 'GET', async (c) => {
    const { id, files } = await bucket(c)
    return new Response(zipStream(c.get('platform').store, files), { headers: { 'content-type': 'application/zip',
      'content-disposition': `attachment; filename=${id}.zip` } })
  })
}
