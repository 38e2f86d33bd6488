/**
 * @module composables/useFieldCollection
 * Which layer the person collects features in and which feature their form is open on,
 * shared by the resource details, the field panel and the map (module-level state). Both are
 * kept in localStorage, so an accidental reload comes back to the same layer and form.
 */
import { ref, watch } from 'vue'

const LAYER_KEY = 'outpost.field.layer'
const EDITING_KEY = 'outpost.field.editing'

/** The feature whose form is open: its id, or 'new' while a feature is being added. */
export type Editing = number | 'new'

function readEditing(): { layer: number; target: Editing } | null {
  try {
    const v = JSON.parse(localStorage.getItem(EDITING_KEY) ?? 'null')
    return v && typeof v.layer === 'number' && (v.target === 'new' || typeof v.target === 'number') ? v : null
  } catch {
    return null
  }
}

const savedLayer = Number(localStorage.getItem(LAYER_KEY))
const layerId = ref<number | null>(savedLayer > 0 ? savedLayer : null)
const saved = readEditing()
const editing = ref<Editing | null>(saved && saved.layer === layerId.value ? saved.target : null)
/** Bumped after every change to the layer's features: the map and the table reload. */
const version = ref(0)
/** Bumped after a change to the layer's definition (its fields): the panel reloads the layer. */
const definition = ref(0)

watch(layerId, (id) => {
  if (id === null) localStorage.removeItem(LAYER_KEY)
  else localStorage.setItem(LAYER_KEY, String(id))
})
watch([layerId, editing], ([layer, target]) => {
  if (layer === null || target === null) localStorage.removeItem(EDITING_KEY)
  else localStorage.setItem(EDITING_KEY, JSON.stringify({ layer, target }))
})

export function useFieldCollection() {
  return {
    layerId,
    editing,
    version,
    definition,
    /** Opens a layer for collecting (closing any open form). */
    openLayer: (id: number | null) => {
      if (id !== layerId.value) editing.value = null
      layerId.value = id
    },
    changed: () => { version.value++ },
    /** Layer `id`'s definition changed: reloaded if it is the one being collected in. */
    layerChanged: (id: number) => { if (id === layerId.value) definition.value++ },
  }
}
