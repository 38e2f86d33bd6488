/**
 * @module webmap/url
 * The addresses that open a web map: the app's `./?webmap=<id>[&view=<zoom>/<lat>/<lon>]` (the
 * web map as the app's main view) and the embed page's `./embed.html?webmap=<id>[&panel=1][&view=…]`
 * (the small display for an iframe), and the snippet that embeds it. Shared with the offline
 * maps' code: keep the parameters as they are.
 */

/** A map view: zoom and the centre in degrees. */
export interface WebmapView { zoom: number; lat: number; lon: number }

export interface WebmapLocation { id: number; view?: WebmapView; panel: boolean }

/** `z/lat/lon` with as many decimals as the zoom needs (about a pixel), as in OSM's permalinks. */
export function formatView(v: WebmapView): string {
  const digits = Math.max(0, Math.ceil(Math.log10(2 ** Math.max(0, v.zoom))) + 1)
  const z = Math.round(v.zoom * 100) / 100
  return `${z}/${v.lat.toFixed(digits)}/${v.lon.toFixed(digits)}`
}

/** The view of a `view=` parameter, or undefined when it is not three numbers in range. */
export function parseView(text: string | null): WebmapView | undefined {
  const parts = text?.split('/')
  if (parts?.length !== 3) return undefined
  const [zoom, lat, lon] = parts.map(Number) as [number, number, number]
  if (![zoom, lat, lon].every(Number.isFinite) || zoom < 0 || zoom > 30 || Math.abs(lat) > 90 || Math.abs(lon) > 180) return undefined
  return { zoom, lat, lon }
}

/** The web map a query string names (`?webmap=…`), or undefined. */
export function parseWebmapLocation(search: string): WebmapLocation | undefined {
  const q = new URLSearchParams(search)
  const raw = q.get('webmap')
  if (raw === null || !/^\d{1,15}$/.test(raw)) return undefined
  return { id: Number(raw), view: parseView(q.get('view')), panel: q.get('panel') === '1' }
}

const query = (id: number, view?: WebmapView, panel?: boolean) =>
  `?webmap=${id}${panel ? '&panel=1' : ''}${view ? `&view=${formatView(view)}` : ''}`

/** The app's link to web map `id` (relative to the app's directory), at `view` if given. */
export function webmapUrl(id: number, view?: WebmapView): string {
  return `./${query(id, view)}`
}

/** The embed page's link to web map `id`, with the layer panel if `panel`. */
export function embedUrl(id: number, opts: { view?: WebmapView; panel?: boolean } = {}): string {
  return `./embed.html${query(id, opts.view, opts.panel)}`
}

/** The HTML a person pastes into a page: an iframe of the embed page at `base` (the app's directory URL). */
export function embedSnippet(base: string, id: number, opts: { view?: WebmapView; panel?: boolean; title?: string } = {}): string {
  const src = new URL(embedUrl(id, opts), base).href
  const title = (opts.title ?? 'Web map').replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)
  return `<iframe src="${src.replace(/&/g, '&amp;')}" title="${title}" width="800" height="500" style="border:0" allowfullscreen></iframe>`
}
