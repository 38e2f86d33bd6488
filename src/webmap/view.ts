/**
 * @module webmap/view
 * Moving an OpenLayers map to a web map's view (`view=` of its link) or extent, and reading its
 * view back for a link.
 */
import type Map from 'ol/Map.js'
import { fromLonLat, toLonLat, transformExtent } from 'ol/proj.js'
import type { LonLatBox } from '../api/webmap.ts'
import type { WebmapView } from './url.ts'

/** The whole world: the original's default extent, which says nothing about where to look. */
const WORLD: LonLatBox = [-180, -90, 180, 90]

/** Sets `view` if given, else fits the extent (a world extent leaves the map where it is). */
export function applyView(map: Map, view: WebmapView | undefined, extent: LonLatBox | null): void {
  const v = map.getView()
  if (view) {
    v.setCenter(fromLonLat([view.lon, view.lat]))
    v.setZoom(view.zoom)
  } else if (extent && extent.some((x, i) => x !== WORLD[i])) {
    // Web Mercator stops at ±85°: an extent reaching the poles is clamped before it is fitted.
    const clamped: LonLatBox = [extent[0], Math.max(extent[1], -85), extent[2], Math.min(extent[3], 85)]
    v.fit(transformExtent(clamped, 'EPSG:4326', 'EPSG:3857'), { size: map.getSize(), padding: [20, 20, 20, 20] })
  }
}

/** The map's view now, or undefined before it has one. */
export function currentView(map: Map): WebmapView | undefined {
  const v = map.getView()
  const center = v.getCenter()
  const zoom = v.getZoom()
  if (!center || zoom === undefined) return undefined
  const [lon, lat] = toLonLat(center) as [number, number]
  return { zoom, lat, lon }
}

/** The map's visible extent in degrees, `[west, south, east, north]`, clamped to the world. */
export function currentExtent(map: Map): LonLatBox {
  const [w, s, e, n] = transformExtent(map.getView().calculateExtent(map.getSize()), 'EPSG:3857', 'EPSG:4326')
  const r = (x: number) => Math.round(x * 1e6) / 1e6
  return [r(Math.max(w!, -180)), r(Math.max(s!, -90)), r(Math.min(e!, 180)), r(Math.min(n!, 90))]
}
