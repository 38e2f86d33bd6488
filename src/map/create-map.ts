/**
 * @module map/create-map
 * The app's OpenLayers map in Web Mercator. There is no tile basemap by default (the app
 * must work without internet): a plain background from CSS and a graticule for orientation.
 * A basemap, when chosen, is added by the basemap picker as a layer below the graticule.
 */
import Map from 'ol/Map.js'
import View from 'ol/View.js'
import Graticule from 'ol/layer/Graticule.js'
import Stroke from 'ol/style/Stroke.js'
import { defaults as defaultControls } from 'ol/control/defaults.js'
import ScaleLine from 'ol/control/ScaleLine.js'
import { fromLonLat } from 'ol/proj.js'

export interface CreateMapOptions {
  /** Lon/lat of the initial centre. */
  center?: [number, number]
  zoom?: number
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
  return new Map({
    target,
    layers: [graticule],
    controls: defaultControls({ attributionOptions: { collapsible: true } }).extend([new ScaleLine()]),
    view: new View({
      projection: 'EPSG:3857',
      center: fromLonLat(opts.center ?? [0, 20]),
      zoom: opts.zoom ?? 2,
    }),
  })
}
