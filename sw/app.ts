/**
 * @module app
 * `createApp(platform)`: the whole API as one `fetch(Request) → Response` function. It opens
 * the services, mounts every component's routes and the catalogue's sub-app, resolves the
 * user of each request, and is the one place where errors become the JSON error body.
 */
import { Hono } from 'hono'
import { ApiError, internalServerError, pageNotFound } from './core/error.ts'
import { json, requestId } from './core/http.ts'
import { RouteTable } from './core/routes.ts'
import { sharedStart } from './core/once.ts'
import { corsHeaders, preflight } from './core/cors.ts'
import { noteHops } from './core/hops.ts'
import type { Platform } from './platform/platform.ts'
import { openServices, type DataOpener, type Services, type SpatialDbOpener } from './services.ts'
import { Identifiers, type IdentifierStyle } from './core/identifiers.ts'
import { authenticate } from './auth/middleware.ts'
import { checkpoint } from './auth/checkpoint.ts'
import type { AuthVariables } from './auth/env.ts'
import { mountAuth } from './auth/routes.ts'
import { mountPyramid } from './pyramid/routes.ts'
import { mountResource } from './resource/routes.ts'
import { catalogueApp, mountCatalogueImport } from './catalogue/routes.ts'
import { mountFeature } from './feature/routes.ts'
import { mountAttachment } from './feature/attachment/routes.ts'
import { mountUpload } from './upload/routes.ts'
import { mountDiagnostics } from './diagnostics/routes.ts'
import { mountSync } from './sync/routes.ts'
import { mountMvt } from './mvt/routes.ts'
import { mountIdentify } from './feature/identify-routes.ts'
import { mountExport } from './export/routes.ts'
import { mountBasemap } from './basemap/routes.ts'
import { mountRender } from './render/routes.ts'
import { mountIngest } from './ingest/routes.ts'
import { mountFiles } from './files/routes.ts'
import { mountSpatialDb } from './spatialdb/routes.ts'
import { mountWebMap } from './classes/webmap/routes.ts'
import { mountWebmapOffline } from './sync/webmap/routes.ts'
import { mountWebmapPublish } from './sync/webmap/publish-routes.ts'
import { mountWmsServer } from './classes/wmsserver_service/routes.ts'

/** Every per-request value: the union of the components' contexts. */
interface AppEnv {
  /** What the host passed with the request (`OutpostApp.fetch`'s second argument). */
  Bindings: RequestInfo | undefined
  Variables: Omit<AuthVariables, 'services'> & {
    services: Services
    /** When the app began the request (`performance.now()`): routes report their work from it (Server-Timing). */
    started: number
  }
}

export interface AppOptions {
  /** Runs once the services are open, before the first request is answered (a host seeds demo data). */
  setup?: (services: Services) => Promise<void>
  /** The data port, when the host chooses it (the Node host's `--database`); SQLite in the platform's store otherwise. */
  data?: DataOpener
  /**
   * Which names answers use where the spec and the original differ (core/identifiers): the
   * spec's (default) or the original's, for teams whose desktop clients (GDAL, NextGIS Connect,
   * ngw-kit) talk to this server. Input takes both spellings either way.
   */
  identifiers?: IdentifierStyle
  /**
   * Access to teams' own PostGIS databases (`spatialdb_*` resources, issue 24): the Node host
   * always gives it; the service worker cannot (no database connections in a browser).
   */
  spatialDb?: SpatialDbOpener
}

/** What a host knows of a request beyond the Request itself. */
export interface RequestInfo {
  /** The client's network address (the Node host's socket peer), for per-address limits. */
  peer?: string
}

export interface OutpostApp {
  fetch(request: Request, info?: RequestInfo): Promise<Response>
  /** Opens the databases now instead of on the first request (the Node host does). */
  services(): Promise<Services>
}

export function createApp(platform: Platform, opts: AppOptions = {}): OutpostApp {
  const app = new Hono<AppEnv>({ strict: true })
  // Credentials are judged only once a route matched: an unknown URL is a 404 even with a
  // wrong password (reference §1.3).
  const routes = new RouteTable<AppEnv>(app, checkpoint)
  const names = new Identifiers(opts.identifiers)
  const services = sharedStart(async () => {
    const s = await openServices(platform, opts.data, names, opts.spatialDb)
    await opts.setup?.(s)
    return s
  })

  app.use('*', async (c, next) => {
    c.set('started', performance.now())
    // A WMS request this server (or another) sent to itself: how deep it is (core/hops.ts).
    noteHops(c.req.raw)
    c.set('peer', c.env?.peer)
    const s = await services()
    // Before anything reads a cache: what other processes on the same database committed
    // moves the change tokens now (PostgreSQL: one query; SQLite owns its folder and has none).
    await s.data.tokens.refresh?.()
    c.set('services', s)
    await authenticate(c)
    await next()
  })

  mountPyramid(routes)
  mountAuth(routes)
  mountResource(routes)
  app.route('/', catalogueApp())
  mountCatalogueImport(routes)
  mountFeature(routes)
  mountUpload(routes)
  mountDiagnostics(routes)
  mountAttachment(routes)
  mountSync(routes)
  mountMvt(routes)
  mountIdentify(routes)
  mountExport(routes)
  mountBasemap(routes)
  mountRender(routes)
  mountIngest(routes)
  mountFiles(routes)
  mountSpatialDb(routes)
  mountWebMap(routes)
  // Its jobs make and delete resources through this app's own routes, as the person who asked.
  mountWebmapOffline(routes, async (request) => app.fetch(request, undefined))
  mountWebmapPublish(routes, async (request) => app.fetch(request, undefined))
  mountWmsServer(routes)

  // The request id of an error body is made when there is an error: most requests need none.
  app.notFound(() => json(pageNotFound().toBody(requestId()), 404))
  // Error bodies name classes in their messages and data: spelled as every other answer (core/identifiers).
  app.onError((err, c) => {
    const apiErr = err instanceof ApiError ? err : internalServerError(err)
    if (apiErr.status >= 500) platform.log(`${c.req.method} ${c.req.path} failed`, err)
    return json(names.errorBody(apiErr.toBody(requestId())), apiErr.status, apiErr.opts.headers)
  })

  return {
    fetch: async (request, info) => withCors(request, platform.corsOrigins ?? [], async () => {
      try {
        return await app.fetch(mergeLeadingSlashes(request), { peer: info?.peer })
      } catch (err) {
        // Errors thrown before routing (opening the database) still get the JSON body.
        const apiErr = err instanceof ApiError ? err : internalServerError(err)
        platform.log(`${request.method} ${new URL(request.url).pathname} failed`, err)
        return json(names.errorBody(apiErr.toBody(requestId())), apiErr.status)
      }
    }),
    services,
  }
}

/** Answers preflights of allowed origins and adds CORS headers to their answers (core/cors). */
async function withCors(request: Request, allowed: readonly string[], answer: () => Promise<Response>): Promise<Response> {
  if (!allowed.length) return answer()
  const pre = preflight(request, allowed)
  if (pre) return pre
  const res = await answer()
  const headers = corsHeaders(request, allowed)
  if (!headers) return res
  const out = new Response(res.body, res)
  for (const [k, v] of Object.entries(headers)) out.headers.set(k, v)
  return out
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
