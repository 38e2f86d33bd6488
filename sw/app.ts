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
import type { Platform } from './platform/platform.ts'
import { openServices, type Services } from './services.ts'
import { authenticate } from './auth/middleware.ts'
import { mountAuth } from './auth/routes.ts'
import { mountPyramid } from './pyramid/routes.ts'
import { mountResource } from './resource/routes.ts'
import { mountDiagnostics } from './diagnostics/routes.ts'

export interface OutpostApp {
  fetch(request: Request): Promise<Response>
  /** Opens the databases now instead of on the first request (the Node host does). */
  services(): Promise<Services>
}

export function createApp(platform: Platform): OutpostApp {
  const app = new Hono<AppEnv>({ strict: true })
  const routes = new RouteTable(app)
  let opening: Promise<Services> | undefined
  const services = () => {
    // A failed open is not remembered: the next request tries again.
    opening ??= openServices(platform).catch((err) => { opening = undefined; throw err })
    return opening
  }

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
  mountDiagnostics(routes)

  app.notFound((c) => json(pageNotFound().toBody(c.get('requestId')), 404))
  app.onError((err, c) => {
    const apiErr = err instanceof ApiError ? err : internalServerError(err)
    if (apiErr.status >= 500) platform.log(`${c.req.method} ${c.req.path} failed`, err)
    return json(apiErr.toBody(c.get('requestId') ?? requestId()), apiErr.status)
  })

  return {
    fetch: async (request) => {
      try {
        return await app.fetch(request)
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
