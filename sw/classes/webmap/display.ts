/**
 * @module classes/webmap/display
 * What a client needs to draw a web map: `display_config` (reference ngw-services §1.7, the
 * original's own display reads it first) and the map's extent (`/webmap/extent`, §1.6). Both
 * show only the layers whose style the asker may `data.read` (linked needs included: a style of
 * a PostGIS layer also needs `connection.connect`), and groups left empty by that go too.
 * Unlike the original (§1.7 TRAP), a basemap's URL is given only to those who may read it.
 */
import type { Principal } from '../../auth/types.ts'
import { allowed } from '../../auth/checkpoint.ts'
import { lonLatExtent } from '../../feature/serialize.ts'
import type { Bbox } from '../../geo/geometry.ts'
import type { ResourceRef } from '../../resource/types.ts'
import type { Item, LayerItem, LegendSymbols, WebMapData } from './types.ts'
import { layersOf } from './types.ts'
import { layerOut } from './tree.ts'
import { OPTIONS } from './settings.ts'
import { BASEMAP_CLASS } from './basemaps.ts'
import type { WebMapServices } from './env.ts'

const ADAPTER = { image: '@nextgisweb/webmap/image-adapter', tile: '@nextgisweb/webmap/tile-adapter' }
/** The component's default for `legend_symbols` (the original's `webmap.legend_symbols` option). */
const LEGEND_DEFAULT: LegendSymbols = 'collapse'
const PRINT_MAX_SIZE = 500

interface Shown { style: ResourceRef; parent: ResourceRef | undefined }

/** The layer items' styles `user` may read the data of, with the styles' parents. */
export async function shownLayers(s: WebMapServices, user: Principal, d: WebMapData): Promise<Map<number, Shown>> {
  const ids = [...new Set([...layersOf(d.root)].map((l) => l.layer_style_id))]
  const styles = (await s.classes.refs(ids)).filter((r): r is ResourceRef =>
    !!r && !!s.classes.find(r.cls)?.interfaces.includes('IRenderableStyle'))
  const parents = await s.classes.refs(styles.map((r) => r.parentId ?? -1))
  const out = new Map<number, Shown>()
  for (const [i, style] of styles.entries()) {
    if (await allowed(s, user, style.id, 'data', 'read')) out.set(style.id, { style, parent: parents[i] })
  }
  return out
}

/** The union of the extents of the layers `user` sees, in degrees; `null` when none has one. */
export async function webMapExtent(s: WebMapServices, user: Principal, d: WebMapData) {
  const shown = await shownLayers(s, user, d)
  let box: Bbox | null = null
  for (const parentId of new Set([...shown.values()].map((v) => v.parent?.id).filter((id): id is number => id !== undefined))) {
    const e = await layerExtent(s, parentId)
    if (!e) continue
    const ll = lonLatExtent(e.bbox, e.srs)
    const sides = [ll.minLon, ll.minLat, ll.maxLon, ll.maxLat]
    // A side a projection cannot express is null there: such an extent is skipped, as the original skips it.
    if (!sides.every((v) => typeof v === 'number')) continue
    const b = sides as Bbox
    box = box ? [Math.min(box[0], b[0]), Math.min(box[1], b[1]), Math.max(box[2], b[2]), Math.max(box[3], b[3])] : b
  }
  return box && { minLon: box[0], maxLon: box[2], minLat: box[1], maxLat: box[3] }
}

/** A layer's own extent in its reference system: a raster's, or a feature layer's features'. */
async function layerExtent(s: WebMapServices, id: number): Promise<{ bbox: Bbox; srs: number } | undefined> {
  const other = await s.classes.layerExtent(id)
  if (other) return other.bbox ? { bbox: other.bbox, srs: other.srs } : undefined
  const layer = await s.classes.featureLayer(id)
  if (!layer) return undefined
  const bbox = await layer.read((tx) => tx.extent())
  return bbox ? { bbox, srs: layer.meta.srs } : undefined
}

/** `legendInfo.visible`: each non-null setting overrides the one before (§1.7). */
function legendOf(d: WebMapData, it: LayerItem, hasLegend: boolean) {
  const visible = it.legend_symbols ?? d.legend_symbols ?? LEGEND_DEFAULT
  return visible === 'disable' ? { visible } : { visible, has_legend: hasLegend }
}

/** `display_config` for `user`; `perms` are what the user may do with annotations. */
export async function displayConfig(s: WebMapServices, user: Principal, webmap: ResourceRef, d: WebMapData,
  perms: { read: boolean; write: boolean; manage: boolean }, description: string | null) {
  const shown = await shownLayers(s, user, d)
  const checked: number[] = []
  const expanded: number[] = []
  const kindOf = (cls: string | undefined) => (cls ? s.classes.find(cls)?.interfaces ?? [] : [])
  const item = (it: Item): unknown[] => {
    if (it.item_type === 'group') {
      const children = it.children.flatMap(item)
      if (!children.length) return []
      if (it.group_expanded) expanded.push(it.id)
      return [{ id: it.id, key: it.id, type: 'group', label: it.display_name, title: it.display_name, expanded: it.group_expanded,
        exclusive: it.group_exclusive, visibility: it.group_enabled, children, plugin: {} }]
    }
    const v = shown.get(it.layer_style_id)
    if (!v) return []
    if (it.layer_enabled) checked.push(it.id)
    const parentKind = kindOf(v.parent?.cls)
    const mode = !it.layer_identifiable ? null : parentKind.includes('IFeatureLayer') ? 'feature_layer'
      : parentKind.includes('IBboxLayer') ? 'raster_layer' : null
    const read = layerOut(it, v.parent?.id ?? null)
    return [{
      id: it.id, key: it.id, type: 'layer', label: it.display_name, title: it.display_name,
      layerId: v.style.cls.endsWith('_style') ? v.parent?.id ?? null : v.style.id, styleId: v.style.id,
      visibility: it.layer_enabled, identifiable: it.layer_identifiable, filterable: parentKind.includes('IFeatureLayer'),
      opacity: read.layer_opacity, minScaleDenom: it.layer_min_scale_denom, maxScaleDenom: it.layer_max_scale_denom,
      drawOrderPosition: it.draw_order_position,
      legendInfo: legendOf(d, it, kindOf(v.style.cls).includes('ILegendSymbols')),
      identification: mode && v.parent ? { mode, resource: { id: v.parent.id } } : null,
      adapter: ADAPTER[it.layer_adapter], plugin: {},
    }]
  }
  const children = d.root.flatMap(item)
  return {
    webmapId: webmap.id, webmapTitle: d.title ?? webmap.displayName, webmapDescription: description,
    webmapPlugin: { '@nextgisweb/basemap/plugin/base-map': await basemapPlugin(s, user, d) },
    initialExtent: d.extent.some((x) => x === null) ? null : d.extent,
    constrainingExtent: d.extent_const.some((x) => x === null) ? null : d.extent_const,
    rootItem: { id: 0, key: 0, type: 'root', label: null, title: null, expanded: null, exclusive: null, children },
    checkedItems: checked, expandedItems: expanded,
    mid: { adapter: Object.values(ADAPTER), plugin: ['@nextgisweb/basemap/plugin/base-map'] },
    annotations: { enabled: d.annotation_enabled, default: d.annotation_default, scope: perms },
    webmapEditable: d.editable, webmapLegendVisible: d.legend_symbols, drawOrderEnabled: d.draw_order_enabled,
    measureSrsId: d.measure_srs, printMaxSize: PRINT_MAX_SIZE, bookmarkLayerId: d.bookmark_resource,
    options: Object.fromEntries(Object.entries(OPTIONS).map(([k, o]) => [k, d.options[k] ?? o.default])),
  }
}

/** The basemap plugin's payload: each basemap the user may read, with its layer's URL and zoom range. */
async function basemapPlugin(s: WebMapServices, user: Principal, d: WebMapData) {
  const refs = await s.classes.refs(d.basemaps.map((b) => b.resource_id))
  const basemaps: unknown[] = []
  for (const [position, b] of d.basemaps.entries()) {
    const r = refs[position]
    if (r?.cls !== BASEMAP_CLASS || !await allowed(s, user, r.id, 'data', 'read')) continue
    // The basemap layer's stored fields are the ones its member answers (classes/basemap_layer).
    const layer = r.data as Record<string, unknown>
    basemaps.push({ url: layer.url, qms: layer.qms ?? null, z_min: layer.z_min ?? null, z_max: layer.z_max ?? null,
      copyright_text: layer.copyright_text ?? null, copyright_url: layer.copyright_url ?? null, resource_id: r.id, position,
      display_name: b.display_name, enabled: b.enabled, opacity: b.opacity })
  }
  return { basemaps, disable: d.basemap_disable, background_color: d.background_color }
}
