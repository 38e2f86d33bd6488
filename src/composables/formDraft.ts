/**
 * @module composables/formDraft
 * Unsaved input of a feature form, kept in localStorage per layer and feature on every
 * change, so an accidental reload (or a phone killing the tab) loses nothing. A draft is
 * dropped when the form is saved or cancelled.
 */
import type { FieldValue, Geometry, UploadMeta } from '../api/feature.ts'

export interface FormDraft {
  /** Field values by keyname, as the form holds them (strings for inputs). */
  values: Record<string, FieldValue>
  /** The sketched geometry (GeoJSON, EPSG:3857), or null when none was drawn yet. */
  geom: Geometry | null
  /** Photos uploaded but not yet attached (attached on save). */
  uploads: UploadMeta[]
  /** Attachment ids marked for removal (removed on save). */
  removed: number[]
  savedAt: number
}

const key = (layer: number, target: number | 'new') => `outpost.field.draft.${layer}.${target}`

export function loadDraft(layer: number, target: number | 'new'): FormDraft | null {
  try {
    const d = JSON.parse(localStorage.getItem(key(layer, target)) ?? 'null')
    return d && typeof d.values === 'object' ? { uploads: [], removed: [], geom: null, ...d } : null
  } catch {
    return null
  }
}

export function saveDraft(layer: number, target: number | 'new', draft: Omit<FormDraft, 'savedAt'>): void {
  try {
    localStorage.setItem(key(layer, target), JSON.stringify({ ...draft, savedAt: Date.now() }))
  } catch {
    // Storage full or denied: the form still works, only the reload safety net is gone.
  }
}

export function clearDraft(layer: number, target: number | 'new'): void {
  localStorage.removeItem(key(layer, target))
}
