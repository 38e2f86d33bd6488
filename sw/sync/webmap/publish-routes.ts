/**
 * @module sync/webmap/publish-routes
 * Publishing a web map made here to a team's server (ours; the original has none):
 * - `POST /api/resource/{id}/webmap_publish` `{connection: {id}, parent?: {id}}`
 *   (`X-Outpost-Progress` to watch and stop it): answers the map there `{id, url, …}`;
 * - `GET /api/resource/{id}/webmap_publish`: where it was published last, or 404.
 * Needs `resource.read` on the map and `connection.connect` on the connection; everything
 * done here goes through this server's own API as the asker (inner.ts).
 */
import { ApiError, internalServerError } from '../../core/error.ts'
import { json, readJsonObject } from '../../core/http.ts'
import { onPath, type RequestContext, type Routes } from '../../core/routes.ts'
import { requestProgress } from '../../ingest/progress.ts'
import { InnerApi, type AppFetch } from './inner.ts'
import { parsePublishRequest, PUBLISHED_KEY, readPublished } from './publish-plan.ts'
import { publishWebmap } from './publish.ts'
import type { WebmapOfflineVariables } from './routes.ts'

type Ctx = RequestContext<WebmapOfflineVariables>

const notPublished = (id: number) => new ApiError(404, 'Not published', {
  message: `Web map ${id} has not been published to a team's server from here.`, exception: 'outpost.webmap_publish.NotPublished', data: { resource_id: id } })

export function mountWebmapPublish(routes: Routes<WebmapOfflineVariables>, appFetch: AppFetch): void {
  routes.add('outpost.webmap_publish', '/api/resource/{id}/webmap_publish', ['GET', 'POST'],
    { GET: onPath('resource', 'read'), POST: onPath('resource', 'read') }, async (c: Ctx) => {
      const id = Number(c.req.param('id'))
      const services = c.get('services')
      const inner = new InnerApi(appFetch, c.req.raw)
      if (c.req.method === 'GET') {
        const published = readPublished((await inner.json('GET', `/api/resource/${id}`))?.resmeta?.items?.[PUBLISHED_KEY])
        if (!published) throw notPublished(id)
        return json(published)
      }
      const req = parsePublishRequest(await readJsonObject(c.req.raw))
      const progress = requestProgress(services, c.req.raw)
      try {
        const out = await publishWebmap({ services, user: c.get('user'), inner }, id, req, progress)
        progress.finish({ id: out.id })
        return json(out)
      } catch (err) {
        progress.fail(services.names.errorBody((err instanceof ApiError ? err : internalServerError(err)).toBody()))
        throw err
      }
    })
}
