/**
 * @module map/world-basemap
 * The offline world basemap under every map: Natural Earth land, country borders and
 * country names, drawn from the vector tiles the backend serves out of the bundled PMTiles
 * archive (so it shows with no network and nothing cached). Zooms past the archive's last
 * level reuse its tiles, scaled.
 */
import VectorTileLayer from 'ol/layer/VectorTile.js'
import VectorTileSource from 'ol/source/VectorTile.js'
import MVT from 'ol/format/MVT.js'
import { Fill, Stroke, Style, Text } from 'ol/style.js'
import type { FeatureLike } from 'ol/Feature.js'
import { WORLD_BASEMAP_URL } from '../api/map.ts'

export const WORLD_ATTRIBUTION = 'Made with <a href="https://www.naturalearthdata.com/" target="_blank" rel="noopener">Natural Earth</a>'
const WATER = '#cfe3f2'
const LAND = new Style({ fill: new Fill({ color: '#f3f0e8' }), stroke: new Stroke({ color: '#b9c9d6', width: 0.6 }) })
const BORDER = new Style({ stroke: new Stroke({ color: '#a99fb5', width: 1, lineDash: [4, 3] }) })
const PLACE_FILL = new Fill({ color: '#4a4f57' })
const PLACE_STROKE = new Stroke({ color: 'rgba(255, 255, 255, 0.9)', width: 3 })

function style(f: FeatureLike, resolution: number): Style | undefined {
  switch (f.get('layer')) {
    case 'land': return LAND
    case 'boundaries': return BORDER
    case 'places': {
      const rank = Number(f.get('rank'))
      // The largest countries in capitals; small ones only once zoomed in.
      if (rank > 30 && resolution > 5000) return undefined
      const name = String(f.get('name'))
      return new Style({ text: new Text({ text: rank <= 30 ? name.toUpperCase() : name, font: `${rank <= 30 ? 600 : 400} 11px system-ui, sans-serif`,
        fill: PLACE_FILL, stroke: PLACE_STROKE }), zIndex: -rank })
    }
    default: return undefined
  }
}

export function createWorldBasemap(): VectorTileLayer {
  const layer = new VectorTileLayer({
    source: new VectorTileSource({ format: new MVT(), url: WORLD_BASEMAP_URL, maxZoom: 5, attributions: WORLD_ATTRIBUTION }),
    style,
    declutter: true,
    background: WATER,
    zIndex: -2000,
    properties: { name: 'world-basemap' },
  })
  return layer
}
