/**
 * @module ogc/wms-params
 * Reading a WMS request (reference ngw-services §2.2, §2.4, §6.6): names case-insensitive, the
 * last repeat wins; the version answered; the reference system (`SRS` or `CRS`) with the axis
 * order 1.3.0 gives it; the box and the image size.
 */
import type { Bbox } from '../geo/geometry.ts'
import { isYxOrder, loadProjection, type EpsgSource } from '../geo/srs.ts'
import { invalidPoint, invalidSrs, invalidValue, missingParameter } from './wms-errors.ts'

export type WmsVersion = '1.1.1' | '1.3.0'

/** The largest WIDTH and HEIGHT drawn (the original has none: §2.4 TRAP); advertised in 1.3.0's capabilities. */
export const MAX_IMAGE_SIZE = 4096

/** The request's parameters by upper-cased name. */
export type WmsParams = Map<string, string>

export function wmsParams(pairs: Iterable<[string, string]>): WmsParams {
  const out: WmsParams = new Map()
  for (const [k, v] of pairs) out.set(k.toUpperCase(), v)
  return out
}

/**
 * The version answered: 1.3.0 for a request of 1.3.0 or later, else 1.1.1, the default, which
 * every client of the original assumes (§6.6). `WMTVER` is WMS 1.0's name for it.
 */
export function versionOf(params: WmsParams): WmsVersion {
  const raw = params.get('VERSION') ?? params.get('WMTVER')
  const m = raw && /^(\d{1,3})\.(\d{1,3})/.exec(raw)
  if (!m) return '1.1.1'
  const [major, minor] = [Number(m[1]), Number(m[2])]
  return major > 1 || (major === 1 && minor >= 3) ? '1.3.0' : '1.1.1'
}

export function required(params: WmsParams, name: string): string {
  const v = params.get(name)
  if (v === undefined || v === '') throw missingParameter(name)
  return v
}

/** A reference system of a request: its EPSG code, and whether a 1.3.0 box lists it latitude first. */
export interface WmsCrs { srs: number; yx: boolean; name: string }

const FORMS = [/^EPSG:(\d{1,9})$/i, /^urn:ogc:def:crs:EPSG:[^:]*:(\d{1,9})$/i, /^https?:\/\/www\.opengis\.net\/def\/crs\/EPSG\/0\/(\d{1,9})$/i]

/**
 * `SRS` (else `CRS`): `EPSG:n`, its URN and URL forms, or `CRS:84`; any code of the EPSG index
 * proj4 can use. In 1.3.0 a box is in its system's axis order (§6.6): latitude first for a
 * geographic EPSG system, northing first for the projected ones so defined; 1.1.1 and CRS:84
 * are always x, y.
 */
export async function crsOf(params: WmsParams, version: WmsVersion, epsg: EpsgSource): Promise<WmsCrs> {
  const raw = params.get('SRS') || params.get('CRS')
  if (!raw) throw invalidSrs('CRS/SRS parameter required.')
  if (/^CRS:84$/i.test(raw)) return { srs: 4326, yx: false, name: 'CRS:84' }
  let code: number | undefined
  for (const re of FORMS) {
    const m = re.exec(raw)
    if (m) { code = Number(m[1]); break }
  }
  if (code === undefined) throw invalidSrs(`Could not recognize SRS format '${raw}'.`)
  const def = await loadProjection(code, epsg)
  if (!def) throw invalidSrs(`SRS (id=${code}) not found.`)
  return { srs: code, yx: version === '1.3.0' && isYxOrder(def), name: `EPSG:${code}` }
}

/** `BBOX` as `[minX, minY, maxX, maxY]` in the system's x, y order. */
export function bboxOf(params: WmsParams, crs: WmsCrs): Bbox {
  const parts = required(params, 'BBOX').split(',')
  const v = parts.map((s) => (/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d{1,3})?\s*$/.test(s) ? Number(s) : NaN))
  if (v.length !== 4 || v.some((n) => !Number.isFinite(n))) throw invalidValue('Invalid BBOX parameter.')
  const b: Bbox = crs.yx ? [v[1]!, v[0]!, v[3]!, v[2]!] : [v[0]!, v[1]!, v[2]!, v[3]!]
  if (b[0] >= b[2] || b[1] >= b[3]) throw invalidValue('Invalid BBOX parameter: the minimum is not below the maximum.')
  return b
}

/** A positive integer parameter up to `max`. */
export function sizeOf(params: WmsParams, name: string, max = MAX_IMAGE_SIZE): number {
  const raw = required(params, name)
  const n = /^\s*\d{1,9}\s*$/.test(raw) ? Number(raw) : NaN
  if (!(n >= 1 && n <= max)) throw invalidValue(`Invalid ${name} parameter: '${raw}'; expected an integer from 1 to ${max}.`)
  return n
}

/** A pixel coordinate (`X`/`I`, `Y`/`J`) inside `0 … size − 1`. */
export function pixelOf(params: WmsParams, names: [string, string], size: number): number {
  const raw = params.get(names[0]) ?? params.get(names[1])
  if (raw === undefined || raw === '') throw missingParameter(names[0])
  const n = /^\s*\d{1,9}\s*$/.test(raw) ? Number(raw) : NaN
  if (!(n >= 0 && n < size)) throw invalidPoint(`Invalid ${names[0]} parameter: '${raw}'.`)
  return n
}

/**
 * The scale denominator of a view (§2.4: 96 dpi): the ground width in metres over the image
 * width in metres. A geographic box is measured along its middle latitude.
 */
export function scaleOf(extent: Bbox, width: number, geographic: boolean): number {
  let ground = extent[2] - extent[0]
  if (geographic) {
    const lat = ((extent[1] + extent[3]) / 2) * Math.PI / 180
    ground = ground * Math.PI / 180 * 6378137 * Math.cos(lat)
  }
  return ground / (width / 96 * 0.0254)
}
