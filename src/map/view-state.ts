/**
 * @module map/view-state
 * The map's view (centre and zoom) kept in localStorage, so a reload shows the same place.
 */
import type Map from 'ol/Map.js'

const KEY = 'outpost.map.view'

export interface SavedView { center: [number, number]; zoom: number }

/** The last saved view (EPSG:3857 centre), or undefined. */
export function savedView(): SavedView | undefined {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null')
    if (v && Array.isArray(v.center) && v.center.every(Number.isFinite) && Number.isFinite(v.zoom)) return v
  } catch { /* a broken entry is as good as none */ }
  return undefined
}

/** Saves the view after every move. */
export function keepView(map: Map): void {
  map.on('moveend', () => {
    const view = map.getView()
    const center = view.getCenter()
    const zoom = view.getZoom()
    if (center && zoom !== undefined) localStorage.setItem(KEY, JSON.stringify({ center, zoom }))
  })
}
