/**
 * @module geo/srs
 * Reference systems. The listed ones (`listSrs`, the `spatial_ref_sys` of the API) are built
 * in; 4326 and 3857 always exist (reference §11). Reprojection knows every EPSG code of the
 * host's EPSG index (the `epsg-index` package): a code is loaded once through the host's
 * `EpsgSource` (`loadProjection`) and known to `projectionOf` from then on. Codes the index
 * lacks, or whose definition proj4 cannot use, stay unknown: callers answer 422, never guess.
 */
import proj4 from 'proj4'
import { isNorthingFirst } from './northing-first.ts'

export interface SrsDef {
  id: number
  displayName: string
  proj4: string
  geographic: boolean
}

/** One code of the EPSG index: its name and proj4 definition. */
export interface EpsgEntry {
  name: string
  proj4: string
}

/** How a host looks a code up in its EPSG index; `undefined` when the index lacks it. */
export type EpsgSource = (code: number) => Promise<EpsgEntry | undefined>

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

const LISTED = new Map(DEFS.map((d) => [d.id, d]))

/** The listed system `id` (the API's `spatial_ref_sys`), or `undefined`. */
export function findSrs(id: number): SrsDef | undefined {
  return LISTED.get(id)
}

export function listSrs(): readonly SrsDef[] {
  return DEFS
}

/**
 * Whether the system's own axis order is y, x: latitude first (a geographic system) or
 * northing first (a projected one such as EPSG:31466 or EPSG:3035). WMS 1.3.0 boxes follow it;
 * coordinates here are always x, y. A definition with its own `+axis` gives them in its order already.
 */
export function isYxOrder(def: SrsDef): boolean {
  return def.geographic || (isNorthingFirst(def.id) && !/\+axis=/.test(def.proj4))
}

/**
 * Definitions loaded from the EPSG index. They are facts about the code, the same whatever
 * host loaded them, so one map serves the process.
 */
const LOADED = new Map<number, SrsDef>()
const PENDING = new Map<number, Promise<SrsDef | undefined>>()

/**
 * The definition used to reproject coordinates: a listed system or one loaded from the EPSG
 * index; `undefined` when the code is unknown or not loaded yet (see `loadProjection`).
 */
export function projectionOf(id: number): SrsDef | undefined {
  return LISTED.get(id) ?? LOADED.get(id)
}

/**
 * The definition of an index entry if proj4 can use it, else `undefined`: vertical and
 * engineering systems, and systems whose datum shift needs an NTv2 grid file (OSGB 1936,
 * the NAD27 variants…), which is not shipped: without it proj4 would silently skip the
 * shift, a guess off by up to hundreds of metres.
 */
export function epsgDefinition(id: number, entry: EpsgEntry): SrsDef | undefined {
  const def = entry.proj4.replace(/\s*\+type=crs\b/, '')
  if (/\+nadgrids=(?!@null\b)/.test(def)) return undefined
  try {
    proj4(def, DEFS[0]!.proj4)
  } catch {
    return undefined
  }
  return { id, displayName: `${entry.name} (EPSG:${id})`, proj4: def, geographic: /\+proj=longlat\b/.test(def) }
}

/**
 * Makes code `id` known to `projectionOf`, looking it up in the host's index on first use.
 * Resolves to its definition, or `undefined` when the index lacks it or proj4 cannot use it.
 * A failed lookup is not remembered: the next call asks the index again.
 */
export function loadProjection(id: number, source: EpsgSource): Promise<SrsDef | undefined> {
  const known = projectionOf(id)
  if (known) return Promise.resolve(known)
  if (!Number.isSafeInteger(id) || id <= 0) return Promise.resolve(undefined)
  let p = PENDING.get(id)
  if (!p) {
    p = source(id).then((entry) => entry ?? deprecatedEntry(id, source)).then((entry) => {
      const def = entry && epsgDefinition(id, entry)
      if (def) LOADED.set(id, def)
      return def
    }).finally(() => PENDING.delete(id))
    PENDING.set(id, p)
  }
  return p
}

/**
 * Deprecated codes the index omits but clients still send (they answered before the index
 * was used), made from the current code each one duplicates: Pulkovo 1942 / Gauss-Kruger
 * 4N–32N (28464–28492) are zones 4–32 (28404–28432) without the zone number in the false
 * easting; ETRS89 / UTM zone 38N (25838) is zone 37N (25837) one zone east.
 */
async function deprecatedEntry(id: number, source: EpsgSource): Promise<EpsgEntry | undefined> {
  if (id >= 28464 && id <= 28492) {
    const z = id - 28460
    const base = await source(28400 + z)
    return base && { name: `Pulkovo 1942 / Gauss-Kruger ${z}N`, proj4: base.proj4.replace(/\+x_0=\d+/, '+x_0=500000') }
  }
  if (id === 25838) {
    const base = await source(25837)
    return base && { name: 'ETRS89 / UTM zone 38N', proj4: base.proj4.replace('+zone=37', '+zone=38') }
  }
  return undefined
}
