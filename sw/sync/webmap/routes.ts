/**
 * @module sync/webmap/routes
 * Taking a team's web map offline (ours; the original has none of these):
 * - `POST /api/component/outpost/webmap_offline/estimate` `{connection, webmap, bbox, zooms}`:
 *   what would come and about how many bytes;
 * - `POST /api/component/outpost/webmap_offline/` (same body, `X-Outpost-Progress` to watch and
 *   stop it): takes it offline, answers `{id, saved}` (201); `GET`: the saved maps;
 * - `GET|POST|DELETE /api/resource/{id}/webmap_offline`: a saved map; refresh it (its tiles again and a sync
 *   round of each layer, `X-Outpost-Progress` to watch and stop it); remove it;
 * - `POST /api/resource/{id}/webmap_offline/resume`: goes on with an incomplete one (stopped, failed,
 *   or its host killed mid-job), fetching only what is not here yet;
 * - `GET /api/resource/{id}/webmap_offline/tile/{i}/{z}/{x}/{y}`: its basemap tiles (204: none kept).
 * Every create, sync and delete goes through this server's own API as the asker (inner.ts).
 */
import { ApiError } from '../../core/error.ts'
import { json, readJsonObject } from '../../core/http.ts'
import { AUTHENTICATED, onPath, type RequestContext, type Routes } from '../../core/routes.ts'
import type { Principal } from '../../auth/types.ts'
import { internalServerError } from '../../core/error.ts'
import { requestProgress, type TrackedProgress } from '../../ingest/progress.ts'
import type { Identifiers } from '../../core/identifiers.ts'
import type { SyncServices } from '../service.ts'
import { imageType } from './basemap-tiles.ts'
import { InnerApi, type AppFetch } from './inner.ts'
import { estimate, refresh, remove, resume, savedMap, savedMaps, takeOffline, type JobEnv } from './job.ts'
import { parseOfflineRequest } from './request.ts'
import { tileBlobId } from './tiles.ts'

export interface WebmapOfflineVariables {
  services: SyncServices & { names: Identifiers }
  user: Principal
}

type Ctx = RequestContext<WebmapOfflineVariables>

const notSaved = (id: number) => new ApiError(404, 'Not a saved map', {
  message: `Resource ${id} is not a web map taken offline.`, exception: 'outpost.webmap_offline.NotSaved', data: { resource_id: id } })

/** Runs `job` reported under the request's progress token: finished with the saved map's id, or failed with the error body. */
async function tracked<T>(c: Ctx, job: (progress: TrackedProgress) => Promise<T>, idOf: (out: T) => number): Promise<T> {
  const progress = requestProgress(c.get('services'), c.req.raw)
  try {
    const out = await job(progress)
    progress.finish({ id: idOf(out) })
    return out
  } catch (err) {
    progress.fail(c.get('services').names.errorBody((err instanceof ApiError ? err : internalServerError(err)).toBody()))
    throw err
  }
}

export function mountWebmapOffline(routes: Routes<WebmapOfflineVariables>, appFetch: AppFetch): void {
  const envOf = (c: Ctx): JobEnv => ({ services: c.get('services'), user: c.get('user'), inner: new InnerApi(appFetch, c.req.raw) })
  const savedOf = async (c: Ctx, id: number) => {
    const env = envOf(c)
    const saved = await savedMap(env, id)
    if (!saved) throw notSaved(id)
    return { env, saved }
  }

  routes.add('outpost.webmap_offline.estimate', '/api/component/outpost/webmap_offline/estimate', 'POST', AUTHENTICATED, async (c) =>
    json(await estimate(envOf(c), parseOfflineRequest(await readJsonObject(c.req.raw)))))

  routes.add('outpost.webmap_offline.collection', '/api/component/outpost/webmap_offline/', ['GET', 'POST'], AUTHENTICATED, async (c) => {
    if (c.req.method === 'GET') return json(await savedMaps(envOf(c)))
    const req = parseOfflineRequest(await readJsonObject(c.req.raw))
    return json(await tracked(c, (progress) => takeOffline(envOf(c), req, progress), (out) => out.id), 201)
  })

  routes.add('outpost.webmap_offline.item', '/api/resource/{id}/webmap_offline', ['GET', 'POST', 'DELETE'],
    { GET: onPath('resource', 'read'), POST: onPath('resource', 'read'), DELETE: onPath('resource', 'read') }, async (c) => {
      const id = Number(c.req.param('id'))
      const { env, saved } = await savedOf(c, id)
      if (c.req.method === 'GET') return json({ id, ...saved })
      if (c.req.method === 'POST') return json(await tracked(c, (progress) => refresh(env, id, saved, progress), () => id))
      return json({ freed: await remove(env, id) })
    })

  routes.add('outpost.webmap_offline.resume', '/api/resource/{id}/webmap_offline/resume', 'POST', onPath('resource', 'read'), async (c) => {
    const id = Number(c.req.param('id'))
    const { env, saved } = await savedOf(c, id)
    return json(await tracked(c, (progress) => resume(env, id, saved, progress), () => id))
  })

  routes.add('outpost.webmap_offline.tile', '/api/resource/{id}/webmap_offline/tile/{i}/{z}/{x}/{y}', 'GET', onPath('resource', 'read'), async (c) => {
    const [id, i, z, x, y] = ['id', 'i', 'z', 'x', 'y'].map((k) => Number(c.req.param(k))) as [number, number, number, number, number]
    const bytes = await c.get('services').data.blobs.getBlob(tileBlobId(id, i, z, x, y))
    if (!bytes) return new Response(null, { status: 204 })
    return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': imageType(bytes), 'cache-control': 'no-cache' } })
  }, { i: '[0-9]{1,4}', z: '[0-9]{1,2}', x: '[0-9]{1,9}', y: '[0-9]{1,9}' })
}
