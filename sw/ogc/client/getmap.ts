/**
 * @module ogc/client/getmap
 * A view of a remote WMS layer as RGBA pixels (reference ngw-services §3.4): the GetMap URL,
 * the image fetched in the layer's `remote_srs` and warped into the view's system when they
 * differ, and the images kept for offline use. A GetMap answer that arrives is kept (as the
 * remote sent it, by the hash of its URL) in the host's store; when the remote cannot be
 * reached (offline, down, too slow) the kept image of that same request is drawn instead, and
 * without one the error says so. Kept images are bounded in number (`MAX_KEPT`), the oldest going first.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { decode as decodeJpeg } from 'jpeg-js'
import { ApiError } from '../../core/error.ts'
import type { Bbox } from '../../geo/geometry.ts'
import { isYxOrder, projectionOf } from '../../geo/srs.ts'
import { reprojectBbox, transformer } from '../../geo/reproject.ts'
import { decodeRgba } from '../../image/png.ts'
import type { Store } from '../../store/store.ts'
import { wmsMalformed, wmsUnreachable } from './errors.ts'
import { appOriginOf, fetchMap, imageKind, isNetworkFailure, withParams, type RemoteImage, type WmsConnection, type WmsHost } from './request.ts'

/** What a layer asks of its connection. */
export interface WmsLayerParams {
  /** Comma-separated layer names. */
  wmslayers: string
  imgformat: string
  /** EPSG code the remote is asked in. */
  remoteSrs: number
  vendorParams: Record<string, string>
}

/** Images kept for offline use, in all, unless the host says otherwise (`Platform.wmsKept`). */
export const MAX_KEPT = 5000
/** The bound is checked every this many images kept (a tenth of the bound when that is less). */
const TRIM_EVERY = 100
/** Largest decoded image, in pixels (a view is at most 8192 × 8192 by the render routes). */
const MAX_PIXELS = 8192 * 8192

export type MapHost = WmsHost & { store: Store; wmsKept?: number; log(message: string, err?: unknown): void }

/** Parameters the layer's `vendor_params` may not override: they say what is being asked. */
const FIXED = new Set(['service', 'request', 'version', 'srs', 'crs'])

/**
 * The GetMap URL of `bbox` (in `remoteSrs`, x/y order) at `width` × `height`. For 1.3.0 the box
 * is sent in the system's own axis order, as the standard has it (§6.6): latitude first for a
 * geographic system, northing first for a projected one so defined (EPSG:31466, EPSG:3035…).
 */
export function getMapUrl(conn: WmsConnection, layer: WmsLayerParams, bbox: Bbox, width: number, height: number): string {
  const def = projectionOf(layer.remoteSrs)
  const b = conn.version === '1.3.0' && def && isYxOrder(def) ? [bbox[1], bbox[0], bbox[3], bbox[2]] : bbox
  const params = new Map<string, [string, string]>()
  const set = (k: string, v: string) => params.set(k.toLowerCase(), [k, v])
  set('layers', layer.wmslayers)
  set('styles', '')
  set('format', layer.imgformat)
  set('bbox', b.map(String).join(','))
  set('width', String(width))
  set('height', String(height))
  set('transparent', 'true')
  for (const [k, v] of Object.entries(layer.vendorParams)) if (!FIXED.has(k.toLowerCase())) set(k, v)
  set(conn.version === '1.3.0' ? 'crs' : 'srs', `EPSG:${layer.remoteSrs}`)
  set('service', 'WMS')
  set('request', 'GetMap')
  set('version', conn.version)
  return withParams(conn.url, [...params.values()])
}

/** The blob a GetMap answer of `url` is kept under. */
const keptId = (conn: number, url: string) => `wmsc-${conn}-${bytesToHex(sha256(utf8ToBytes(url))).slice(0, 40)}`

/** The prefix of every image kept for connection `conn` (`forgetKept`). */
export const keptPrefix = (conn: number) => `wmsc-${conn}-`

/**
 * The images kept by this process, oldest first (one written again moves to the end). A blob
 * store keeps no order, so images kept before this process started count as older than all of these.
 */
const order = new WeakMap<Store, { ids: Map<string, true>; writes: number }>()

async function keep(host: MapHost, id: string, bytes: Uint8Array): Promise<void> {
  const max = host.wmsKept ?? MAX_KEPT
  let o = order.get(host.store)
  if (!o) order.set(host.store, o = { ids: new Map(), writes: 0 })
  try {
    await host.store.putBlob(id, bytes)
    o.ids.delete(id)
    o.ids.set(id, true)
    if (++o.writes % Math.max(1, Math.min(TRIM_EVERY, Math.ceil(max / 10))) === 0) await trimKept(host.store, o.ids, max)
  } catch (err) {
    // A full store costs the offline copy, not the map.
    host.log('A WMS image could not be kept for offline use', err)
  }
}

/** Drops the oldest kept images beyond `max`: those of earlier processes first, then this one's in the order kept. */
async function trimKept(store: Store, ids: Map<string, true>, max: number): Promise<void> {
  const all = await store.listBlobs('wmsc-')
  if (all.length <= max) return
  const present = new Set(all)
  const ours = [...ids.keys()].filter((id) => present.has(id))
  const mine = new Set(ours)
  const oldestFirst = [...all.filter((id) => !mine.has(id)), ...ours]
  for (const id of oldestFirst.slice(0, all.length - max)) {
    await store.deleteBlob(id)
    ids.delete(id)
  }
}

/** Drops every image kept for connection `conn` (it was deleted, or its capabilities cleared). */
export async function forgetKept(store: Store, conn: number): Promise<void> {
  for (const id of await store.listBlobs(keptPrefix(conn))) await store.deleteBlob(id)
}

const timedOut = (err: unknown) => err instanceof ApiError && err.title === 'Remote server timed out'

/** The GetMap answer of `url`, from the remote or, when it cannot be reached, as kept. */
async function mapImage(host: MapHost, conn: WmsConnection, url: string, signal?: AbortSignal): Promise<RemoteImage | null> {
  const id = keptId(conn.id, url)
  let image: RemoteImage | null
  try {
    image = await fetchMap(host, conn, url, signal)
  } catch (err) {
    if (!isNetworkFailure(err) && !timedOut(err)) throw err
    const kept = await host.store.getBlob(id)
    const format = kept && imageKind(kept)
    if (kept && format) return { bytes: kept, format }
    if (timedOut(err)) throw err
    throw wmsUnreachable(new URL(conn.url).origin, err, appOriginOf(host), true)
  }
  if (image) await keep(host, id, image.bytes)
  return image
}

/** RGBA of `image`, which must be `width` × `height`; a 502 when it cannot be decoded or has another size. */
function pixelsOf(conn: WmsConnection, image: RemoteImage, width: number, height: number): Uint8ClampedArray {
  const origin = new URL(conn.url).origin
  let w: number, h: number, data: Uint8Array
  try {
    if (image.format === 'png') ({ width: w, height: h, data } = decodeRgba(image.bytes))
    else ({ width: w, height: h, data } = decodeJpeg(image.bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_PIXELS / 1e6 }))
  } catch (err) {
    throw wmsMalformed(origin, 'GetMap', `a ${image.format.toUpperCase()} image that cannot be decoded (${(err as Error).message})`, null)
  }
  if (w !== width || h !== height) throw wmsMalformed(origin, 'GetMap', `an image of ${w} × ${h} pixels instead of ${width} × ${height}`, null)
  return new Uint8ClampedArray(data.buffer, data.byteOffset, data.byteLength)
}

export interface MapView { extent: Bbox; srs: number; width: number; height: number }

/**
 * The layer's pixels in `view` (RGBA, straight alpha), or `undefined` when the remote has
 * nothing there (204, 404). In the view's system the remote's image is drawn as it is; in
 * another one it is asked for the view's box in `remote_srs` and each pixel of the view is
 * taken from the point of the image it falls on.
 */
export async function drawWmsView(host: MapHost, conn: WmsConnection, layer: WmsLayerParams, view: MapView,
  signal?: AbortSignal): Promise<Uint8ClampedArray | undefined> {
  const { width, height } = view
  if (view.srs === layer.remoteSrs) {
    const image = await mapImage(host, conn, getMapUrl(conn, layer, view.extent, width, height), signal)
    return image ? pixelsOf(conn, image, width, height) : undefined
  }
  const box = reprojectBbox(view.extent, view.srs, layer.remoteSrs)
  if (!box.every(Number.isFinite) || box[0] >= box[2] || box[1] >= box[3]) return undefined
  const image = await mapImage(host, conn, getMapUrl(conn, layer, box, width, height), signal)
  if (!image) return undefined
  const src = pixelsOf(conn, image, width, height)
  const out = new Uint8ClampedArray(width * height * 4)
  const t = transformer(view.srs, layer.remoteSrs)
  const [vx0, , vx1, vy1] = view.extent
  const rx = (vx1 - vx0) / width, ry = (vy1 - view.extent[1]) / height
  const kx = width / (box[2] - box[0]), ky = height / (box[3] - box[1])
  for (let y = 0; y < height; y++) {
    signal?.throwIfAborted()
    for (let x = 0; x < width; x++) {
      const p = t([vx0 + (x + 0.5) * rx, vy1 - (y + 0.5) * ry])
      const sx = Math.floor((p[0]! - box[0]) * kx), sy = Math.floor((box[3] - p[1]!) * ky)
      if (!(sx >= 0 && sx < width && sy >= 0 && sy < height)) continue
      const i = (sy * width + sx) * 4, o = (y * width + x) * 4
      out[o] = src[i]!; out[o + 1] = src[i + 1]!; out[o + 2] = src[i + 2]!; out[o + 3] = src[i + 3]!
    }
  }
  return out
}
