/**
 * @module map/create-map
 * The app's OpenLayers map in Web Mercator. Its basemap is the bundled offline world map
 * (Natural Earth, served by the backend), so it shows land, borders and country names with
 * no network; an online basemap chosen in the picker goes over it. A graticule helps
 * orientation. The view comes back where it was left (map/view-state). The target's
 * `data-rendered-at` is the time (performance.now) the map last finished drawing its view.
 */
import Map from 'ol/Map.js'
import View from 'ol/View.js'
import Graticule from 'ol/layer/Graticule.js'
import Stroke from 'ol/style/Stroke.js'
import { defaults as defaultControls } from 'ol/control/defaults.js'
import ScaleLine from 'ol/control/ScaleLine.js'
import { fromLonLat } from 'ol/proj.js'
import { createWorldBasemap } from './world-basemap.ts'
import { keepView, savedView } from './view-state.ts'

export interface CreateMapOptions {
  /** Lon/lat of the initial centre. */
  center?: [number, number]
  zoom?: number
  /** Start where the app's map was left, and keep its view for the next start. @default true */
  remember?: boolean
}

export function createMap(target: HTMLElement, opts: CreateMapOptions = {}): Map {
  const graticule = new Graticule({
    strokeStyle: new Stroke({ color: 'rgba(31, 95, 139, 0.35)', width: 1, lineDash: [2, 4] }),
    showLabels: true,
    wrapX: false,
    // Above any basemap a picker adds (they use the default zIndex 0).
    zIndex: 100,
    properties: { name: 'graticule' },
  })
  const remember = opts.remember ?? true
  const saved = remember ? savedView() : undefined
  const map = new Map({
    target,
    layers: [createWorldBasemap(), graticule],
    controls: defaultControls({ attributionOptions: { collapsible: true } }).extend([new ScaleLine()]),
    view: new View({
      projection: 'EPSG:3857',
      center: saved?.center ?? fromLonLat(opts.center ?? [0, 20]),
      zoom: saved?.zoom ?? opts.zoom ?? 2,
    }),
  })
  if (remember) keepView(map)
  // When the view's tiles are all loaded and drawn: tests and the panning benchmark wait for it.
  map.on('rendercomplete', () => { target.dataset.renderedAt = String(performance.now()) })
  return map
}
