/**
 * @module app
 * `createApp(platform)`: the whole API as one `fetch(Request) → Response` function. It mounts
 * every component's routes, resolves the user of each request, and is the one place where
 * errors become the JSON error body.
 */
import { Hono } from 'hono'
import { ApiError, internalServerError, pageNotFound } from './core/error.ts'
import type { AppEnv } from './core/env.ts'
import { json, requestId } from './core/http.ts'
import { RouteTable } from './core/routes.ts'
import { sharedStart } from './core/once.ts'
import type { Platform } from './platform/platform.ts'
import { openServices, type Services } from './services.ts'
import { authenticate } from './auth/middleware.ts'
import { mountAuth } from './auth/routes.ts'
import { mountPyramid } from './pyramid/routes.ts'
import { mountResource } from './resource/routes.ts'
import { mountCatalogue } from './catalogue/routes.ts'
import { mountFeature } from './feature/routes.ts'
import { mountUpload } from './upload/routes.ts'
import { mountDiagnostics } from './diagnostics/routes.ts'
import { mountAttachment } from './feature/attachment-routes.ts'
import { mountMvt } from './mvt/routes.ts'
import { mountIdentify } from './feature/identify-routes.ts'
import { mountExport } from './export/routes.ts'
import { mountBasemap } from './basemap/routes.ts'

export interface OutpostApp {
  fetch(request: Request): Promise<Response>
  /** Opens the databases now instead of on the first request (the Node host does). */
  services(): Promise<Services>
}

export function createApp(platform: Platform): OutpostApp {
  const app = new Hono<AppEnv>({ strict: true })
  const routes = new RouteTable(app)
  const services = sharedStart(() => openServices(platform))

  app.use('*', async (c, next) => {
    c.set('requestId', requestId())
    c.set('platform', platform)
    c.set('services', await services())
    await authenticate(c)
    await next()
  })

  mountPyramid(routes)
  mountAuth(routes)
  mountResource(routes)
  mountCatalogue(app, routes)
  mountFeature(routes)
  mountUpload(routes)
  mountDiagnostics(routes)
  mountAttachment(routes)
  mountMvt(routes)
  mountIdentify(routes)
  mountExport(routes)
  mountBasemap(routes)

  app.notFound((c) => json(pageNotFound().toBody(c.get('requestId')), 404))
  app.onError((err, c) => {
    const apiErr = err instanceof ApiError ? err : internalServerError(err)
    if (apiErr.status >= 500) platform.log(`${c.req.method} ${c.req.path} failed`, err)
    return json(apiErr.toBody(c.get('requestId') ?? requestId()), apiErr.status)
  })

  return {
    fetch: async (request) => {
      try {
        return await app.fetch(mergeLeadingSlashes(request))
      } catch (err) {
        // Errors thrown before routing (opening the database) still get the JSON body.
        const apiErr = err instanceof ApiError ? err : internalServerError(err)
        platform.log(`${request.method} ${new URL(request.url).pathname} failed`, err)
        return json(apiErr.toBody(requestId()), apiErr.status)
      }
    },
    services,
  }
}

/**
 * `//api/…` is read as `/api/…`, as nginx's default `merge_slashes` did in front of the
 * original servers (old QGIS plugins send the double slash, reference qms §13).
 */
function mergeLeadingSlashes(request: Request): Request {
  const url = new URL(request.url)
  if (!url.pathname.startsWith('//')) return request
  url.pathname = url.pathname.replace(/^\/+/, '/')
  return new Request(url, request)
}
