/**
 * @module render/routes
 * `render.tile`, `render.image`, `render.legend_symbols`, `render.resource_legend_symbols`,
 * `render.legend` and style files such as `/api/resource/{id}/qml` (spec §4.8, §4.9;
 * reference §9). Reads are open to everyone, as every read of this server is. Outpost's own
 * `GET /api/component/outpost/render/tile_cache` (administrators) tells what the tile cache
 * holds and how often it answered.
 */
import { invalidParameter, pageNotFound, parameterRequired } from '../core/error.ts'
import { json } from '../core/http.ts'
import { ADMINISTRATOR, onPath, onQuery, type RequestContext, type Routes } from '../core/routes.ts'
import { lastValue, queryBool, queryInt } from '../core/validate.ts'
import { projectionOf } from '../geo/srs.ts'
import type { Bbox } from '../geo/geometry.ts'
import { tileBbox } from '../geo/tile.ts'
import type { RenderServices, RenderVariables } from './env.ts'
import type { Expr } from './expression.ts'
import { FilterError, parseNgwFilter } from './ngw-filter.ts'
import { legendImage, legendSymbols } from './legend.ts'
import { mountPreview } from './preview.ts'
import { loadStyles, renderStyles, tileCacheOf, vectorStyleOf, versionOf, type RenderOptions, type StyleHandle, type View } from './service.ts'

const MAX_SIZE = 8192

/**
 * The query with GDAL 3.6's quirk undone: its NGW driver joins parameters with a literal
 * `&amp;`, so they arrive as `amp;x=…` (clients.md).
 */
function paramsOf(c: RequestContext<RenderVariables>): URLSearchParams {
  const raw = new URL(c.req.url).searchParams
  const out = new URLSearchParams()
  for (const [k, v] of raw) out.append(k.replace(/^(amp;)+/, ''), v)
  return out
}

function idList(params: URLSearchParams, name: string): number[] {
  const raw = lastValue(params, name)
  if (raw === undefined || raw === '') throw parameterRequired(name)
  return raw.split(',').map((s) => {
    if (!/^[0-9]+$/.test(s.trim())) throw invalidParameter(name, `Invalid integer value '${s}'.`)
    return Number(s)
  })
}

function requiredInt(params: URLSearchParams, name: string, min: number, max: number): number {
  const v = queryInt(params, name)
  if (v === undefined) throw parameterRequired(name)
  if (v < min || v > max) throw invalidParameter(name, `Value must be between ${min} and ${max}.`)
  return v
}

/** `symbols[ID]=0-3,5` and `filter[ID]=<json>` (reference §1.2 deepObject style). */
function renderOptions(params: URLSearchParams, signal: AbortSignal): RenderOptions {
  const symbols = new Map<number, Set<number>>()
  const filters = new Map<number, Expr>()
  for (const key of new Set(params.keys())) {
    const m = /^(symbols|filter)\[([0-9]+)\]$/.exec(key)
    if (!m) continue
    const id = Number(m[2])
    const raw = lastValue(params, key)!
    if (m[1] === 'symbols') {
      const set = new Set<number>()
      for (const part of raw.split(',').filter(Boolean)) {
        const r = /^([0-9]+)(?:-([0-9]+))?$/.exec(part.trim())
        if (!r) throw invalidParameter(key, `Invalid symbol range '${part}'; expected N or N-M.`)
        for (let i = Number(r[1]); i <= Number(r[2] ?? r[1]); i++) set.add(i)
      }
      symbols.set(id, set)
    } else {
      try {
        filters.set(id, parseNgwFilter(raw))
      } catch (err) {
        if (err instanceof FilterError) throw invalidParameter(key, err.message)
        throw err
      }
    }
  }
  return { symbols: symbols.size ? symbols : undefined, filters: filters.size ? filters : undefined, signal }
}

function nd(params: URLSearchParams): 200 | 204 | 404 {
  const v = queryInt(params, 'nd') ?? 200
  if (v !== 200 && v !== 204 && v !== 404) throw invalidParameter('nd', 'Value must be one of 200, 204, 404.')
  return v
}

const PNG_HEADERS = { 'content-type': 'image/png', 'cache-control': 'max-age=0' }
const EMPTY = new Map<string, Promise<Uint8Array>>()

function emptyPng(services: RenderServices, w: number, h: number): Promise<Uint8Array> {
  const key = `${w}x${h}`
  let p = EMPTY.get(key)
  if (!p) {
    p = services.platform.canvas(w, h).png()
    if (EMPTY.size > 16) EMPTY.clear()
    EMPTY.set(key, p)
  }
  return p
}

/** The answer for an image: the PNG, or what `nd` asks for when nothing was drawn. */
async function answer(services: RenderServices, png: Uint8Array | undefined, status: 200 | 204 | 404, w: number, h: number): Promise<Response> {
  if (png) return new Response(png as Uint8Array<ArrayBuffer>, { headers: PNG_HEADERS })
  if (status === 204) return new Response(null, { status: 204 })
  if (status === 404) return new Response(new Uint8Array(0), { status: 404, headers: { 'content-type': 'application/octet-stream' } })
  return new Response(await emptyPng(services, w, h) as Uint8Array<ArrayBuffer>, { headers: PNG_HEADERS })
}

async function draw(services: RenderServices, styles: StyleHandle[], view: View, opts: RenderOptions): Promise<Uint8Array | undefined> {
  const surface = services.platform.canvas(view.width, view.height)
  return (await renderStyles(services, surface, styles, view, opts)) ? surface.png() : undefined
}

export function mountRender(routes: Routes<RenderVariables>): void {
  mountPreview(routes)
  routes.add('render.tile', '/api/component/render/tile', 'GET', onQuery('data', 'read'), async (c) => {
    const params = paramsOf(c)
    const services = c.get('services')
    const ids = idList(params, 'resource')
    const z = requiredInt(params, 'z', 0, 24)
    const x = requiredInt(params, 'x', 0, 2 ** z - 1)
    const y = requiredInt(params, 'y', 0, 2 ** z - 1)
    const status = nd(params)
    const useCache = queryBool(params, 'cache', true)
    const opts = renderOptions(params, c.req.raw.signal)
    const styles = await loadStyles(services, ids)
    const view: View = { extent: tileBbox(z, x, y), srs: 3857, width: 256, height: 256 }
    // A tile drawn with `symbols` or `filter` is not the style's tile: never cached (reference §9).
    const cacheable = !opts.symbols && !opts.filters
    const cache = tileCacheOf(services)
    const key = `${ids.join(',')}/${z}/${x}/${y}`
    const token = cacheable ? await versionOf(services, styles) : ''
    if (cacheable && useCache) {
      const hit = cache.get(key, token)
      if (hit !== undefined) return answer(services, hit ?? undefined, status, 256, 256)
    }
    const png = await draw(services, styles, view, opts)
    // Only kept if nothing changed while it was drawn.
    if (cacheable && token === await versionOf(services, styles)) cache.set(key, token, png)
    return answer(services, png, status, 256, 256)
  })

  routes.add('outpost.render_tile_cache', '/api/component/outpost/render/tile_cache', 'GET', ADMINISTRATOR, (c) =>
    json(tileCacheOf(c.get('services')).stats()))

  routes.add('render.image', '/api/component/render/image', 'GET', onQuery('data', 'read'), async (c) => {
    const params = paramsOf(c)
    const services = c.get('services')
    const ids = idList(params, 'resource')
    const extentRaw = lastValue(params, 'extent')
    if (extentRaw === undefined) throw parameterRequired('extent')
    const extent = extentRaw.split(',').map(Number)
    if (extent.length !== 4 || extent.some((v) => !Number.isFinite(v)) || extent[0]! >= extent[2]! || extent[1]! >= extent[3]!) {
      throw invalidParameter('extent', `Invalid extent '${extentRaw}'; expected minx,miny,maxx,maxy.`)
    }
    const sizeRaw = lastValue(params, 'size')
    if (sizeRaw === undefined) throw parameterRequired('size')
    const size = sizeRaw.split(',').map((s) => (/^[0-9]+$/.test(s) ? Number(s) : NaN))
    if (size.length !== 2 || size.some((v) => !(v >= 1 && v <= MAX_SIZE))) {
      throw invalidParameter('size', `Invalid size '${sizeRaw}'; expected width,height from 1 to ${MAX_SIZE}.`)
    }
    const srs = queryInt(params, 'srs') ?? 3857
    if (!projectionOf(srs)) throw invalidParameter('srs', `Spatial reference system id = ${srs} is not known.`)
    const status = nd(params)
    const opts = renderOptions(params, c.req.raw.signal)
    const styles = await loadStyles(services, ids)
    const view: View = { extent: extent as Bbox, srs, width: size[0]!, height: size[1]! }
    return answer(services, await draw(services, styles, view, opts), status, view.width, view.height)
  })

  const symbolsOf = async (services: RenderServices, id: number, iconSize: number) => {
    const [style] = await loadStyles(services, [id])
    return style!.renderable.kind === 'vector' ? legendSymbols(vectorStyleOf(style!), services.platform.canvas, iconSize) : []
  }
  const iconSizeOf = (params: URLSearchParams) => {
    const v = queryInt(params, 'icon_size') ?? 24
    if (v < 8 || v > 64) throw invalidParameter('icon_size', 'Value must be between 8 and 64.')
    return v
  }

  routes.add('render.legend_symbols', '/api/resource/{id}/legend_symbols', 'GET', onPath('data', 'read'), async (c) =>
    json(await symbolsOf(c.get('services'), Number(c.req.param('id')), iconSizeOf(paramsOf(c)))))

  routes.add('render.resource_legend_symbols', '/api/component/render/legend_symbols', 'GET', onQuery('data', 'read'), async (c) => {
    const params = paramsOf(c)
    const services = c.get('services')
    const size = iconSizeOf(params)
    const items = []
    for (const id of idList(params, 'resources')) items.push({ resource: { id }, legend_symbols: await symbolsOf(services, id, size) })
    return json({ items })
  })

  routes.add('render.legend', '/api/resource/{id}/legend', 'GET', onPath('data', 'read'), async (c) => {
    const services = c.get('services')
    const [style] = await loadStyles(services, [Number(c.req.param('id'))])
    if (style!.renderable.kind !== 'vector') throw pageNotFound()
    return new Response(await legendImage(vectorStyleOf(style!), services.platform.canvas) as Uint8Array<ArrayBuffer>, { headers: PNG_HEADERS })
  })

  routes.add('qgis.style_qml', '/api/resource/{id}/qml', 'GET', onPath('resource', 'read'), async (c) => {
    const [style] = await loadStyles(c.get('services'), [Number(c.req.param('id'))])
    const file = style!.renderable.files?.qml
    if (!file) throw pageNotFound()
    return new Response(file.body(style!.data), { headers: { 'content-type': file.contentType } })
  })
}
