/**
 * @module classes/wmsserver_service/routes
 * `wmsserver.wms`: `GET|POST /api/resource/{id}/wms` (reference ngw-services §2.2). The handler
 * checks `service.connect` itself, so that a guest without it is asked for credentials (401 with
 * `WWW-Authenticate: Basic`, the original's ≤5.1 answer, §2.8: QGIS, GDAL and MapInfo then
 * send them) and so that every refusal is a WMS exception, not the JSON error body (§2.7).
 * Each layer's `data.read` is checked by the request that draws or queries it (sw/ogc).
 */
import { ApiError, insufficientPermissions } from '../../core/error.ts'
import { inHandler, type Routes } from '../../core/routes.ts'
import { allowed } from '../../auth/checkpoint.ts'
import { resourceNotFound } from '../../resource/errors.ts'
import type { WmsVariables } from '../../ogc/types.ts'
import { versionOf, wmsParams } from '../../ogc/wms-params.ts'
import { exceptionReport } from '../../ogc/wms-exception.ts'
import { answerWms, requestParams } from '../../ogc/wms-handler.ts'
import { WMS_SERVICE, wmsServiceOf } from './index.ts'

/** `<Abstract>` is plain text; descriptions are HTML. Tags are dropped (a linear scan: no nested quantifiers). */
const plainText = (html: string | null | undefined) =>
  (html ?? '').replace(/<[^>]*>/g, ' ').replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_, e: string) => ENTITIES[e]!).replace(/\s+/g, ' ').trim()
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' }

export function mountWmsServer(routes: Routes<WmsVariables>): void {
  routes.add('wmsserver.wms', '/api/resource/{id}/wms', ['GET', 'POST'],
    inHandler('service', 'connect', 'the service of the path: checked by the handler so that a guest is asked for credentials and refusals are WMS exceptions'),
    async (c) => {
      const services = c.get('services')
      const user = c.get('user')
      const id = Number(c.req.param('id'))
      const url = new URL(c.req.url)
      // A POST's version is in its body, read only once the user may use the service: its errors till then are 1.1.1's.
      const version = versionOf(wmsParams(url.searchParams))
      try {
        const ref = await services.classes.ref(id)
        if (ref?.cls !== WMS_SERVICE) throw resourceNotFound(id)
        if (!await allowed(services, user, id, 'service', 'connect')) {
          if (user.isGuest) return new Response(null, { status: 401, headers: { 'www-authenticate': 'Basic realm="Outpost WMS"' } })
          throw insufficientPermissions('connect', 'service', id)
        }
        const params = await requestParams(c.req.raw)
        const description = (await services.data.read((tx) => tx.resources.get(id)))?.description
        return await answerWms({
          services, user, params, signal: c.req.raw.signal,
          url: `${url.origin}${url.pathname}`,
          service: { id, title: ref.displayName, abstract: plainText(description), layers: wmsServiceOf(ref.data).layers },
        })
      } catch (err) {
        if (err instanceof ApiError && !c.req.raw.signal.aborted) return exceptionReport(err, version)
        throw err
      }
    })
}
