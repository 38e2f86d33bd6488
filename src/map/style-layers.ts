/**
 * @module map/style-layers
 * Styles on the map: one OpenLayers tile layer per shown style, drawn by the backend
 * (`render/tile`, offline in the service worker), above any basemap and below the graticule.
 */
import type Map from 'ol/Map.js'
import TileLayer from 'ol/layer/Tile.js'
import XYZ from 'ol/source/XYZ.js'
import { tileUrl } from '../api/render.ts'

const Z_BASE = 50

/** Makes the map's style layers match `ids` (lower first); `version` changes the URLs so tiles refetch. */
export function syncStyleLayers(map: Map, ids: number[], version: number): void {
  const existing = map.getLayers().getArray().filter((l) => l.get('outpostStyle') !== undefined) as TileLayer<XYZ>[]
  for (const l of existing) if (!ids.includes(l.get('outpostStyle') as number)) map.removeLayer(l)
  ids.forEach((id, i) => {
    let layer = existing.find((l) => l.get('outpostStyle') === id)
    if (!layer) {
      // A class name of its own gives each style its own canvas (tests and tools can read its pixels).
      layer = new TileLayer({ className: `outpost-style outpost-style-${id}`, source: new XYZ({ url: tileUrl([id], version), transition: 0 }),
        properties: { outpostStyle: id, name: `style-${id}` } })
      map.addLayer(layer)
    } else if (layer.get('version') !== version) {
      layer.getSource()!.setUrl(tileUrl([id], version))
    }
    layer.set('version', version)
    layer.setZIndex(Z_BASE + i)
  })
}
