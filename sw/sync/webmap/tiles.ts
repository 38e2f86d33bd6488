/**
 * @module sync/webmap/tiles
 * The basemap tiles of an area (XYZ, Web Mercator, y down) and where a saved map keeps them:
 * one blob of the data port each, so both hosts keep them the same way, and a delete frees them.
 */
/** `[west, south, east, north]` in degrees (EPSG:4326). */
export type Bbox4326 = [number, number, number, number]

/** The Mercator's latitude limit. */
const MAX_LAT = 85.0511287798066

export interface TileRange { z: number; x0: number; x1: number; y0: number; y1: number }

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v))

function lonToX(lon: number, z: number): number {
  return clamp(Math.floor(((lon + 180) / 360) * 2 ** z), 0, 2 ** z - 1)
}

function latToY(lat: number, z: number): number {
  const r = (clamp(lat, -MAX_LAT, MAX_LAT) * Math.PI) / 180
  return clamp(Math.floor(((1 - Math.asinh(Math.tan(r)) / Math.PI) / 2) * 2 ** z), 0, 2 ** z - 1)
}

/** The tiles covering `bbox` at each zoom of `zooms`. */
export function tileRanges(bbox: Bbox4326, zooms: [number, number]): TileRange[] {
  const out: TileRange[] = []
  for (let z = zooms[0]; z <= zooms[1]; z++) {
    out.push({ z, x0: lonToX(bbox[0], z), x1: lonToX(bbox[2], z), y0: latToY(bbox[3], z), y1: latToY(bbox[1], z) })
  }
  return out
}

export const tileCount = (bbox: Bbox4326, zooms: [number, number]) =>
  tileRanges(bbox, zooms).reduce((n, r) => n + (r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1), 0)

/** Every tile of the area, zoom by zoom (a generator: 20,000 tiles are never a list). */
export function* tilesOf(bbox: Bbox4326, zooms: [number, number]): Generator<[number, number, number]> {
  for (const r of tileRanges(bbox, zooms)) {
    for (let x = r.x0; x <= r.x1; x++) for (let y = r.y0; y <= r.y1; y++) yield [r.z, x, y]
  }
}

/** The start of the ids of every tile blob of saved map `group`. */
export const tileBlobPrefix = (group: number) => `webmap-offline-${group}-`

/** The start of the ids of the tile blobs of one basemap slot of saved map `group`. */
export const slotPrefix = (group: number, slot: number) => `${tileBlobPrefix(group)}${slot}-`

/** This server's tile URL template of basemap slot `slot` of saved map `group` (routes.ts serves it). */
export const tileRoute = (group: number, slot: number) => `/api/resource/${group}/webmap_offline/tile/${slot}/{z}/{x}/{y}`

/** The blob of tile z/x/y of basemap `index` of saved map `group`. */
export const tileBlobId = (group: number, index: number, z: number, x: number, y: number) =>
  `${tileBlobPrefix(group)}${index}-${z}-${x}-${y}`

/** A basemap URL template filled for one tile (`{-y}`: TMS rows, counted from the bottom). */
export function tileUrl(template: string, z: number, x: number, y: number): string {
  return template.replace('{z}', String(z)).replace('{x}', String(x)).replace('{-y}', String(2 ** z - 1 - y)).replace('{y}', String(y))
}
