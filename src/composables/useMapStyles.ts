/**
 * @module composables/useMapStyles
 * Which styles are on the map (module-level state shared by the resource details and the
 * map's layer list, which keeps their order, visibility and opacity), kept in localStorage; `version` is bumped after a style or its
 * layer changes so the map refetches its tiles.
 */
import { ref, watch } from 'vue'

const KEY = 'outpost.map.styles'

/** A style on the map; `layerId` is the layer it draws. */
export interface ShownStyle { id: number; name: string; layerId?: number }

function read(): ShownStyle[] {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '[]')
    return Array.isArray(v) ? v.filter((s) => typeof s?.id === 'number' && typeof s?.name === 'string') : []
  } catch {
    return []
  }
}

const shown = ref<ShownStyle[]>(read())
const version = ref(0)
watch(shown, (list) => localStorage.setItem(KEY, JSON.stringify(list)), { deep: true })

export function useMapStyles() {
  return {
    shown,
    version,
    isShown: (id: number) => shown.value.some((s) => s.id === id),
    show: (s: ShownStyle) => { if (!shown.value.some((x) => x.id === s.id)) shown.value = [...shown.value, s] },
    hide: (id: number) => { shown.value = shown.value.filter((s) => s.id !== id) },
    changed: () => { version.value++ },
  }
}
