/**
 * Source files for the ingest cases, made by the test itself (nothing committed): GeoJSON and
 * CSV by hand, shapefiles (CP1251 with a .cpg), GeoPackage, KML, GPX and GeoTIFFs written by
 * gdal3.js in Node, zipped with fflate. Each is made once per process, on first use.
 */
import { zipSync } from 'fflate'
import { initGdalNode } from '../../wasm/gdal-node.ts'
import { createGdalLoader, type GdalApi } from '../../wasm/gdal.ts'
import { base64 } from './harness.ts'

const gdal = createGdalLoader(initGdalNode)
let seq = 0

/** Writes `input` to GDAL's memory, runs `fn` on it and returns the files it wrote, by extension. */
async function withGdal(name: string, input: Uint8Array,
  fn: (g: GdalApi, ds: Awaited<ReturnType<GdalApi['open']>>['datasets'][number], out: string) => Promise<{ all: Array<{ local: string }> }>): Promise<Record<string, Uint8Array>> {
  const g = await gdal()
  const dir = `/input/testfiles-${seq++}`
  g.Module.FS.mkdir(dir)
  g.Module.FS.writeFile(`${dir}/${name}`, input)
  const { datasets: [ds] } = await g.open(`${dir}/${name}`)
  const res = await fn(g, ds!, `testfile-${seq++}`)
  const files: Record<string, Uint8Array> = {}
  for (const f of res.all) {
    files[f.local.split('.').pop()!] = g.Module.FS.readFile(f.local)
    g.Module.FS.unlink(f.local)
  }
  await g.close(ds!)
  return files
}

const once = <T>(make: () => Promise<T>) => { let p: Promise<T> | undefined; return () => (p ??= make()) }
const utf8 = (s: string) => new TextEncoder().encode(s)

type Props = Record<string, unknown>
export function featureCollection(features: Array<{ geometry: unknown; properties: Props }>): string {
  return JSON.stringify({ type: 'FeatureCollection', features: features.map((f) => ({ type: 'Feature', ...f })) })
}

/** `n` points around (30, 60) in EPSG:4326 with a text, a real, an integer and a date field. */
export function pointsGeojson(n: number): string {
  return featureCollection(Array.from({ length: n }, (_, i) => ({
    geometry: { type: 'Point', coordinates: [30 + (i % 100) / 1000, 60 + Math.floor(i / 100) / 1000] },
    properties: { name: `Well ${i + 1}`, depth: 10.5 + i, year: 1990 + (i % 30), surveyed: `2020-01-${String((i % 28) + 1).padStart(2, '0')}` } })))
}

/** Three wells with Cyrillic names, the source of the shapefiles. */
export const CYRILLIC = ['Скважина №1', 'Родник «Ключ»', 'Колодец ё']
const cyrillicGeojson = () => featureCollection(CYRILLIC.map((name, i) => ({
  geometry: { type: 'Point', coordinates: [37.6 + i / 100, 55.7] }, properties: { name, depth: i + 1 } })))

/** The parts of a CP1251 shapefile `wells` (.shp .shx .dbf .cpg .prj), as GDAL writes them. */
export const cp1251Shapefile = once(() => withGdal('wells.geojson', utf8(cyrillicGeojson()),
  (g, ds, out) => g.ogr2ogr(ds, ['-f', 'ESRI Shapefile', '-lco', 'ENCODING=CP1251'], out)))

/** The shapefile parts zipped under `folder/` (skipping `omit` extensions, replacing some). */
export async function zippedShapefile(omit: string[] = [], replace: Record<string, Uint8Array> = {}, folder = 'data/'): Promise<Uint8Array> {
  const parts = { ...(await cp1251Shapefile()), ...replace }
  const files: Record<string, Uint8Array> = {}
  for (const [ext, bytes] of Object.entries(parts)) if (!omit.includes(ext)) files[`${folder}wells.${ext}`] = bytes
  return zipSync(files)
}

/**
 * `n` points (see `pointsGeojson`) as a zipped shapefile `name`, UTF-8 with its .cpg; with
 * `encoding` null, as GDAL writes one by default (no .cpg, the DBF's language byte ISO-8859-1).
 */
export async function pointsShapefileZip(n: number, name: string, encoding: string | null = 'UTF-8'): Promise<Uint8Array> {
  const parts = await withGdal('pts.geojson', utf8(pointsGeojson(n)), (g, ds, out) =>
    g.ogr2ogr(ds, ['-f', 'ESRI Shapefile', ...(encoding ? ['-lco', `ENCODING=${encoding}`] : [])], out))
  return zipSync(Object.fromEntries(Object.entries(parts).map(([ext, b]) => [`${name}.${ext}`, b])))
}

/** Two polygons in EPSG:3857 as a GeoPackage. */
export const polygonsGpkg = once(async () => (await withGdal('p.geojson', utf8(featureCollection([
  { geometry: { type: 'Polygon', coordinates: [[[3339584, 8399737], [3350716, 8399737], [3350716, 8410869], [3339584, 8399737]]] }, properties: { kind: 'forest', area: 1.5 } },
  { geometry: { type: 'Polygon', coordinates: [[[3361848, 8399737], [3372980, 8399737], [3372980, 8410869], [3361848, 8399737]]] }, properties: { kind: 'lake', area: 2.25 } },
]).replace('"FeatureCollection"', '"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::3857"}}')),
(g, ds, out) => g.ogr2ogr(ds, ['-f', 'GPKG', '-nln', 'landuse'], out))).gpkg!)

/** Two placemarks as KML. */
export const placemarksKml = once(async () => (await withGdal('k.geojson', utf8(featureCollection([
  { geometry: { type: 'Point', coordinates: [30.1, 60.1] }, properties: { Name: 'Camp', Description: 'Base camp' } },
  { geometry: { type: 'Point', coordinates: [30.2, 60.2] }, properties: { Name: 'Spring', Description: 'Water' } },
])), (g, ds, out) => g.ogr2ogr(ds, ['-f', 'KML'], out))).kml!)

/** Three waypoints as GPX. */
export const waypointsGpx = once(async () => (await withGdal('w.geojson', utf8(featureCollection([1, 2, 3].map((i) => ({
  geometry: { type: 'Point', coordinates: [30 + i / 10, 60] }, properties: { name: `WP${i}`, ele: 100 * i } })))),
(g, ds, out) => g.ogr2ogr(ds, ['-f', 'GPX', '-nln', 'waypoints'], out))).gpx!)

export const CSV_TEXT = 'name,lon,lat,count\nNorth,30.5,60.5,3\nSouth,30.5,59.5,7\n'

/**
 * A 64×64 GeoTIFF rasterised from a square (a CSV with a WKT column, so it has no reference
 * system of its own): `bands` burn values, then translated with creation options `co`.
 */
async function geotiff(opts: { bands: number[]; type?: string; srs?: string; co?: string[]; extent?: number[]; colorinterp?: string }): Promise<Uint8Array> {
  const square = 'WKT\n"POLYGON((30.2 60.2,30.8 60.2,30.8 60.8,30.2 60.8,30.2 60.2))"\n'
  const args = ['-of', 'GTiff', '-ot', opts.type ?? 'Byte', '-init', '0', '-ts', '64', '64',
    '-te', ...(opts.extent ?? [30, 60, 31, 61]).map(String), ...opts.bands.flatMap((b) => ['-burn', String(b)])]
  if (opts.srs) args.push('-a_srs', opts.srs)
  const plain = (await withGdal('square.csv', utf8(square), (g, ds, out) => g.gdal_rasterize(ds, args, out))).tif!
  const translate = ['-of', 'GTiff', ...(opts.co ?? []).flatMap((c) => ['-co', c]), ...(opts.colorinterp ? ['-colorinterp', opts.colorinterp] : [])]
  return (await withGdal('plain.tif', plain, (g, ds, out) => g.gdal_translate(ds, translate, out))).tif!
}

export const TIFFS = {
  rgb: once(() => geotiff({ bands: [200, 100, 50], srs: 'EPSG:4326', co: ['PHOTOMETRIC=RGB', 'COMPRESS=LZW'] })),
  /** TIFFS.rgb with another colour: a raster whose pixels tell it apart. */
  rgbOther: once(() => geotiff({ bands: [40, 160, 90], srs: 'EPSG:4326', co: ['PHOTOMETRIC=RGB', 'COMPRESS=LZW'] })),
  rgba3857: once(() => geotiff({ bands: [10, 20, 30, 255], srs: 'EPSG:3857', co: ['PHOTOMETRIC=RGB', 'ALPHA=YES', 'COMPRESS=DEFLATE'],
    extent: [3339584, 8399737, 3450000, 8510000] })),
  oneBand: once(() => geotiff({ bands: [7], srs: 'EPSG:4326' })),
  sixteenBit: once(() => geotiff({ bands: [1000, 2000, 3000], type: 'UInt16', srs: 'EPSG:4326', co: ['PHOTOMETRIC=RGB'] })),
  noSrs: once(() => geotiff({ bands: [200, 100, 50], co: ['PHOTOMETRIC=RGB'] })),
  noColour: once(() => geotiff({ bands: [200, 100, 50], srs: 'EPSG:4326', co: ['PHOTOMETRIC=MINISBLACK'], colorinterp: 'undefined,undefined,undefined' })),
  packbits: once(() => geotiff({ bands: [200, 100, 50], srs: 'EPSG:4326', co: ['PHOTOMETRIC=RGB', 'COMPRESS=PACKBITS'] })),
}

export { base64, utf8 }
