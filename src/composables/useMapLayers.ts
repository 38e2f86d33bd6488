/**
 * @module composables/useMapLayers
 * The map's layer list, app-wide (module-level state): one entry per layer the map draws,
 * bottom first, each with its kind (`vector`: a feature layer from its vector tiles; `style`:
 * a style drawn by the backend as image tiles; other source types add their kind in
 * `map/layer-kinds.ts`), visibility, opacity and place. A layer is listed once: by the styles
 * of it put on the map when there are any (its own vector tiles would draw it a second time),
 * else by itself; a raster layer, which has no tiles of its own, by its first raster style. What the person chose is kept
 * in localStorage, so a reload shows the same layers.
 */
import { ref, watch } from 'vue'
import { listFeatureLayers, listRasterLayers, listRasterStyles, listWmsLayers } from '../api/map.ts'
import { useMapStyles, type ShownStyle } from './useMapStyles.ts'

export interface MapLayerEntry {
  /** `<kind>:<resource id>`. */
  key: string
  kind: string
  resourceId: number
  title: string
  /** The display name of the layer it draws (exports are saved under it). */
  layerTitle: string
  visible: boolean
  /** 0…1. */
  opacity: number
  /** The layer's geometry type (`POINT`, `MULTIPOLYGON`…) for vector layers. */
  geometryType?: string
  /** The attribute that labels features. */
  labelKey?: string
  /** The layer the entry draws (itself for a `vector` entry). */
  layerId: number
  /** The feature layer it draws, for identify and export (none for a raster). */
  featureLayer?: number
  /** A style put on the map from the resource details (it can be taken off again). */
  shown?: boolean
}

interface Saved { visible: boolean; opacity: number; order: number }

const STORAGE_KEY = 'outpost.map.layers'
const entries = ref<MapLayerEntry[]>([])
/** Each layer's own entry, as last read from the backend (before the shown styles replace some). */
let layers: MapLayerEntry[] = []
/** Bumped per resource when its features changed: the map reloads that layer's tiles. */
const revisions = ref<Record<number, number>>({})
const loaded = ref(false)
const styles = useMapStyles()

function readSaved(): Record<string, Saved> {
  try {
    const v = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '{}')
    return v && typeof v === 'object' ? v : {}
  } catch {
    return {}
  }
}

function save(): void {
  const out: Record<string, Saved> = {}
  entries.value.forEach((e, order) => { out[e.key] = { visible: e.visible, opacity: e.opacity, order } })
  localStorage.setItem(STORAGE_KEY, JSON.stringify(out))
}

function update(key: string, change: Partial<MapLayerEntry>): void {
  entries.value = entries.value.map((e) => (e.key === key ? { ...e, ...change } : e))
  save()
}

/** What the person chose for a layer: shown, opaque when new. */
const chosen = (saved: Record<string, Saved>, key: string) => ({ visible: saved[key]?.visible ?? true, opacity: saved[key]?.opacity ?? 1 })

/** The layers and the styles on the map, each in its saved place; new ones go on top, in the order given. */
function arrange(shown: ShownStyle[]): MapLayerEntry[] {
  const own = (id?: number) => {
    const e = layers.find((x) => x.layerId === id)
    return { featureLayer: e?.featureLayer, layerTitle: e?.layerTitle ?? '' }
  }
  const saved = readSaved()
  const styled = new Set(shown.map((s) => s.layerId))
  const list = [...layers.filter((e) => !styled.has(e.layerId)), ...shown.map((s): MapLayerEntry => ({ key: `style:${s.id}`,
    kind: 'style', resourceId: s.id, title: s.name, layerId: s.layerId ?? s.id, shown: true, ...chosen(saved, `style:${s.id}`),
    ...own(s.layerId) }))]
  const order = (e: MapLayerEntry) => saved[e.key]?.order ?? Number.MAX_SAFE_INTEGER
  return list.map((e, i) => ({ e, i })).sort((a, b) => order(a.e) - order(b.e) || a.i - b.i).map((x) => x.e)
}

/** Reads the layers from the backend, keeping what the person chose for the known ones. */
async function load(): Promise<void> {
  const [items, rasters, rasterStyles, wms] = await Promise.all([listFeatureLayers(), listRasterLayers(), listRasterStyles(), listWmsLayers()])
  // Read after the answers: a layer shown or hidden while they were on their way (the list
  // reloads as it opens) keeps that choice instead of the one saved before.
  const saved = readSaved()
  const vectors: MapLayerEntry[] = items.filter((i) => i.feature_layer).map((i) => {
    const key = `vector:${i.resource.id}`
    const label = i.feature_layer!.fields.find((f) => f.label_field)
    return { key, kind: 'vector', resourceId: i.resource.id, layerId: i.resource.id, featureLayer: i.resource.id,
      title: i.resource.display_name, layerTitle: i.resource.display_name, ...chosen(saved, key), geometryType: i.feature_layer!.geometry_type, labelKey: label?.keyname }
  })
  const styleOf = new Map<number, number>()
  for (const s of [...rasterStyles].sort((a, b) => a.resource.id - b.resource.id)) {
    const parent = s.resource.parent?.id
    if (parent !== undefined && !styleOf.has(parent)) styleOf.set(parent, s.resource.id)
  }
  const drawn = rasters.filter((r) => styleOf.has(r.resource.id)).map((r): MapLayerEntry => {
    const id = styleOf.get(r.resource.id)!
    return { key: `style:${id}`, kind: 'style', resourceId: id, layerId: r.resource.id, title: r.resource.display_name,
      layerTitle: r.resource.display_name, ...chosen(saved, `style:${id}`) }
  })
  // A WMS layer is its own style: drawn by the backend like a raster style.
  const remote = wms.map((r): MapLayerEntry => ({ key: `style:${r.resource.id}`, kind: 'style', resourceId: r.resource.id, layerId: r.resource.id,
    title: r.resource.display_name, layerTitle: r.resource.display_name, ...chosen(saved, `style:${r.resource.id}`) }))
  layers = [...vectors, ...drawn, ...remote]
  entries.value = arrange(styles.shown.value)
  loaded.value = true
}

// A style put on the map (or taken off) from the resource details joins (or leaves) the list.
// Its layer may be new to the list: it is read again first, so that a new style goes above it.
watch(styles.shown, (shown) => {
  entries.value = arrange(shown)
  // Before the first load the list lacks the feature layers: saving would forget their places.
  if (loaded.value) void load().catch(() => undefined).finally(save)
}, { deep: true, immediate: true })

export function useMapLayers() {
  return {
    entries,
    revisions,
    loaded,
    load,
    setVisible: (key: string, visible: boolean) => update(key, { visible }),
    setOpacity: (key: string, opacity: number) => update(key, { opacity }),
    /** Moves a layer one place up (drawn later, over) or down. */
    move: (key: string, up: boolean) => {
      const list = [...entries.value]
      const i = list.findIndex((e) => e.key === key)
      const j = up ? i + 1 : i - 1
      if (i < 0 || j < 0 || j >= list.length) return
      ;[list[i], list[j]] = [list[j]!, list[i]!]
      entries.value = list
      save()
    },
    /** Makes the layers of a resource visible (the field panel's layer must be seen); a new layer is listed first. */
    show: async (resourceId: number) => {
      if (!entries.value.some((e) => e.layerId === resourceId)) await load()
      for (const e of entries.value) if (e.layerId === resourceId && !e.visible) update(e.key, { visible: true })
    },
    /** Takes a style off the map. */
    remove: (key: string) => { if (key.startsWith('style:')) styles.hide(Number(key.slice(6))) },
    /** Reloads the tiles of a resource's layers after its features changed. */
    refresh: (resourceId: number) => {
      revisions.value = { ...revisions.value, [resourceId]: (revisions.value[resourceId] ?? 0) + 1 }
    },
  }
}
