/**
 * @module composables/useWebmap
 * One web map shown on one OpenLayers map, for the app's view and the embed page alike: reads
 * its `display_config`, draws its layers and basemaps, moves the map to the link's view (else
 * the map's initial extent), and keeps what the reader switches (visibility, opacity, basemap).
 */
import { ref, shallowRef } from 'vue'
import type Map from 'ol/Map.js'
import { displayConfig, type DisplayConfig } from '../api/webmap.ts'
import { layersOf, WebmapLayers, type WebmapLayerState } from '../webmap/layers.ts'
import { applyView } from '../webmap/view.ts'
import type { WebmapView } from '../webmap/url.ts'

export function useWebmap(map: Map) {
  const config = shallowRef<DisplayConfig | null>(null)
  const state = ref<Record<number, WebmapLayerState>>({})
  const error = ref<unknown>(null)
  /** The basemap shown (its index in the map's list), or -1 for the bundled world map only. */
  const basemap = ref(-1)
  const layers = new WebmapLayers(map)

  /** Loads web map `id` and shows it; `view` (a link's) wins over the map's initial extent. */
  async function load(id: number, view?: WebmapView, signal?: AbortSignal): Promise<void> {
    error.value = null
    try {
      const c = await displayConfig(id, signal)
      const s: Record<number, WebmapLayerState> = {}
      for (const l of layersOf(c.rootItem.children)) s[l.id] = { visible: l.visibility, opacity: l.opacity ?? 1 }
      const basemaps = c.webmapPlugin['@nextgisweb/basemap/plugin/base-map']
      const shown = basemaps.disable ? [] : basemaps.basemaps
      layers.show(c.rootItem.children, shown, s)
      basemap.value = shown.findIndex((b) => b.enabled)
      layers.chooseBasemap(basemap.value)
      state.value = s
      config.value = c
      applyView(map, view, c.initialExtent)
    } catch (err) {
      if (signal?.aborted) return
      layers.dispose()
      config.value = null
      error.value = err
    }
  }

  return {
    config,
    state,
    error,
    basemap,
    load,
    change(id: number, change: Partial<WebmapLayerState>): void {
      const cur = state.value[id]
      if (!cur) return
      state.value = { ...state.value, [id]: { ...cur, ...change } }
      layers.update(state.value)
    },
    chooseBasemap(index: number): void {
      basemap.value = index
      layers.chooseBasemap(index)
    },
    dispose: () => layers.dispose(),
  }
}
