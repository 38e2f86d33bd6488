/**
 * @module catalogue/routes
 * The geoservice catalogue API under `/api/v1/` (spec/catalogue-api.md), answered as the
 * QMS server answers (reference/qms-api.md): a sub-app with its own CORS and its own error
 * handler (Django REST framework bodies). Plus this server's own admin route that replaces
 * the catalogue by an import.
 */
import { Hono, type Context, type Next } from 'hono'
import type { ApiError } from '../core/error.ts'
import { json, readJsonObject } from '../core/http.ts'
import { ADMINISTRATOR, type Routes } from '../core/routes.ts'
import { lastValue } from '../core/validate.ts'
import { authenticationFailed, drfBody, filterError, invalidChoice, methodNotAllowed, notAcceptable, notFound } from './errors.ts'
import type { FlatShape as Shape } from '../geo/flat.ts'
import { GeometryError, loadSrids, parseGeometry } from './geometry.ts'
import { drfJson, filterServices, matchesTerms, type CatalogueIndex, type Entry, type OrderField } from './index.ts'
import { accepts, ALLOW, corsHeaders, drfResponse, nonNegativeOffset, origin, pageLink, positiveLimit, pyInt } from './http.ts'
import { SERVICE_TYPES, STATUSES } from './records.ts'
import type { Catalogue } from './service.ts'
import type { CatalogueVariables } from './env.ts'

interface CatalogueEnv { Variables: CatalogueVariables }

type Params = URLSearchParams
type View = (c: Context<CatalogueEnv>, cat: Catalogue, q: Params) => Response | Promise<Response>

interface Route {
  /** Hono path. */
  path: string
  /** The same path as a regex, to tell whether a slash-less request has a slashed route. */
  re: RegExp
  /** DRF's view name, for OPTIONS. */
  name: string
  png: boolean
  view: View
}

const ROOT_TEMPLATES: Array<[string, string]> = [
  ['geoservices_url', '/geoservices/'],
  ['geoservices_type_filter_url', '/geoservices/?type={tms|wms|wfs|geojson}'],
  ['geoservices_epsg_filter_url', '/geoservices/?epsg={any_epsg_code}'],
  ['geoservices_status_filter_url', '/geoservices/?cumulative_status={works|problematic|failed}'],
  ['geoservices_search_url', '/geoservices/?search={q}'],
  ['geoservices_intersects_extent_url', '/geoservices/?intersects_extent={WKT|EWKT geometry}'],
  ['geoservices_intersects_boundary_url', '/geoservices/?intersects_boundary={WKT|EWKT geometry}'],
  // The missing `}` is the original's (reference §3); clients copy these strings.
  ['geoservices_ordering_url', '/geoservices/?ordering={name|-name|id|-id|created_at|-created_at|updated_at|-updated_at'],
  ['geoservices_pagination_url', '/geoservices/?limit={int}&offset={int}'],
  ['geoservice_detail_url', '/geoservices/{id}/'],
  ['geoservice_status_url', '/geoservice_status/'],
  ['geoservice_status_detail_url', '/geoservice_status/{id}/'],
  ['geoservice_status_service_filter_url', '/geoservice_status/?geoservice={id}'],
  ['geoservice_status_cumulative_status_filter_url', '/geoservice_status/?cumulative_status={works|problematic|failed}'],
  ['geoservice_status_check_at_ordering_url', '/geoservice_status/?ordering={check_at|-check_at}'],
  ['icons_url', '/icons/'],
  ['icons_search_url', '/icons/?search={q}'],
  ['icons_pagination_url', '/icons/?limit={int}&offset={int}'],
  ['icon_detail_url', '/icons/{id}/'],
  ['icon_content_url', '/icons/{id}/content'],
  ['icon_resized_content_url', '/icons/{id}/content?width={16<=x<=64}&height={16<=y<=64}'],
  ['default_icon_url', '/icons/default'],
]

/** A non-blank parameter's last value; blank ones are ignored (reference §7). */
function param(q: Params, name: string): string | undefined {
  const v = lastValue(q, name)
  return v === undefined || v === '' ? undefined : v
}

/** DRF SearchFilter terms: NULs dropped, commas and whitespace split (reference §7.1). */
function searchTerms(q: Params): string[] | undefined {
  const raw = param(q, 'search')
  if (raw === undefined) return undefined
  const terms = raw.replace(/\0/g, '').replace(/,/g, ' ').split(/\s+/).filter(Boolean).map((t) => t.toUpperCase())
  return terms.length ? terms : undefined
}

function ordering<F extends string>(q: Params, fields: readonly F[], fallback: Array<[F, boolean]>): Array<[F, boolean]> {
  const raw = param(q, 'ordering')
  if (raw === undefined) return fallback
  const out = raw.split(',').map((t) => t.trim()).filter((t) => fields.includes(t.replace(/^-/, '') as F))
    .map((t): [F, boolean] => [t.replace(/^-/, '') as F, t.startsWith('-')])
  return out.length ? out : fallback
}

const GEOMETRY_PARAMS = ['intersects_extent', 'intersects_boundary']

function geometryParam(q: Params, name: string): Shape | undefined {
  const raw = param(q, name)
  if (raw === undefined) return undefined
  try {
    return parseGeometry(raw)
  } catch (err) {
    throw filterError(name, err instanceof GeometryError ? err.message : 'Invalid geometry.')
  }
}

/** django-filter's NumberFilter: any decimal notation; `Enter a number.` otherwise (reference §7.3). */
function epsgParam(q: Params): number | undefined {
  const raw = lastValue(q, 'epsg')?.trim()
  if (!raw) return undefined
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(raw)) throw filterError('epsg', 'Enter a number.')
  return Number(raw)
}

function statusParam(q: Params): string | undefined {
  const raw = param(q, 'cumulative_status')
  if (raw !== undefined && !(STATUSES as readonly string[]).includes(raw)) throw invalidChoice('cumulative_status', raw)
  return raw
}

/** A bare array, or the envelope when `limit` is a positive integer (reference §5.2, §6). */
function listResponse(request: Request, q: Params, items: string[], limit: number | undefined): Response {
  if (limit === undefined) return drfResponse(`[${items.join(',')}]`)
  const offset = nonNegativeOffset(lastValue(q, 'offset'))
  const count = items.length
  const next = offset + limit < count ? pageLink(request, { limit: String(limit), offset: String(offset + limit) }) : null
  const previous = offset <= 0 ? null
    : offset - limit <= 0 ? pageLink(request, { limit: String(limit), offset: null })
      : pageLink(request, { limit: String(limit), offset: String(offset - limit) })
  return drfResponse(`{"count":${count},"next":${drfJson(next)},"previous":${drfJson(previous)},"results":[${items.slice(offset, offset + limit).join(',')}]}`)
}

/** Query parameters of `/geoservices/` turned into a filter (exported for the benchmark). */
export function serviceQuery(ix: CatalogueIndex, q: Params): Entry[] {
  const type = param(q, 'type')
  return filterServices(ix, {
    type: type,
    epsg: epsgParam(q),
    status: statusParam(q),
    terms: searchTerms(q),
    intersectsExtent: geometryParam(q, 'intersects_extent'),
    intersectsBoundary: geometryParam(q, 'intersects_boundary'),
    ordering: ordering<OrderField>(q, ['name', 'id', 'created_at', 'updated_at'], []),
  })
}

function detailJson(e: Entry): string {
  const d = e.detail
  const alt = d.alt_urls as string[] | undefined
  // The original picks one alternative at random on every request (reference §8.2).
  if (d.type === 'tms' && alt && alt.length) return drfJson({ ...d, url: alt[Math.floor(Math.random() * alt.length)] })
  return drfJson(d)
}

/** Icon width or height: used when 16..64, else 32 (reference §10). */
function iconSide(q: Params, name: string): number {
  const v = pyInt(lastValue(q, name))
  return v !== undefined && v >= 16 && v <= 64 ? v : 32
}

async function iconContent(cat: Catalogue, id: number | 'default', q: Params): Promise<Response> {
  const png = await cat.iconPng(id, iconSide(q, 'width'), iconSide(q, 'height'))
  if (!png) throw notFound()
  return new Response(png as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'image/png', allow: ALLOW, 'cache-control': 'max-age=3600' } })
}

const ROUTES: Route[] = []
function route(template: string, name: string, view: View, png = false): void {
  const re = new RegExp('^' + template.replace(/\{(\w+)\}/g, (_, p: string) => (p === 'sid' ? '[^/.]+' : '[0-9]+')) + '$')
  const path = template.replace(/\{(\w+)\}/g, (_, p: string) => `:${p}{${p === 'sid' ? '[^/.]+' : '[0-9]+'}}`)
  ROUTES.push({ path, re, name, png, view })
}

route('/api/v1/', 'Api Root', (c) => {
  const base = `${origin(c.req.raw)}/api/v1`
  return drfResponse(drfJson(Object.fromEntries(ROOT_TEMPLATES.map(([k, t]) => [k, base + t]))))
})

route('/api/v1/geoservices/', 'Geo Service List', (c, cat, q) =>
  listResponse(c.req.raw, q, serviceQuery(cat.index, q).map((e) => e.listJson), positiveLimit(lastValue(q, 'limit'))))

route('/api/v1/geoservices/{id}/', 'Geo Service Detailed', (c, cat) => {
  const e = cat.index.byId.get(Number(c.req.param('id')))
  if (!e) throw notFound()
  return drfResponse(detailJson(e))
})

route('/api/v1/geoservice_status/', 'Geo Service Status List', (c, cat, q) => {
  const ix = cat.index
  const gs = param(q, 'geoservice')
  let geoservice: number | undefined
  if (gs !== undefined) {
    geoservice = pyInt(gs)
    if (geoservice === undefined || !ix.byId.has(geoservice)) {
      throw filterError('geoservice', 'Select a valid choice. That choice is not one of the available choices.')
    }
  }
  const status = statusParam(q)
  const order = ordering(q, ['check_at', 'cumulative_status'] as const, [['check_at', false]])
  const rows = ix.statuses.filter((s) => (geoservice === undefined || s.geoservice === geoservice) && (status === undefined || s.status === status))
  rows.sort((a, b) => {
    for (const [f, desc] of order) {
      const ka = f === 'check_at' ? a.checkAt : a.status, kb = f === 'check_at' ? b.checkAt : b.status
      if (ka !== kb) return (ka < kb ? -1 : 1) * (desc ? -1 : 1)
    }
    return a.id - b.id
  })
  // Always paged: 100 by default, at most 500, an invalid limit means 100 (reference §9.2).
  return listResponse(c.req.raw, q, rows.map((s) => s.json), positiveLimit(lastValue(q, 'limit'), 500) ?? 100)
})

route('/api/v1/geoservice_status/{sid}/', 'Geo Service Status Instance', (c, cat) => {
  const s = cat.index.statusById.get(c.req.param('sid')!)
  if (!s) throw notFound()
  return drfResponse(s.json)
})

route('/api/v1/icons/', 'Service Icon List', (c, cat, q) => {
  const terms = searchTerms(q)
  const rows = cat.index.icons.filter((i) => !terms || matchesTerms(i.nameUp, null, terms))
  return listResponse(c.req.raw, q, rows.map((i) => i.json), positiveLimit(lastValue(q, 'limit')))
})

route('/api/v1/icons/{id}/', 'Service Icon Detailed', (c, cat) => {
  const i = cat.index.iconById.get(Number(c.req.param('id')))
  if (!i) throw notFound()
  return drfResponse(i.json)
})

route('/api/v1/icons/{id}/content', 'Icon Retrieve', (c, cat, q) => {
  const id = Number(c.req.param('id'))
  if (!cat.index.iconById.has(id)) throw notFound()
  return iconContent(cat, id, q)
}, true)
route('/api/v1/icons/default', 'Default Icon Retrieve', (_c, cat, q) => iconContent(cat, 'default', q), true)
route('/api/v1/icons/default/content', 'Default Icon Retrieve', (_c, cat, q) => iconContent(cat, 'default', q), true)

function dispatch(r: Route) {
  return async (c: Context<CatalogueEnv>): Promise<Response> => {
    const method = c.req.method
    if (c.get('authError')) throw authenticationFailed()
    if (method === 'OPTIONS') {
      return drfResponse(drfJson({ name: r.name, description: '',
        renders: r.png ? ['image/png'] : ['application/json', 'text/html'],
        parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] }))
    }
    if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method)
    const q = new URL(c.req.url).searchParams
    const format = lastValue(q, 'format')
    // JSON stands in for the Browsable API (`format=api`); other formats are unknown.
    if (format !== undefined && (r.png || (format !== 'json' && format !== 'api'))) throw notFound()
    if (!accepts(c.req.header('accept') ?? null, r.png ? ['image/png'] : ['application/json', 'text/html'])) throw notAcceptable()
    const services = c.get('services')
    await loadSrids(GEOMETRY_PARAMS.map((p) => param(q, p)), services.platform.epsg)
    return r.view(c, await services.catalogue(), q)
  }
}

/** Django's APPEND_SLASH plus slash merging: 301 to the path that has a route (reference §1, §13). */
function fallback(c: Context<CatalogueEnv>): Response {
  const url = new URL(c.req.url)
  let path = url.pathname.replace(/\/{2,}/g, '/')
  if (!path.endsWith('/') && ROUTES.some((r) => r.re.test(path + '/'))) path += '/'
  if (path !== url.pathname && ROUTES.some((r) => r.re.test(path))) {
    return new Response(null, { status: 301, headers: { location: path + url.search, 'content-type': 'text/html; charset=utf-8' } })
  }
  return drfResponse(drfJson({ detail: 'Not found.' }), 404)
}

async function cors(c: Context<CatalogueEnv>, next: Next): Promise<Response | void> {
  const hasOrigin = c.req.header('origin') !== undefined
  // A preflight is answered before routing, whatever the path (reference §12).
  if (hasOrigin && c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined) {
    return new Response(null, { status: 200, headers: corsHeaders('OPTIONS') })
  }
  await next()
  if (hasOrigin) {
    const res = new Response(c.res.body, c.res)
    for (const [k, v] of Object.entries(corsHeaders(c.req.method))) res.headers.set(k, v)
    c.res = res
  }
}

/**
 * The catalogue API as a sub-app, mounted at the root of the app (its routes carry their
 * full `/api/v1/…` paths). Its errors are answered as DRF answers them; any other error
 * goes on to the app's handler (a 500 with NextGIS Web's body).
 */
export function catalogueApp(): Hono<CatalogueEnv> {
  const app = new Hono<CatalogueEnv>({ strict: true })
  app.use('/api/v1', cors)
  app.use('/api/v1/*', cors)
  for (const r of ROUTES) app.all(r.path, dispatch(r))
  app.all('/api/v1', fallback)
  app.all('/api/v1/*', fallback)
  app.onError((err) => {
    const body = drfBody(err)
    if (!body) throw err
    return drfResponse(drfJson(body), (err as ApiError).status)
  })
  return app
}

/** `outpost.catalogue.import`: an administrator replaces the catalogue. */
export function mountCatalogueImport(routes: Routes<CatalogueVariables>): void {
  routes.add('outpost.catalogue.import', '/api/component/outpost/catalogue/import', ['GET', 'POST'], ADMINISTRATOR, async (c) => {
    const cat = await c.get('services').catalogue()
    if (c.req.method === 'POST') await cat.import(await readJsonObject(c.req.raw))
    const ix = cat.index
    return json({ geoservices: ix.entries.length, icons: ix.icons.length, geoservice_status: ix.statuses.length })
  })
}
