/**
 * @module ogc/wms-layers
 * A service's layers as a request sees them: by keyname (the first match wins, §2.1), the ones
 * the user may read (§2.3, 5.2+), and what the capabilities say of each: queryable, its boxes,
 * its legend's size. Layers are whatever the render path can draw, found by capability.
 */
import type { Principal } from '../auth/types.ts'
import { allowed } from '../auth/checkpoint.ts'
import { reprojectBbox } from '../geo/reproject.ts'
import type { Bbox } from '../geo/geometry.ts'
import { isYxOrder, projectionOf } from '../geo/srs.ts'
import { legendSize } from '../render/legend.ts'
import { loadStyles, vectorStyleOf, type StyleHandle } from '../render/service.ts'
import type { LayerFacts } from './wms-capabilities.ts'
import type { WmsLayerConfig, WmsService, WmsServices } from './types.ts'
import { invalidValue, layerNotDefined } from './wms-errors.ts'
import { required, type WmsParams } from './wms-params.ts'

/** Layers one request may name: each is drawn or queried in turn, so a long list is work without bound. */
export const MAX_REQUEST_LAYERS = 64

export function layerByKeyname(svc: WmsService, name: string): WmsLayerConfig {
  const l = svc.layers.find((c) => c.keyname === name)
  if (!l) throw layerNotDefined(name)
  return l
}

/** The layers parameter `name` (`LAYERS`, `QUERY_LAYERS`) as the service's layers, at most `MAX_REQUEST_LAYERS`. */
export function layersOf(svc: WmsService, params: WmsParams, name: string): WmsLayerConfig[] {
  const names = required(params, name).split(',')
  if (names.length > MAX_REQUEST_LAYERS) throw invalidValue(`Too many layers in ${name}: at most ${MAX_REQUEST_LAYERS}.`)
  return names.map((n) => layerByKeyname(svc, n))
}

/** The layers that exist, can be drawn and whose data `user` may read, in the service's order. */
export async function readableLayers(services: WmsServices, user: Principal, svc: WmsService): Promise<WmsLayerConfig[]> {
  const refs = await services.classes.refs(svc.layers.map((l) => l.resource_id))
  const out: WmsLayerConfig[] = []
  for (const [i, l] of svc.layers.entries()) {
    const ref = refs[i]
    if (!ref || !services.classes.find(ref.cls)?.capabilities.renderable) continue
    if (await allowed(services, user, ref.id, 'data', 'read')) out.push(l)
  }
  return out
}

/** Whether a style's features can be asked for: a vector style of a feature layer. */
export async function isQueryable(services: WmsServices, h: StyleHandle): Promise<boolean> {
  return h.renderable.kind === 'vector' && !!await services.classes.featureLayer(h.layer.id)
}

/** The layer's data extent in its own system; `undefined` when it has none. */
async function extentOf(services: WmsServices, h: StyleHandle): Promise<{ bbox: Bbox; srs: number } | undefined> {
  const other = await services.classes.layerExtent?.(h.layer.id)
  if (other) return other.bbox ? { bbox: other.bbox, srs: other.srs } : undefined
  const layer = await services.classes.featureLayer(h.layer.id)
  const bbox = layer && await layer.read((tx) => tx.extent())
  return bbox ? { bbox, srs: layer!.meta.srs } : undefined
}

function toLonLat(e: { bbox: Bbox; srs: number }): Bbox | null {
  try {
    const b = reprojectBbox(e.bbox, e.srs, 4326)
    return b.every(Number.isFinite) ? b : null
  } catch {
    return null
  }
}

/** Whether a box in `srs` is y, x in 1.3.0; an unknown system (its box could not be read) is x, y. */
function yxOf(srs: number): boolean {
  const def = projectionOf(srs)
  return def ? isYxOrder(def) : false
}

export async function layerFacts(services: WmsServices, layers: WmsLayerConfig[]): Promise<LayerFacts[]> {
  const handles = await loadStyles(services, layers.map((l) => l.resource_id))
  const out: LayerFacts[] = []
  for (const [i, config] of layers.entries()) {
    const h = handles[i]!
    const extent = await extentOf(services, h)
    const style = h.renderable.kind === 'vector' ? vectorStyleOf(h) : undefined
    out.push({
      config,
      queryable: await isQueryable(services, h),
      lonLat: extent ? toLonLat(extent) : null,
      native: extent && extent.srs !== 4326 ? { ...extent, yx: yxOf(extent.srs) } : undefined,
      legend: style?.rules.some((r) => r.enabled) ? legendSize(style, services.platform.canvas) : undefined,
    })
  }
  return out
}
