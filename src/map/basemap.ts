/**
 * Turns a catalogue entry into an OpenLayers layer (TMS as XYZ, WMS as tiled WMS), with the
 * provider's attribution, and tells the service worker which tile URLs to keep for offline use.
 */
import TileLayer from 'ol/layer/Tile'
import XYZ from 'ol/source/XYZ'
import TileWMS from 'ol/source/TileWMS'
import type { GeoserviceDetail } from '../api/catalogue.ts'

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The attribution HTML: copyright (linked) and licence (linked), whichever exist. */
export function attributionHtml(d: GeoserviceDetail): string[] {
  const link = (text: string | null, url: string | null) =>
    !text ? (url ? `<a href="${esc(url)}" target="_blank" rel="noopener">${esc(url)}</a>` : '')
      : url ? `<a href="${esc(url)}" target="_blank" rel="noopener">${esc(text)}</a>` : esc(text)
  return [link(d.copyright_text, d.copyright_url), link(d.license_name, d.license_url)].filter(Boolean)
}

/** The tile URL templates of a TMS entry: `{switch:a,b}` expanded, `{-y}` for TMS-origin services. */
export function tmsUrls(d: GeoserviceDetail): string[] {
  let url = d.origin_url || d.url
  if (d.y_origin_top === false) url = url.replace('{y}', '{-y}')
  const m = /\{switch:([^}]*)\}/.exec(url)
  return m ? m[1]!.split(',').map((o) => url.replace(m[0], o.trim())) : [url]
}

/** `format=image/png&crs=EPSG:3857` → upper-cased WMS parameters. */
export function wmsParams(d: GeoserviceDetail): Record<string, string> {
  const params: Record<string, string> = {}
  for (const [k, v] of new URLSearchParams(d.params ?? '')) params[k.toUpperCase()] = v
  // The map is in EPSG:3857; OpenLayers sets CRS/SRS from the view.
  delete params.CRS
  delete params.SRS
  params.LAYERS = d.layers ?? params.LAYERS ?? ''
  if (d.format) params.FORMAT = d.format
  return params
}

/** URL prefixes of the layer's tiles: what the service worker caches. */
export function tilePrefixes(d: GeoserviceDetail): string[] {
  const urls = d.type === 'wms' ? [d.url] : tmsUrls(d)
  return urls.map((u) => u.split(/[{?]/)[0]!).filter((u) => /^https?:\/\/[^/]+\//.test(u))
}

export function isDisplayable(d: { type: string }): boolean {
  return d.type === 'tms' || d.type === 'wms'
}

export function createBasemapLayer(d: GeoserviceDetail): TileLayer {
  const attributions = attributionHtml(d)
  const source = d.type === 'wms'
    ? new TileWMS({ url: d.url.split('?')[0], params: wmsParams(d), attributions })
    : new XYZ({ urls: tmsUrls(d), attributions, minZoom: d.z_min ?? 0, maxZoom: d.z_max ?? 19 })
  const layer = new TileLayer({ source, zIndex: -1000 })
  layer.set('outpostBasemap', d.id)
  return layer
}

/** Asks the service worker to keep this basemap's tiles (no-op without a controlling worker). */
export function cacheBasemapTiles(d: GeoserviceDetail): void {
  navigator.serviceWorker?.controller?.postMessage({ type: 'outpost-basemap', prefixes: tilePrefixes(d) })
}
