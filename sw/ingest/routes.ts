/**
 * @module ingest/routes
 * Outpost's own ingest endpoints (the original has none of these):
 * - `POST /api/component/outpost/ingest/inspect` `{source: <upload record>}` → what GDAL sees in
 *   an uploaded file (driver, layers, fields with types, geometry type, feature count, SRS,
 *   encoding), so a person can choose before creating a layer;
 * - `GET /api/component/outpost/progress/{token}` → the progress of a long request sent with
 *   `X-Outpost-Progress: <token>` (see ingest/progress);
 * - `DELETE /api/component/outpost/progress/{token}` → cancels that request: 202 with its
 *   progress (`stage: cancelling`); the request then answers 409 `requestCancelled` having
 *   created nothing. 409 when it already ended (`data.result` names what it created).
 */
import { ApiError } from '../core/error.ts'
import { json, readJsonObject } from '../core/http.ts'
import { ADMINISTRATOR, PUBLIC, type Routes } from '../core/routes.ts'
import type { Principal } from '../auth/types.ts'
import type { UploadServices } from '../upload/env.ts'
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
    const t0 = performance.now()
    const gdal = await services.platform.gdal()
    const t1 = performance.now()
    const summary = await inspectSource(gdal, await source.read(), { vector: true })
    // Where an inspection's time went: GDAL's start (on its first use in a worker's life) and the reading.
    return json(summary, 200, { 'server-timing': `gdal;dur=${Math.round(t1 - t0)}, inspect;dur=${Math.round(performance.now() - t1)}` })
  })

  routes.add('outpost.progress', '/api/component/outpost/progress/{token}', ['GET', 'DELETE'], PUBLIC('a progress report is named by its unguessable token'), (c) => {
    const token = c.req.param('token') ?? ''
    const board = progressBoard(c.get('services'))
    const cancel = c.req.method === 'DELETE'
    // The token is the capability, as for reading: only its client knows it.
    const body = TOKEN_PATTERN.test(token) ? (cancel ? board.cancel(token) : board.get(token)) : undefined
    if (!body) throw progressUnknown()
    return json(body, cancel ? 202 : 200)
  }, { token: '[A-Za-z0-9_-]+' })
}
