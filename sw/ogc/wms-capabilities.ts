/**
 * @module ogc/wms-capabilities
 * The capabilities documents. 1.1.1 is the original's document (reference ngw-services §2.3)
 * plus what costs nothing: each layer's own boxes, a `default` style with its LegendURL, and
 * its scale limits (`ScaleHint`). 1.3.0 follows §6.6: the WMS namespace, `CRS`, the
 * geographic box, EPSG:4326 boxes latitude first, scale denominators, and the size limits.
 */
import type { Bbox } from '../geo/geometry.ts'
import { el } from './xml-out.ts'
import { MAX_IMAGE_SIZE, type WmsVersion } from './wms-params.ts'
import { MAP_FORMATS } from './wms-image.ts'
import type { WmsLayerConfig } from './types.ts'

/** What the document says of one layer. */
export interface LayerFacts {
  config: WmsLayerConfig
  queryable: boolean
  /** The layer's data in degrees (`[minLon, minLat, maxLon, maxLat]`); `null` when it has none. */
  lonLat: Bbox | null
  /** The layer's data in its own system, when that is not EPSG:4326; `yx`: its 1.3.0 box is northing (latitude) first. */
  native?: { srs: number; bbox: Bbox; yx: boolean }
  /** The size of its legend image; absent when it has none. */
  legend?: { width: number; height: number }
}

export interface CapabilitiesInput {
  version: WmsVersion
  /** The endpoint's URL without query (the request's own scheme, host and path, §2.3). */
  url: string
  title: string
  abstract: string
  /** EPSG codes offered, EPSG:4326 first (GDAL takes the first for a layer without its own box, §6.4). */
  srs: readonly number[]
  layers: LayerFacts[]
}

/** The root's box, as the original's: the whole Web Mercator world. */
const WORLD: Bbox = [-180, -85.051129, 180, 85.051129]
export const INFO_FORMATS = ['text/html', 'application/json'] as const
/** The ground size of a pixel at scale 1 (96 dpi, the scale of §2.4); ScaleHint counts the pixel's diagonal. */
const PIXEL_M = 0.0254 / 96

const f6 = (v: number) => v.toFixed(6)
const XLINK = 'http://www.w3.org/1999/xlink'

const href = (url: string) => el('OnlineResource', { 'xlink:type': 'simple', 'xlink:href': url })
const dcp = (url: string) => el('DCPType', null, [el('HTTP', null, [el('Get', null, [href(url)]), el('Post', null, [href(url)])])])
const op = (name: string, formats: readonly string[], url: string) =>
  el(name, null, [...formats.map((f) => el('Format', null, f)), dcp(url)])

function legendUrl(input: CapabilitiesInput, l: LayerFacts): string | undefined {
  if (!l.legend) return undefined
  const q = `SERVICE=WMS&VERSION=${input.version}&REQUEST=GetLegendGraphic&LAYER=${encodeURIComponent(l.config.keyname)}&FORMAT=image/png`
  return el('LegendURL', { width: l.legend.width, height: l.legend.height }, [el('Format', null, 'image/png'), href(`${input.url}?${q}`)])
}

function style(input: CapabilitiesInput, l: LayerFacts): string {
  return el('Style', null, [el('Name', null, 'default'), el('Title', null, 'default'), legendUrl(input, l)])
}

function layer111(input: CapabilitiesInput, l: LayerFacts): string {
  const { min_scale_denom: min, max_scale_denom: max } = l.config
  const hint = (v: number | null, fallback: number) => (v === null ? fallback : v * PIXEL_M * Math.SQRT2)
  return el('Layer', { queryable: l.queryable ? 1 : 0 }, [
    el('Name', null, l.config.keyname), el('Title', null, l.config.display_name),
    // The original names EPSG:3857 on every layer (the root's list is inherited anyway).
    el('SRS', null, 'EPSG:3857'),
    ...(l.lonLat ? [el('LatLonBoundingBox', bboxAttrs(l.lonLat))] : []),
    l.native && el('BoundingBox', { SRS: `EPSG:${l.native.srs}`, ...bboxAttrs(l.native.bbox) }),
    style(input, l),
    (min !== null || max !== null) && el('ScaleHint', { min: hint(max, 0), max: hint(min, 1e12) }),
  ])
}

function layer130(input: CapabilitiesInput, l: LayerFacts): string {
  const { min_scale_denom: min, max_scale_denom: max } = l.config
  return el('Layer', { queryable: l.queryable ? 1 : 0 }, [
    el('Name', null, l.config.keyname), el('Title', null, l.config.display_name),
    ...(l.lonLat ? geographic130(l.lonLat) : []),
    l.native && el('BoundingBox', { CRS: `EPSG:${l.native.srs}`, ...bboxAttrs(l.native.yx ? yxBox(l.native.bbox) : l.native.bbox) }),
    style(input, l),
    // The original's min is the zoomed-out limit, the larger denominator (§2.4).
    max !== null && el('MinScaleDenominator', null, String(max)),
    min !== null && el('MaxScaleDenominator', null, String(min)),
  ])
}

/** An x, y box in y, x order. */
const yxBox = (b: Bbox): Bbox => [b[1], b[0], b[3], b[2]]

const bboxAttrs = (b: Bbox) => ({ minx: f6(b[0]), miny: f6(b[1]), maxx: f6(b[2]), maxy: f6(b[3]) })

/** The 1.3.0 geographic box, and the same box as CRS:84 (lon/lat) and as EPSG:4326 (lat/lon, §6.6). */
function geographic130(b: Bbox): string[] {
  return [
    el('EX_GeographicBoundingBox', null, [el('westBoundLongitude', null, f6(b[0])), el('eastBoundLongitude', null, f6(b[2])),
      el('southBoundLatitude', null, f6(b[1])), el('northBoundLatitude', null, f6(b[3]))]),
    el('BoundingBox', { CRS: 'CRS:84', ...bboxAttrs(b) }),
    el('BoundingBox', { CRS: 'EPSG:4326', ...bboxAttrs(yxBox(b)) }),
  ]
}

export function capabilities(input: CapabilitiesInput): { body: string; contentType: string } {
  return input.version === '1.3.0' ? capabilities130(input) : capabilities111(input)
}

function capabilities111(input: CapabilitiesInput): { body: string; contentType: string } {
  const dcpUrl = `${input.url}?`
  const doc = el('WMT_MS_Capabilities', { 'xmlns:xlink': XLINK, version: '1.1.1' }, [
    el('Service', null, [el('Name', null, 'OGC:WMS'), el('Title', null, input.title), el('Abstract', null, input.abstract), href(input.url)]),
    el('Capability', null, [
      el('Request', null, [
        op('GetCapabilities', ['application/vnd.ogc.wms_xml'], dcpUrl),
        op('GetMap', MAP_FORMATS, dcpUrl),
        op('GetFeatureInfo', INFO_FORMATS, dcpUrl),
        op('GetLegendGraphic', ['image/png'], dcpUrl),
      ]),
      el('Exception', null, ['application/vnd.ogc.se_xml', 'application/vnd.ogc.se_inimage', 'application/vnd.ogc.se_blank'].map((f) => el('Format', null, f))),
      el('Layer', null, [
        el('Title', null, input.title),
        ...input.srs.map((s) => el('SRS', null, `EPSG:${s}`)),
        el('LatLonBoundingBox', bboxAttrs(WORLD)),
        ...input.layers.map((l) => layer111(input, l)),
      ]),
    ]),
  ])
  return {
    body: `<?xml version='1.0' encoding='utf-8'?>\n<!DOCTYPE WMT_MS_Capabilities SYSTEM "http://schemas.opengis.net/wms/1.1.1/WMS_MS_Capabilities.dtd">\n${doc}\n`,
    contentType: 'application/vnd.ogc.wms_xml',
  }
}

function capabilities130(input: CapabilitiesInput): { body: string; contentType: string } {
  const dcpUrl = `${input.url}?`
  const doc = el('WMS_Capabilities', { xmlns: 'http://www.opengis.net/wms', 'xmlns:xlink': XLINK,
    'xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', version: '1.3.0',
    'xsi:schemaLocation': 'http://www.opengis.net/wms http://schemas.opengis.net/wms/1.3.0/capabilities_1_3_0.xsd' }, [
    el('Service', null, [el('Name', null, 'WMS'), el('Title', null, input.title), el('Abstract', null, input.abstract), href(input.url),
      el('MaxWidth', null, String(MAX_IMAGE_SIZE)), el('MaxHeight', null, String(MAX_IMAGE_SIZE))]),
    el('Capability', null, [
      el('Request', null, [
        op('GetCapabilities', ['text/xml'], dcpUrl),
        op('GetMap', MAP_FORMATS, dcpUrl),
        op('GetFeatureInfo', INFO_FORMATS, dcpUrl),
      ]),
      el('Exception', null, ['XML', 'INIMAGE', 'BLANK'].map((f) => el('Format', null, f))),
      el('Layer', null, [
        el('Title', null, input.title),
        el('CRS', null, 'CRS:84'),
        ...input.srs.map((s) => el('CRS', null, `EPSG:${s}`)),
        ...geographic130(WORLD),
        ...input.layers.map((l) => layer130(input, l)),
      ]),
    ]),
  ])
  return { body: `<?xml version='1.0' encoding='utf-8'?>\n${doc}\n`, contentType: 'text/xml; charset=utf-8' }
}
