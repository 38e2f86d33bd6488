/**
 * @module sync/webmap/publish-plan
 * What publishing a web map made here will send, read from this server's own API as the asker
 * and checked before anything is written there: each style the map's items use, its layer and
 * what becomes of it (linked there already, made there, or a 422 naming the item), the
 * basemaps, and what the map remembers of an earlier publish.
 */
import { validationError } from '../../core/error.ts'
import { expectKeys, expectRef } from '../../core/validate.ts'
import type { Credentials, Link } from '../types.ts'
import type { InnerApi } from './inner.ts'
import { layerItems } from './remote-map.ts'

/** The resmeta key of a published web map: where it went (JSON text of `Published`). */
export const PUBLISHED_KEY = 'outpost.published'

export interface PublishRequest {
  connection: number
  /** The group on the team's server the map's own group goes into (a second publish keeps its place). */
  parent: number
}

export function parsePublishRequest(body: Record<string, unknown>): PublishRequest {
  expectKeys(body, ['connection', 'parent'], '$')
  return { connection: expectRef(body.connection, '$.connection'), parent: body.parent === undefined ? 0 : expectRef(body.parent, '$.parent') }
}

/** What a published map remembers, to update the same map on the team's server next time. */
export interface Published {
  url: string
  connection: number
  group: number
  webmap: number
  /** Local style id → its copy there. */
  styles: Record<string, number>
  /** Local basemap layer id → its copy there. */
  basemaps: Record<string, number>
  /** Annotations made there (a next publish replaces them). */
  annotations: number[]
  published: string
}

/** Style classes published, with the body of the copy's member (`qml`: the QML read here, uploaded there by the caller). */
export const STYLE_CLASSES = ['engine_style', 'qgis_vector_style']

export interface PlannedLayer {
  local: number
  name: string
  /** `linked`: linked to a layer of that server already; `create`: made there, then linked here. */
  how: 'linked' | 'create'
  /** The remote layer (`linked`), or after it is made. */
  remote?: number
  member?: { srs: { id: number }; geometry_type: string; fields: Record<string, unknown>[] }
}

export interface PlannedStyle { local: number; name: string; cls: string; layer: number; xml?: string }

export interface Plan {
  /** The web map here. */
  id: number
  name: string
  /** The web map's `webmap` and `basemap_webmap` members as read here. */
  webmap: Record<string, any> // reason: our own API's member, copied key by key
  basemapWebmap: Record<string, any> | undefined // reason: as above
  layers: Map<number, PlannedLayer>
  styles: Map<number, PlannedStyle>
  before: Published | undefined
  /** What the asker may change of the map here: where the publish is remembered. */
  resmeta: Record<string, unknown>
}

const sameServer = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '')

/** Who `item` is in a message: its name and place in the tree. */
/**
 * Where a map was published last, from its resmeta item; `undefined` when there is none or the
 * item is not ours (anyone who may edit the map's metadata can write any text there).
 */
export function readPublished(text: unknown): Published | undefined {
  if (typeof text !== 'string') return undefined
  let v: unknown
  try { v = JSON.parse(text) } catch { return undefined }
  const p = v as Partial<Published> | null
  return p && typeof p === 'object' && typeof p.url === 'string' && Number.isSafeInteger(p.webmap) && Number.isSafeInteger(p.connection)
    && Number.isSafeInteger(p.group) ? p as Published : undefined
}

const itemName = (name: string) => `Layer item '${name}'`

/**
 * Reads web map `id` and everything its layer items use; a 422 naming the item when something
 * cannot be published to `creds`' server (a layer of another kind, linked to another server, a
 * style of a class not copied). `credsOf`: a connection's credentials.
 */
export async function planPublish(inner: InnerApi, id: number, creds: Credentials,
  credsOf: (connection: number) => Promise<Credentials | undefined>): Promise<Plan> {
  const doc = await inner.json('GET', `/api/resource/${id}`)
  if (doc?.resource?.cls !== 'webmap') throw validationError(`Resource ${id} is not a web map.`)
  const text = doc.resmeta?.items?.[PUBLISHED_KEY]
  const remembered = readPublished(text)
  const plan: Plan = { id, name: String(doc.resource.display_name), webmap: doc.webmap, basemapWebmap: doc.basemap_webmap, layers: new Map(), styles: new Map(),
    before: remembered && sameServer(remembered.url, creds.url) ? remembered : undefined, resmeta: doc.resmeta?.items ?? {} }
  for (const item of layerItems(doc.webmap.root_item)) {
    const name = String(item.display_name)
    const styleId = Number(item.layer_style_id)
    if (plan.styles.has(styleId)) continue
    const style = await inner.json('GET', `/api/resource/${styleId}`)
    const cls = String(style.resource.cls)
    if (!STYLE_CLASSES.includes(cls)) throw validationError(`${itemName(name)}: its style is a ${cls}, which cannot be published (only ${STYLE_CLASSES.join(' and ')}).`)
    const layerId = Number(style.resource.parent.id)
    const xml = style.engine_style?.xml
    if (cls === 'engine_style' && typeof xml !== 'string') throw validationError(`${itemName(name)}: you may not read its style's XML (data.read on style ${styleId}).`)
    plan.styles.set(styleId, { local: styleId, name: String(style.resource.display_name), cls, layer: layerId, ...(cls === 'engine_style' ? { xml } : {}) })
    if (plan.layers.has(layerId)) continue
    const layer = await inner.json('GET', `/api/resource/${layerId}`)
    const lcls = String(layer.resource.cls)
    if (lcls !== 'vector_layer') {
      throw validationError(`${itemName(name)}: its layer is a ${lcls}; only vector layers are published (they are made there and linked for sync).`)
    }
    const link = layer.vector_layer.remote as { connection: { id: number }; resource: { id: number } } | undefined
    if (link) {
      const there = await credsOf(link.connection.id)
      if (!there || !sameServer(there.url, creds.url)) {
        throw validationError(`${itemName(name)}: its layer is linked to a layer of ${there?.url ?? 'another server'}; it can only be published there.`)
      }
      plan.layers.set(layerId, { local: layerId, name: String(layer.resource.display_name), how: 'linked', remote: link.resource.id })
      continue
    }
    const fl = layer.feature_layer
    plan.layers.set(layerId, { local: layerId, name: String(layer.resource.display_name), how: 'create', member: {
      srs: { id: Number(layer.vector_layer.srs.id) }, geometry_type: String(layer.vector_layer.geometry_type),
      fields: (fl.fields as Record<string, unknown>[]).map((f) => ({ keyname: f.keyname, display_name: f.display_name, datatype: f.datatype,
        label_field: f.label_field, grid_visibility: f.grid_visibility, text_search: f.text_search })) } })
  }
  return plan
}

/** The link a published layer gets here. */
export const linkMember = (link: Link) => ({ vector_layer: { remote: { connection: { id: link.connection }, resource: { id: link.resource } } },
  feature_layer: { versioning: { enabled: true } } })
