/**
 * @module export/srs-wkt
 * Rows of `gpkg_spatial_ref_sys` for exported GeoPackages. The GeoPackage asks for the OGC
 * WKT of each system; 4326 and 3857 carry it (as GDAL writes it). Other codes are written
 * with `organization = 'EPSG'` and the code, which GDAL and QGIS resolve from their own EPSG
 * database, and the proj4 definition as the description.
 */
import { projectionOf } from '../geo/srs.ts'

export interface SrsRow { name: string; organization: string; organizationId: number; definition: string; description: string | null }

const WGS84_GEOGCS = 'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],' +
  'AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]]'

const WKT: Record<number, string> = {
  4326: `${WGS84_GEOGCS},AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]`,
  3857: `PROJCS["WGS 84 / Pseudo-Mercator",${WGS84_GEOGCS},AUTHORITY["EPSG","4326"]],PROJECTION["Mercator_1SP"],` +
    'PARAMETER["central_meridian",0],PARAMETER["scale_factor",1],PARAMETER["false_easting",0],PARAMETER["false_northing",0],' +
    'UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],' +
    'EXTENSION["PROJ4","+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs"],' +
    'AUTHORITY["EPSG","3857"]]',
}

export function srsDefinition(id: number): SrsRow {
  if (id === -1) return { name: 'Undefined cartesian SRS', organization: 'NONE', organizationId: -1, definition: 'undefined', description: 'undefined cartesian coordinate reference system' }
  if (id === 0) return { name: 'Undefined geographic SRS', organization: 'NONE', organizationId: 0, definition: 'undefined', description: 'undefined geographic coordinate reference system' }
  const def = projectionOf(id)
  return { name: def?.displayName.replace(/ \(EPSG:\d+\)$/, '') ?? `EPSG:${id}`, organization: 'EPSG', organizationId: id,
    definition: WKT[id] ?? 'undefined', description: def?.proj4 ?? null }
}
