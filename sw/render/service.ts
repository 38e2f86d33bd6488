/**
 * @module render/service
 * Draws one or several styles, lower to upper, into an image of a given extent and size:
 * the logic behind `render/tile` and `render/image`. Each style is drawn by its class's
 * `renderable` capability; tiles are cached until a layer or a style changes.
 */
import type { RenderServices } from './env.ts'
import type { ClassData } from '../resource/class.ts'
import type { ResourceRef } from '../resource/types.ts'
import { resourceNotFound } from '../resource/errors.ts'
import { reprojectBbox, transformer } from '../geo/reproject.ts'
import type { Bbox } from '../geo/geometry.ts'
import type { Surface } from '../image/canvas.ts'
import { drawVector } from './draw-vector.ts'
import { fieldsOf, type Expr } from './expression.ts'
import { styledLayerOf, type StyledLayer } from './parent.ts'
import { scaleDenominator, type VectorStyle } from './style.ts'
import type { RenderableStyle, View } from './types.ts'
import { featureSource } from './features.ts'
import { drawRaster, rasterVersion } from './raster-style.ts'
import { TileCache } from './tile-cache.ts'
import { notRenderable } from './errors.ts'

/** A style resource ready to draw. */
export interface StyleHandle {
  id: number
  renderable: RenderableStyle
  data: ClassData
  /** The class data as JSON text: it identifies the style's version. */
  dataText: string
  /** A short digest of `dataText`, for cache tokens. */
  dataHash: string
  layer: StyledLayer
}

export type { View }

export interface RenderOptions {
  /** `symbols[ID]`: legend indexes to draw, by style id. */
  symbols?: Map<number, Set<number>>
  /** `filter[ID]`: extra conditions, by style id. */
  filters?: Map<number, Expr>
  signal?: AbortSignal
}

/** Pixels around an image that features are still read from, so markers and labels near the edge are not cut. */
const MARGIN_PX = 64

const PARSED = new Map<string, VectorStyle>()
const CACHES = new WeakMap<RenderServices, TileCache>()
/**
 * Handles by the style's ref and made with its parent's ref: the registry hands out the same refs
 * until the main database changes, so a cached tile costs no read, JSON text or hash of the style.
 */
const HANDLES = new WeakMap<ResourceRef, { parent: ResourceRef | undefined; handle: StyleHandle }>()

export function tileCacheOf(services: RenderServices): TileCache {
  let c = CACHES.get(services)
  if (!c) CACHES.set(services, (c = new TileCache()))
  return c
}

/** The styles `ids` in order; 404 for a missing one, 422 for one that cannot be rendered. */
export async function loadStyles(services: RenderServices, ids: number[]): Promise<StyleHandle[]> {
  const { classes } = services
  const refs = await classes.refs(ids)
  const renderableOf = (r: ResourceRef | undefined) => (r && classes.find(r.cls)?.capabilities.renderable)
  const parentIds = refs.flatMap((r) => (renderableOf(r) && r!.parentId !== null ? [r!.parentId] : []))
  const parents = new Map((await classes.refs(parentIds)).flatMap((p) => (p ? [[p.id, p] as const] : [])))
  return ids.map((id, i): StyleHandle => {
    const ref = refs[i]
    if (!ref) throw resourceNotFound(id)
    const renderable = renderableOf(ref)
    if (!renderable) throw notRenderable(id)
    const parent = ref.parentId === null ? undefined : parents.get(ref.parentId)
    const hit = HANDLES.get(ref)
    if (hit && hit.parent === parent) return hit.handle
    const dataText = JSON.stringify(ref.data)
    const handle = { id, renderable, data: ref.data, dataText, dataHash: hashText(dataText), layer: styledLayerOf(classes, parent) }
    HANDLES.set(ref, { parent, handle })
    return handle
  })
}

export function vectorStyleOf(h: StyleHandle): VectorStyle {
  const key = `${h.id}:${h.layer.geometry}:${h.dataText}`
  let s = PARSED.get(key)
  if (!s) {
    s = h.renderable.vectorStyle!(h.data, h.layer.geometry ?? 'polygon')
    if (PARSED.size > 200) PARSED.clear()
    PARSED.set(key, s)
  }
  return s
}

/** A token that changes whenever any of the styles or the data they draw changes. */
export async function versionOf(services: RenderServices, styles: StyleHandle[]): Promise<string> {
  const parts: string[] = []
  for (const h of styles) {
    // An image style's pixels are a remote's: its data and what it names (a connection) are the version.
    const v = h.renderable.kind === 'vector' ? (await featureSource(services, h.layer.id, h.id)).version
      : h.renderable.kind === 'raster' ? await rasterVersion(services, h.layer) : await h.renderable.imageVersion?.(h.data) ?? ''
    parts.push(`${h.id}:${h.dataText.length}:${h.dataHash}:${v}`)
  }
  return parts.join('|')
}

function hashText(s: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(36)
}

/** Draws `styles` on `surface`; returns whether anything was drawn. */
export async function renderStyles(services: RenderServices, surface: Surface, styles: StyleHandle[], view: View,
  opts: RenderOptions = {}): Promise<boolean> {
  let drawn = false
  for (const h of styles) {
    opts.signal?.throwIfAborted()
    if (h.renderable.kind === 'vector') drawn = (await drawVectorStyle(services, surface, h, view, opts)) || drawn
    else if (h.renderable.kind === 'image') drawn = (await drawImageStyle(services, surface, h, view, opts.signal)) || drawn
    else drawn = (await drawRaster(services, surface, h.layer, view, opts.signal)) || drawn
  }
  return drawn
}

async function drawImageStyle(services: RenderServices, surface: Surface, h: StyleHandle, view: View, signal?: AbortSignal): Promise<boolean> {
  const rgba = await h.renderable.image!(h.id, h.data, view, signal)
  if (!rgba) return false
  const tmp = services.platform.canvas(view.width, view.height)
  tmp.putRgba(rgba)
  surface.drawSurface(tmp)
  return true
}

async function drawVectorStyle(services: RenderServices, surface: Surface, h: StyleHandle, view: View, opts: RenderOptions): Promise<boolean> {
  const style = vectorStyleOf(h)
  const source = await featureSource(services, h.layer.id, h.id)
  const res = (view.extent[2] - view.extent[0]) / view.width
  const m = MARGIN_PX * res
  const padded: Bbox = [view.extent[0] - m, view.extent[1] - m, view.extent[2] + m, view.extent[3] + m]
  const bbox = reprojectBbox(padded, view.srs, source.srs)
  const filter = opts.filters?.get(h.id)
  const fields = new Set<string>()
  for (const r of style.rules) { fieldsOf(r.filter, fields); fieldsOf(r.label?.text, fields) }
  for (const l of style.labels) { fieldsOf(l.filter, fields); fieldsOf(l.label.text, fields) }
  fieldsOf(filter, fields)
  const list = [...fields]
  const rows = await source.query(bbox, list, opts.signal)
  if (!rows.length) return false
  const t = source.srs === view.srs ? undefined : transformer(source.srs, view.srs)
  // Scales are in metres per pixel; a geographic view counts a degree as 111,320 m at the equator.
  const metres = view.srs === 4326 ? res * 111320 : res
  // A translucent layer is drawn apart and laid on as a whole, so its own overlaps do not show.
  const target = style.opacity < 1 ? services.platform.canvas(view.width, view.height) : surface
  const drawn = drawVector(target, style, rows, {
    transform: { minX: view.extent[0], maxY: view.extent[3], k: 1 / res,
      project: t && ((x, y) => t([x, y]) as [number, number]) },
    scale: scaleDenominator(metres, style.dpi),
    fields: list,
    symbols: opts.symbols?.get(h.id),
    filter,
    signal: opts.signal,
  })
  if (drawn && target !== surface) surface.drawSurface(target, style.opacity)
  return drawn
}
