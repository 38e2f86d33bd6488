/**
 * @module ogc/wms-map
 * GetMap and GetLegendGraphic (reference ngw-services §2.4, §2.6): the layers drawn by the
 * render path, first at the bottom, each only where its scale limits allow, in any reference
 * system of the EPSG index, as PNG or JPEG.
 */
import type { Principal } from '../auth/types.ts'
import { requireIds } from '../auth/checkpoint.ts'
import { projectionOf } from '../geo/srs.ts'
import { legendImage, rasterLegendIcon } from '../render/legend.ts'
import { loadStyles, renderStyles, vectorStyleOf } from '../render/service.ts'
import type { WmsLayerConfig, WmsService, WmsServices } from './types.ts'
import { bboxOf, crsOf, required, scaleOf, sizeOf, type WmsParams, type WmsVersion } from './wms-params.ts'
import { backgroundOf, encodeMap, mapFormatOf, type MapFormat } from './wms-image.ts'
import { noLegend, styleNotDefined } from './wms-errors.ts'
import { layerByKeyname, layersOf } from './wms-layers.ts'

/** Whether a layer is drawn at `scale` (§2.4: `min` is the zoomed-out limit). */
export const inScale = (l: WmsLayerConfig, scale: number) =>
  (l.min_scale_denom === null || l.min_scale_denom >= scale) && (l.max_scale_denom === null || scale >= l.max_scale_denom)

/** `STYLES`: empty, or one entry per layer, each empty or the one style the capabilities name (`default`). */
function checkStyles(params: WmsParams, count: number): void {
  const raw = params.get('STYLES')
  if (!raw) return
  const names = raw.split(',')
  const bad = names.find((s) => s !== '' && s !== 'default')
  if (bad !== undefined) throw styleNotDefined(bad)
  if (names.length !== count) throw styleNotDefined(raw)
}

export async function getMap(services: WmsServices, user: Principal, svc: WmsService, params: WmsParams, version: WmsVersion,
  signal?: AbortSignal): Promise<{ bytes: Uint8Array; format: MapFormat }> {
  const layers = layersOf(svc, params, 'LAYERS')
  checkStyles(params, layers.length)
  const format = mapFormatOf(params)
  const bg = backgroundOf(params)
  const crs = await crsOf(params, version, services.platform.epsg)
  const extent = bboxOf(params, crs)
  const width = sizeOf(params, 'WIDTH'), height = sizeOf(params, 'HEIGHT')
  await requireIds(services, user, layers.map((l) => l.resource_id), 'data', 'read')
  const scale = scaleOf(extent, width, projectionOf(crs.srs)!.geographic)
  const shown = layers.filter((l) => inScale(l, scale))
  const styles = await loadStyles(services, shown.map((l) => l.resource_id))
  const { canvas } = services.platform
  const surface = canvas(width, height)
  await renderStyles(services, surface, styles, { extent, srs: crs.srs, width, height }, { signal })
  return { bytes: await encodeMap(canvas, surface, format, bg), format }
}

/** The legend of `LAYER` (singular; FORMAT and STYLE are ignored, §2.6) as a PNG; a raster style's is an icon, as the original's. */
export async function getLegend(services: WmsServices, user: Principal, svc: WmsService, params: WmsParams): Promise<Uint8Array> {
  const layer = layerByKeyname(svc, required(params, 'LAYER'))
  await requireIds(services, user, [layer.resource_id], 'data', 'read')
  const [style] = await loadStyles(services, [layer.resource_id])
  if (style!.renderable.kind === 'raster') return rasterLegendIcon(services.platform.canvas)
  if (style!.renderable.kind !== 'vector') throw noLegend()
  return legendImage(vectorStyleOf(style!), services.platform.canvas)
}
