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

const PULKOVO_TOWGS84 = '+towgs84=23.57,-140.95,-79.8,0,0.35,0.79,-0.22'

/**
 * Families of projected systems generated from their zone number, so that reprojection of
 * feature input and output knows them without shipping an EPSG database (the packaged
 * indexes are megabytes, too heavy for the worker bundle): WGS 84 / UTM, ETRS89 / UTM,
 * Pulkovo 1942 / Gauss-Krüger (with and without the zone prefix), NAD83.
 */
function generated(id: number): SrsDef | undefined {
  const def = (name: string, proj4: string, geographic = false): SrsDef =>
    ({ id, displayName: `${name} (EPSG:${id})`, proj4, geographic })
  if (id >= 32601 && id <= 32660) return def(`WGS 84 / UTM zone ${id - 32600}N`, `+proj=utm +zone=${id - 32600} +datum=WGS84 +units=m +no_defs`)
  if (id >= 32701 && id <= 32760) return def(`WGS 84 / UTM zone ${id - 32700}S`, `+proj=utm +zone=${id - 32700} +south +datum=WGS84 +units=m +no_defs`)
  if (id >= 25828 && id <= 25838) return def(`ETRS89 / UTM zone ${id - 25800}N`, `+proj=utm +zone=${id - 25800} +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs`)
  if (id >= 28404 && id <= 28432) {
    const z = id - 28400
    return def(`Pulkovo 1942 / Gauss-Kruger zone ${z}`, `+proj=tmerc +lat_0=0 +lon_0=${6 * z - 3} +k=1 +x_0=${z * 1e6 + 500000} +y_0=0 +ellps=krass ${PULKOVO_TOWGS84} +units=m +no_defs`)
  }
  if (id >= 28464 && id <= 28492) {
    const z = id - 28460
    return def(`Pulkovo 1942 / Gauss-Kruger ${z}N`, `+proj=tmerc +lat_0=0 +lon_0=${6 * z - 3} +k=1 +x_0=500000 +y_0=0 +ellps=krass ${PULKOVO_TOWGS84} +units=m +no_defs`)
  }
  if (id === 4269) return def('NAD83', '+proj=longlat +datum=NAD83 +no_defs', true)
  return undefined
}

/**
 * The definition used to reproject coordinates: a known system or a generated family
 * member; `undefined` when the code is unknown (callers answer 422, never guess).
 */
export function projectionOf(id: number): SrsDef | undefined {
  return BY_ID.get(id) ?? generated(id)
}
