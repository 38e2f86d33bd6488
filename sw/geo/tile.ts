/**
 * @module geo/tile
 * XYZ tile math in Web Mercator (EPSG:3857, y = 0 at the top, reference §9), and the fast
 * lon/lat → Mercator projection the tile cutter uses for EPSG:4326 layers.
 */
import type { Bbox } from './geometry.ts'

/** Half the width of the Web Mercator world, in metres. */
export const MERCATOR_HALF = 20037508.342789244
const R = 6378137
/** Web Mercator's latitude limit: the world is square up to here. */
const MAX_LAT = 85.0511287798066

/** Deepest zoom a tile request may name (the original's `TileZ`). */
export const MAX_ZOOM = 24

/** Width of one tile at zoom `z`, in metres. */
export const tileSize = (z: number) => (2 * MERCATOR_HALF) / 2 ** z

/** The tile's box in EPSG:3857 metres. */
export function tileBbox(z: number, x: number, y: number): Bbox {
  const size = tileSize(z)
  return [-MERCATOR_HALF + x * size, MERCATOR_HALF - (y + 1) * size, -MERCATOR_HALF + (x + 1) * size, MERCATOR_HALF - y * size]
}

/** `b` grown by `fraction` of its width and height on each side. */
export function padBbox(b: Bbox, fraction: number): Bbox {
  const dx = (b[2] - b[0]) * fraction, dy = (b[3] - b[1]) * fraction
  return [b[0] - dx, b[1] - dy, b[2] + dx, b[3] + dy]
}

export const bboxesIntersect = (a: Bbox, b: Bbox) => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]

/** Longitude in degrees → Mercator x. */
export const lonToMercator = (lon: number) => (lon * MERCATOR_HALF) / 180

/** Latitude in degrees → Mercator y, clamped to the square world. */
export function latToMercator(lat: number): number {
  const l = lat > MAX_LAT ? MAX_LAT : lat < -MAX_LAT ? -MAX_LAT : lat
  return R * Math.log(Math.tan(Math.PI / 4 + (l * Math.PI) / 360))
}

/** Whether `z/x/y` names a tile of the XYZ grid. */
export function isTile(z: number, x: number, y: number): boolean {
  const n = 2 ** z
  return Number.isInteger(z) && z >= 0 && z <= MAX_ZOOM && Number.isInteger(x) && Number.isInteger(y) && x >= 0 && y >= 0 && x < n && y < n
}
