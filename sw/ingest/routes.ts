/**
 * @module ingest/routes
 * Outpost's own ingest endpoints (the original has none of these):
 * - `POST /api/component/outpost/ingest/inspect` `{source: <upload record>}` → what GDAL sees in
 *   an uploaded file (driver, layers, fields with types, geometry type, feature count, SRS,
 *   encoding), so a person can choose before creating a layer;
 * - `GET /api/component/outpost/progress/{token}` → the progress of a long request sent with
 *   `X-Outpost-Progress: <token>` (see ingest/progress).
 */
import { ApiError, forbidden } from '../core/error.ts'
import { json, readJsonObject } from '../core/http.ts'
import type { RouteTable } from '../core/routes.ts'
import { expectObject } from '../core/validate.ts'
import { readUpload, resolveUploadRef } from '../upload/service.ts'
import { inspectSource } from './vector-convert.ts'
import { progressBoard, TOKEN_PATTERN } from './progress.ts'

const progressUnknown = () => new ApiError(404, 'Progress not found', {
  message: 'No request is reported under this token (it may have ended more than five minutes ago).',
  exception: 'nextgisweb.pyramid.exception.PyramidHTTPError' })

export function mountIngest(routes: RouteTable): void {
  routes.add('outpost.ingest.inspect', '/api/component/outpost/ingest/inspect', 'POST', async (c) => {
    if (!c.get('user').isAdmin) throw forbidden('Only administrators may create layers from files.')
    const body = await readJsonObject(c.req.raw)
    const services = c.get('services')
    const ref = expectObject(body.source, '$.source')
    const upload = await resolveUploadRef(services, ref, '$.source')
    const bytes = await readUpload(services, upload.id)
    const encoding = typeof ref.encoding === 'string' ? ref.encoding : undefined
    return json(await inspectSource(await c.get('platform').gdal(), { name: upload.name ?? '', bytes, encoding }))
  })

  routes.add('outpost.progress', '/api/component/outpost/progress/{token}', 'GET', (c) => {
    const token = c.req.param('token') ?? ''
    const body = TOKEN_PATTERN.test(token) ? progressBoard(c.get('services')).get(token) : undefined
    if (!body) throw progressUnknown()
    return json(body)
  }, { token: '[A-Za-z0-9_-]+' })
}
