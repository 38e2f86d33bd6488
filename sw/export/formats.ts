/**
 * @module export/formats
 * The export formats (reference §8), by the original's format names. GeoPackage, GeoJSON
 * and the two CSV flavours are written here, streaming; the others are converted by
 * GDAL-WASM from a GeoPackage of the selection (LIBKML is not in GDAL-WASM: KML comes from
 * GDAL's KML driver, KMZ is that file zipped as `doc.kml`).
 */

/** Who writes the file. */
export type Writer = 'gpkg' | 'geojson' | 'csv' | 'gdal' | 'kmz'

export interface ExportFormat {
  /** The `format=` value (case-sensitive). */
  id: string
  displayName: string
  writer: Writer
  /** GDAL's driver for `writer: 'gdal'`. */
  driver?: string
  extension: string
  mime: string
  /** Several files per layer: always delivered zipped. */
  singleFile: boolean
  /** `only`: always EPSG:4326; `prefer`: 4326 unless `srs` says otherwise. */
  lonlat?: 'only' | 'prefer'
  /** The layer creation option that takes `encoding`. */
  encodingLco?: string
  /** Geometry types the format can hold (base names); all when absent. */
  geometryTypes?: readonly string[]
  lco?: readonly string[]
  dsco?: readonly string[]
}

const LINES_AND_POINTS = ['POINT', 'MULTIPOINT', 'LINESTRING', 'MULTILINESTRING'] as const

export const EXPORT_FORMATS: readonly ExportFormat[] = [
  { id: 'GPKG', displayName: 'GeoPackage (*.gpkg)', writer: 'gpkg', extension: 'gpkg', mime: 'application/geopackage+vnd.sqlite3', singleFile: true },
  { id: 'GeoJSON', displayName: 'GeoJSON (*.geojson)', writer: 'geojson', extension: 'geojson', mime: 'application/json', singleFile: true, lonlat: 'prefer' },
  { id: 'ESRI Shapefile', displayName: 'ESRI Shapefile (*.shp)', writer: 'gdal', driver: 'ESRI Shapefile', extension: 'shp',
    mime: 'application/octet-stream', singleFile: false, encodingLco: 'ENCODING' },
  { id: 'CSV', displayName: 'Comma Separated Value (*.csv)', writer: 'csv', extension: 'csv', mime: 'text/csv', singleFile: true, lonlat: 'prefer' },
  { id: 'CSV_MSEXCEL', displayName: 'CSV for Microsoft Excel (*.csv)', writer: 'csv', extension: 'csv', mime: 'text/csv', singleFile: true, lonlat: 'prefer' },
  { id: 'MapInfo File (TAB)', displayName: 'MapInfo TAB (*.tab)', writer: 'gdal', driver: 'MapInfo File', extension: 'tab',
    mime: 'application/octet-stream', singleFile: false, encodingLco: 'ENCODING' },
  { id: 'MapInfo File (MIF/MID)', displayName: 'MapInfo MIF/MID (*.mif/*.mid)', writer: 'gdal', driver: 'MapInfo File', extension: 'mif',
    mime: 'application/octet-stream', singleFile: false, encodingLco: 'ENCODING', dsco: ['FORMAT=MIF'] },
  { id: 'KML', displayName: 'KML (*.kml)', writer: 'gdal', driver: 'KML', extension: 'kml', mime: 'application/vnd.google-earth.kml+xml',
    singleFile: true, lonlat: 'only' },
  { id: 'KMZ', displayName: 'KMZ (*.kmz)', writer: 'kmz', driver: 'KML', extension: 'kmz', mime: 'application/vnd.google-earth.kmz',
    singleFile: true, lonlat: 'only' },
  { id: 'DXF', displayName: 'AutoCAD DXF (*.dxf)', writer: 'gdal', driver: 'DXF', extension: 'dxf', mime: 'application/dxf', singleFile: true },
  { id: 'GPX', displayName: 'GPS Exchange Format (*.gpx)', writer: 'gdal', driver: 'GPX', extension: 'gpx', mime: 'application/gpx+xml',
    singleFile: true, lonlat: 'only', geometryTypes: LINES_AND_POINTS, dsco: ['GPX_USE_EXTENSIONS=YES'] },
  { id: 'GML', displayName: 'Geography Markup Language (*.gml)', writer: 'gdal', driver: 'GML', extension: 'gml',
    mime: 'application/gml+xml', singleFile: false },
]

const BY_ID = new Map(EXPORT_FORMATS.map((f) => [f.id, f]))

export const findFormat = (id: string): ExportFormat | undefined => BY_ID.get(id)

/** `pyramid/settings?component=feature_layer` → `exportFormats` (reference §11). */
export function exportFormatSettings(): Record<string, unknown>[] {
  return EXPORT_FORMATS.map((f) => ({ name: f.id, display_name: f.displayName, single_file: f.singleFile,
    lco_configurable: null, dsco_configurable: null, lonlat: f.lonlat ?? null }))
}

/**
 * The output SRS: `only` formats are always lon/lat, `prefer` ones unless `srs` is given or
 * `keepLayerSrs` (the `/geojson` download, in the layer's SRS).
 */
export function outputSrs(format: ExportFormat, requested: number | undefined, layerSrs: number, keepLayerSrs = false): number {
  if (format.lonlat === 'only') return 4326
  return requested ?? (format.lonlat === 'prefer' && !keepLayerSrs ? 4326 : layerSrs)
}
