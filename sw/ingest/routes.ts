/**
 * @module ingest/routes
 * Outpost's own ingest endpoints (the original has none of these):
 * - `POST /api/component/outpost/ingest/inspect` `{source: <upload record>}` → what GDAL sees in
 *   an uploaded file (driver, layers, fields with types, geometry type, feature count, SRS,
 *   encoding), so a person can choose before creating a layer;
 * - `GET /api/component/outpost/progress/{token}` → the progress of a long request sent with
 *   `X-Outpost-Progress: <token>` (see ingest/progress).
 */
import { ApiError } from '../core/error.ts'
import { json, readJsonObject } from '../core/http.ts'
import { ADMINISTRATOR, PUBLIC, type Routes } from '../core/routes.ts'
import type { Principal } from '../auth/types.ts'
import type { UploadServices } from '../upload/types.ts'
import { inspectSource } from './vector-convert.ts'
import { memberSource } from './member.ts'
import { progressBoard, TOKEN_PATTERN } from './progress.ts'

/** The ingest routes' context. */
export interface IngestVariables {
  services: UploadServices
  user: Principal
}

const progressUnknown = () => new ApiError(404, 'Progress not found', {
  message: 'No request is reported under this token (it may have ended more than five minutes ago).',
  exception: 'nextgisweb.pyramid.exception.PyramidHTTPError' })

export function mountIngest(routes: Routes<IngestVariables>): void {
  routes.add('outpost.ingest.inspect', '/api/component/outpost/ingest/inspect', 'POST', ADMINISTRATOR, async (c) => {
    const services = c.get('services')
    const source = await memberSource(services, await readJsonObject(c.req.raw), '$')
    return json(await inspectSource(await services.platform.gdal(), await source.read()))
  })

  routes.add('outpost.progress', '/api/component/outpost/progress/{token}', 'GET', PUBLIC('a progress report is named by its unguessable token'), (c) => {
    const token = c.req.param('token') ?? ''
    const body = TOKEN_PATTERN.test(token) ? progressBoard(c.get('services')).get(token) : undefined
    if (!body) throw progressUnknown()
    return json(body)
  }, { token: '[A-Za-z0-9_-]+' })
}
