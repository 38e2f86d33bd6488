/**
 * @module geo/srs
 * The reference systems the server knows. 4326 and 3857 always exist (reference §11).
 * Projection definitions are proj4 strings; unknown codes are answered with a 422 by callers.
 */

export interface SrsDef {
  id: number
  displayName: string
  proj4: string
  geographic: boolean
}

const DEFS: SrsDef[] = [
  { id: 4326, displayName: 'WGS 84 (EPSG:4326)', geographic: true, proj4: '+proj=longlat +datum=WGS84 +no_defs' },
  { id: 3857, displayName: 'WGS 84 / Pseudo-Mercator (EPSG:3857)', geographic: false,
    proj4: '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs' },
  { id: 4258, displayName: 'ETRS89 (EPSG:4258)', geographic: true, proj4: '+proj=longlat +ellps=GRS80 +no_defs' },
  { id: 3395, displayName: 'WGS 84 / World Mercator (EPSG:3395)', geographic: false,
    proj4: '+proj=merc +lon_0=0 +k=1 +x_0=0 +y_0=0 +datum=WGS84 +units=m +no_defs' },
  { id: 4284, displayName: 'Pulkovo 1942 (EPSG:4284)', geographic: true,
    proj4: '+proj=longlat +ellps=krass +towgs84=23.57,-140.95,-79.8,0,0.35,0.79,-0.22 +no_defs' },
]

const BY_ID = new Map(DEFS.map((d) => [d.id, d]))

/** The definition of EPSG code `id`, or `undefined` when the server does not know it. */
export function findSrs(id: number): SrsDef | undefined {
  return BY_ID.get(id)
}

export function listSrs(): readonly SrsDef[] {
  return DEFS
}
