/**
 * @module sync/webmap/remote-map
 * A remote web map read for taking it offline: its layer items (tree kept, each with its
 * style and the style's layer), its basemaps with their tile URLs, the layers' feature counts;
 * and what of it cannot come (a layer the connection's account may not read, a basemap it may
 * not read) as `missing`, never as a failure of the whole.
 */
import { ApiError, validationError } from '../../core/error.ts'
import type { RemoteClient } from '../client.ts'
import { asReadRefusal } from '../errors.ts'
import type { Credentials } from '../types.ts'

/** One thing of the map that is not on the device, and why. */
export interface Missing { kind: 'layer' | 'style' | 'basemap' | 'tiles'; name: string; reason: string }

export interface RemoteItem {
  display_name: string
  /** The remote style and its layer. */
  style: number
  layer: number
}

export interface RemoteBasemap { name: string; resource: number; enabled: boolean; opacity: number | null; url: string
  copyright_text: string | null; z_min: number | null; z_max: number | null }

/** A remote layer: a feature layer with its count, or a raster (its reference system and samples: width × height × bands). */
export interface RemoteLayer { name: string; features: number; raster?: { srs: number; pixels: number } }

export interface RemoteMap {
  name: string
  /** The map's initial extent `[west, south, east, north]`, when it has one: the area a form starts from. */
  extent: number[] | null
  /** The remote `root_item` as answered (the tree rebuilt locally). */
  root: Record<string, unknown>
  items: RemoteItem[]
  basemaps: RemoteBasemap[]
  /** Per remote layer: its name and feature count; per remote style: its class and member. */
  layers: Map<number, RemoteLayer>
  styles: Map<number, { cls: string; member: unknown }>
  missing: Missing[]
}

/** Layers of one map taken offline: each is read (and later linked) one request after another. */
export const MAX_LAYERS = 200

/** Whether `err` is the remote refusing (or not finding) what was asked: then that part is missing, not the job failed. */
const refusedOrGone = (err: unknown) => err instanceof ApiError && err.status === 502 && [401, 403, 404].includes(remoteStatus(err))

const remoteStatus = (err: ApiError) => Number(err.opts.data?.remote_status)

/** Groups deeper than this are not followed (our own trees stop at 32 levels; a remote's answer is not trusted to). */
export const MAX_DEPTH = 32

/** Layer items of `node`, depth first, in the tree's order. */
export function* layerItems(node: Record<string, unknown>, depth = 0): Generator<Record<string, unknown>> {
  for (const c of Array.isArray(node.children) ? node.children as Record<string, unknown>[] : []) {
    if (c?.item_type === 'layer') yield c
    else if (c?.item_type === 'group' && depth < MAX_DEPTH) yield* layerItems(c, depth + 1)
  }
}

/** Reads remote web map `id` through `client`; a 422 when it is no web map, RemoteAccessRefused when it may not be read. */
export async function readRemoteMap(client: RemoteClient, creds: Credentials, id: number): Promise<RemoteMap> {
  const doc = await client.get(`/api/resource/${id}`).catch((err: unknown) => { throw asReadRefusal(err, creds, id) })
  if (doc?.resource?.cls !== 'webmap' || typeof doc.webmap?.root_item !== 'object') {
    throw validationError(`Remote resource ${id} is not a web map - at \`$.webmap\``)
  }
  const ext = doc.webmap.initial_extent
  const extent = Array.isArray(ext) && ext.length === 4 && ext.every((v: unknown) => typeof v === 'number') ? ext as number[] : null
  const map: RemoteMap = { name: String(doc.resource.display_name ?? `Web map ${id}`), extent, root: doc.webmap.root_item, items: [], basemaps: [],
    layers: new Map(), styles: new Map(), missing: [] }
  for (const it of layerItems(map.root)) {
    const name = String(it.display_name ?? '')
    const style = Number(it.layer_style_id)
    const layer = Number(it.style_parent_id)
    if (!Number.isInteger(style) || !Number.isInteger(layer)) continue
    map.items.push({ display_name: name, style, layer })
  }
  const layerCount = new Set(map.items.map((i) => i.layer)).size
  if (layerCount > MAX_LAYERS) {
    throw validationError(`Remote web map ${id} has ${layerCount} layers, more than the ${MAX_LAYERS} a map taken offline may have - at \`$.webmap\``)
  }
  const gone = new Set<number>()
  for (const item of map.items) {
    if (!map.layers.has(item.layer) && !gone.has(item.layer)) {
      try {
        const layerDoc = await client.get(`/api/resource/${item.layer}`)
        const name = String(layerDoc?.resource?.display_name ?? item.display_name)
        const r = layerDoc?.raster_layer
        if (layerDoc?.resource?.cls === 'raster_layer' && r) {
          // A raster comes as a copy of its file; its pixels bound what it can weigh (the file is compressed).
          map.layers.set(item.layer, { name, features: 0, raster: { srs: Number(r.srs?.id), pixels: Number(r.xsize) * Number(r.ysize) * Number(r.band_count) || 0 } })
        } else {
          const count = await client.get(`/api/resource/${item.layer}/feature_count`)
          map.layers.set(item.layer, { name, features: Number(count?.total_count ?? 0) })
        }
      } catch (err) {
        if (!refusedOrGone(err)) throw err
        gone.add(item.layer)
        map.missing.push({ kind: 'layer', name: item.display_name, reason: reasonOf(err as ApiError, creds, 'its data') })
        continue
      }
    }
    if (gone.has(item.layer) || map.styles.has(item.style)) continue
    const styleDoc = await client.get(`/api/resource/${item.style}`)
    const cls = String(styleDoc?.resource?.cls)
    map.styles.set(item.style, { cls, member: styleDoc?.[cls] })
  }
  for (const b of Array.isArray(doc.basemap_webmap?.basemaps) ? doc.basemap_webmap.basemaps as Record<string, unknown>[] : []) {
    const name = String(b.display_name ?? '')
    try {
      const bl = (await client.get(`/api/resource/${Number(b.resource_id)}`))?.basemap_layer
      if (typeof bl?.url !== 'string') {
        map.missing.push({ kind: 'basemap', name, reason: `${loginOf(creds)} may not read this basemap (data.read) on ${creds.url}` })
        continue
      }
      map.basemaps.push({ name, resource: Number(b.resource_id), enabled: b.enabled !== false, opacity: typeof b.opacity === 'number' ? b.opacity : null,
        url: bl.url, copyright_text: bl.copyright_text ?? null, z_min: bl.z_min ?? null, z_max: bl.z_max ?? null })
    } catch (err) {
      if (!refusedOrGone(err)) throw err
      map.missing.push({ kind: 'basemap', name, reason: reasonOf(err as ApiError, creds, 'this basemap') })
    }
  }
  return map
}

const loginOf = (creds: Credentials) => (creds.username ? `the account ${creds.username}` : 'a guest')

function reasonOf(err: ApiError, creds: Credentials, what: string): string {
  const s = remoteStatus(err)
  return s === 404 ? `it is no longer on ${creds.url}` : `${loginOf(creds)} may not read ${what} on ${creds.url} (HTTP ${s})`
}
