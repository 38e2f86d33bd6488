/**
 * @module ingest/vector-source
 * Opens a vector file with GDAL and says what is in it: the driver, its layers with their
 * fields, geometry type, feature count and reference system. Shapefiles come zipped (all
 * parts in one archive, found wherever they are inside it); GeoJSON, GeoPackage, KML, GPX and
 * CSV with coordinate columns come as they are, or zipped. Encodings are settled here: a
 * shapefile's `.cpg` or the upload's `encoding`, UTF-8 (or CP1251 when the upload says so)
 * for text formats.
 */
import { unzipSync } from 'fflate'
import type { GdalDataset } from '../../wasm/gdal.ts'
import { GdalOpenError, gdalMessages, type GdalWorkspace } from './gdal-workspace.ts'
import { gdalOpenFailed, sourceError } from './errors.ts'
import { checkUnzippedSize } from './limits.ts'
import { checkZipMembers } from './zip-check.ts'
import { cp1251ToUtf8, invalidUtf8At, supportedEncoding, type SourceEncoding } from './encoding.ts'

export interface FieldSummary { name: string; type: string }
export interface LayerSummary {
  name: string
  feature_count: number | null
  /** NGW's spelling (`POINT`, `MULTIPOLYGON`), `null` when the layer has no geometry. */
  geometry_type: string | null
  fields: FieldSummary[]
  /** `AUTH:CODE` when GDAL knows the authority, else the WKT; null without a reference system. */
  srs: string | null
}
/** What the inspect endpoint answers (wire shape). */
export interface SourceSummary { driver: string; layers: LayerSummary[]; encoding?: string }

/** A field as GDAL reports it, with the subtype that tells booleans and JSON apart. */
export interface SourceField { name: string; type: string; subType?: string }
export interface SourceLayer { name: string; featureCount: number | null; geometryType: string | null; fields: SourceField[];
  srs: string | null; hasSrs: boolean }

export interface OpenedSource {
  /** The file's name as the person knows it (used in every error). */
  file: string
  driver: string
  dataset: GdalDataset
  layers: SourceLayer[]
  /** The encoding the values are read in (shapefiles and text formats). */
  encoding?: SourceEncoding
  /** A shapefile's encoding that is neither UTF-8 nor CP1251: only ASCII text is accepted from it. */
  foreignEncoding?: string
  /** A CSV carries no reference system: its coordinates are read as EPSG:4326. */
  assumedSrs?: number
}

export interface SourceFile {
  /** The upload's file name; may be missing or lack an extension. */
  name: string
  bytes: Uint8Array
  /** The upload's `encoding`, if the client named one. */
  encoding?: string
}

const DATA_EXT = /\.(shp|geojson|json|gpkg|kml|gpx|csv)$/i
const CSV_OPTIONS = ['X_POSSIBLE_NAMES=x,lon,lng,long,longitude', 'Y_POSSIBLE_NAMES=y,lat,latitude',
  'GEOM_POSSIBLE_NAMES=wkt,geom,geometry,the_geom', 'KEEP_GEOM_COLUMNS=NO', 'AUTODETECT_TYPE=YES']

/**
 * Formats whose name GDAL would not be asked about: a `.shp` is not one of the names opened as
 * they are, so its bytes were sniffed and a text file renamed `.shp` was read as a CSV without
 * geometry. (A `.geojson`, `.kml` or `.gpkg` that is not one is opened by name and refused by
 * GDAL with the original's "GDAL library failed to open file."; a `.zip` that is not one by the
 * ZIP check.)
 */
const SIGNATURES: Record<string, { test: (b: Uint8Array) => boolean; what: string }> = {
  // A shapefile's main file starts with the file code 9994 (big-endian).
  shp: { test: (b) => b[0] === 0 && b[1] === 0 && b[2] === 0x27 && b[3] === 0x0a, what: 'a shapefile' },
}

const headText = (bytes: Uint8Array) => new TextDecoder().decode(bytes.subarray(0, 512)).replace(/^\uFEFF/, '').trimStart()

/**
 * Refuses a file whose name promises a format its bytes are not (a text file renamed `.shp`
 * was read as a CSV without geometry), and a bare `.shp`, which GDAL cannot read without the
 * shapefile's other parts: before anything is converted, so the person can fix the file.
 */
function checkNamedFormat(file: string, bytes: Uint8Array): void {
  const ext = /\.([a-z0-9]+)$/i.exec(file)?.[1]?.toLowerCase()
  const sig = ext ? SIGNATURES[ext] : undefined
  if (!sig) return
  if (!sig.test(bytes)) {
    const looks = bytes.subarray(0, 512).some((b) => b < 0x09) ? 'binary data' : 'text'
    throw sourceError({ file, message: `the name ends in .${ext}, but the file is not ${sig.what} (it holds ${looks}). Upload the file the name promises, or give the file its real extension.` },
      { extension: ext })
  }
  if (ext === 'shp') {
    throw sourceError({ file, message: 'a shapefile is read from a ZIP archive holding its .shp, .shx, .dbf and .prj together; zip them and upload the archive.' },
      { extension: ext })
  }
}

/**
 * Refuses a layer without geometry (a CSV without coordinate columns, a table): a vector
 * layer needs one. `layer` names it when the dataset has several.
 */
export function noGeometry(file: string, layer?: string) {
  return sourceError({ file, message: `${layer ? `the layer '${layer}' has` : 'the file has'} no geometry, and a vector layer needs one (a CSV needs coordinate columns named x/lon/longitude and y/lat/latitude, or a WKT column named wkt/geom/geometry).` },
    layer ? { layer } : {})
}

/** The extension a file without a telling name gets, from its first bytes. */
function extensionOf(name: string, bytes: Uint8Array): string {
  const m = /\.([a-z0-9]+)$/i.exec(name)
  if (m && /^(zip|geojson|json|gpkg|kml|gpx|csv)$/i.test(m[1]!)) return m[1]!.toLowerCase()
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return 'zip'
  const head = headText(bytes)
  if (head.startsWith('SQLite format 3')) return 'gpkg'
  if (head.startsWith('{') || head.startsWith('[')) return 'geojson'
  if (head.startsWith('<')) return /<gpx[\s>]/.test(head) ? 'gpx' : 'kml'
  return 'csv'
}

/** A plain name for GDAL's file system that keeps the person's name where it is usable. */
function fsName(name: string, ext: string): string {
  const base = name.replace(/\.[a-z0-9]+$/i, '').replace(/[/\\\0]/g, '_').trim()
  return `${base && base !== '.' && base !== '..' ? base : 'source'}.${ext}`
}

/**
 * The data files inside a zip (skipping macOS metadata and hidden files), read from its
 * central directory: nothing is inflated here. The members' declared sizes are bounded
 * (`checkUnzippedSize`); that they tell the truth is `checkZipMembers`'s.
 */
function zipMembers(bytes: Uint8Array, file: string): string[] {
  const names: string[] = []
  let total = 0
  try {
    unzipSync(bytes, { filter: (f) => { names.push(f.name); total += f.originalSize; return false } })
  } catch (err) {
    throw sourceError({ file, message: `the ZIP archive cannot be read (${(err as Error).message}).` })
  }
  checkUnzippedSize(file, total)
  return names.filter((n) => DATA_EXT.test(n) && !/(^|\/)(__MACOSX\/|\.)/.test(n))
}

/** The path GDAL opens for a zip: its one dataset, or the folder of its shapefiles. */
function zipTarget(members: string[], file: string): string {
  if (members.length === 1) return members[0]!
  const shps = members.filter((n) => /\.shp$/i.test(n))
  const dirs = new Set(shps.map((n) => n.replace(/[^/]*$/, '')))
  if (shps.length === members.length && dirs.size === 1) return [...dirs][0]!.replace(/\/$/, '')
  if (!members.length) throw sourceError({ file, message: 'the ZIP archive holds no shapefile, GeoJSON, GeoPackage, KML, GPX or CSV file.' })
  throw sourceError({ file, message: `the ZIP archive holds several datasets (${members.join(', ')}); upload one at a time.` }, { members })
}

/** Checks (and for CP1251 converts) a text file's bytes, so GDAL reads UTF-8. */
function textBytes(bytes: Uint8Array, file: string, declared: SourceEncoding | undefined): { bytes: Uint8Array; encoding: SourceEncoding } {
  if (declared === 'CP1251') return { bytes: cp1251ToUtf8(bytes), encoding: 'CP1251' }
  const at = invalidUtf8At(bytes)
  if (at >= 0) {
    throw sourceError({ file, message: `the file is not valid UTF-8 (byte ${at + 1}). Save it as UTF-8, or upload it with encoding CP1251 if that is what it is.` },
      { encoding: 'unknown', offset: at })
  }
  return { bytes, encoding: 'UTF-8' }
}

/**
 * Writes `src` into the workspace and opens it. Throws 422s naming the file when GDAL cannot
 * read it or its encoding is neither UTF-8 nor CP1251.
 */
export async function openSource(ws: GdalWorkspace, src: SourceFile): Promise<OpenedSource> {
  const file = src.name || 'upload'
  const declared = src.encoding === undefined || src.encoding === '' ? undefined : supportedEncoding(src.encoding)
  if (src.encoding && !declared) {
    throw sourceError({ file, message: `encoding '${src.encoding}' is not supported; use UTF-8 or CP1251.` }, { encoding: src.encoding })
  }
  if (!src.bytes.length) throw sourceError({ file, message: 'the file is empty.' })
  checkNamedFormat(file, src.bytes)
  const ext = extensionOf(file, src.bytes)
  let bytes = src.bytes
  let encoding: SourceEncoding | undefined
  let target = ''
  let inner = ext
  if (ext === 'zip') {
    const members = zipMembers(bytes, file)
    await checkZipMembers(bytes, file)
    target = zipTarget(members, file)
    inner = /\.([a-z]+)$/i.exec(target)?.[1]?.toLowerCase() ?? 'shp'
  } else if (ext === 'geojson' || ext === 'json' || ext === 'csv' || ext === 'kml' || ext === 'gpx') {
    ({ bytes, encoding } = textBytes(bytes, file, ext === 'kml' || ext === 'gpx' ? undefined : declared))
  }
  const path = await ws.input(fsName(file, ext), bytes)
  const options = inner === 'csv' ? [...CSV_OPTIONS] : []
  if (inner === 'shp' && declared) options.push(`ENCODING=${declared}`)
  const gdal = ws.gdal
  let ds: GdalDataset
  try {
    ds = await ws.open(ext === 'zip' ? `/vsizip/${path}${target ? `/${target}` : ''}` : path, 'vector', options)
  } catch (err) {
    if (!(err instanceof GdalOpenError)) throw err
    if (await isRaster(ws, ext === 'zip' ? `/vsizip/${path}` : path)) {
      throw sourceError({ file, message: 'the file holds a raster, not vector data; create a raster layer from it instead.' })
    }
    throw gdalOpenFailed(file, err.message)
  }
  let info: OgrInfo
  try {
    info = await gdal.ogrinfo(ds, ['-so', '-noextent']) as OgrInfo
  } catch (err) {
    await gdal.close(ds).catch(() => undefined)
    throw gdalOpenFailed(file, gdalMessages(err))
  }
  const layers = (info.layers ?? []).map(sourceLayer)
  let foreignEncoding: string | undefined
  if (inner === 'shp') ({ encoding, foreign: foreignEncoding } = shapeEncoding(info, declared))
  return { file, driver: info.driverShortName ?? '', dataset: ds, layers, encoding, foreignEncoding,
    assumedSrs: inner === 'csv' ? 4326 : undefined }
}

async function isRaster(ws: GdalWorkspace, path: string): Promise<boolean> {
  try {
    await ws.gdal.close(await ws.open(path, 'raster'))
    return true
  } catch {
    return false
  }
}

/**
 * The encoding GDAL reads a shapefile in: the upload's, the `.cpg`'s or the DBF's; UTF-8 by
 * default. One that is neither UTF-8 nor CP1251 is `foreign`: the load refuses non-ASCII text.
 */
function shapeEncoding(info: OgrInfo, declared: SourceEncoding | undefined): { encoding?: SourceEncoding; foreign?: string } {
  if (declared) return { encoding: declared }
  for (const l of info.layers ?? []) {
    const named = (l.metadata?.SHAPEFILE as Record<string, string> | undefined)?.SOURCE_ENCODING
    if (!named) continue
    const enc = supportedEncoding(named)
    return enc ? { encoding: enc } : { foreign: named }
  }
  return { encoding: 'UTF-8' }
}

interface OgrInfo {
  driverShortName?: string
  layers?: Array<{
    name: string
    featureCount?: number
    metadata?: Record<string, unknown>
    fields?: Array<{ name: string; type: string; subType?: string }>
    geometryFields?: Array<{ type?: string; coordinateSystem?: { wkt?: string; projjson?: { id?: { authority: string; code: number | string } } } }>
  }>
}

/** GDAL says 'Point', 'Multi Polygon', '3D Point', 'Point Z'…; NGW spells 'POINT', 'MULTIPOLYGONZ'. */
function ngwGeometryType(gdalType: string | undefined): string | null {
  if (!gdalType || gdalType === 'None') return null
  const z = /3D|25D|\bZ\b/i.test(gdalType)
  const base = gdalType.replace(/3D|25D|\bZM?\b|\bM\b|Measured/gi, '').replace(/\s+/g, '').toUpperCase()
  return base + (z ? 'Z' : '')
}

function sourceLayer(l: NonNullable<OgrInfo['layers']>[number]): SourceLayer {
  const geom = l.geometryFields?.[0]
  const cs = geom?.coordinateSystem
  const id = cs?.projjson?.id
  return {
    name: l.name,
    featureCount: l.featureCount ?? null,
    geometryType: ngwGeometryType(geom?.type),
    fields: (l.fields ?? []).map((f) => ({ name: f.name, type: f.type, ...(f.subType ? { subType: f.subType } : {}) })),
    srs: id ? `${id.authority}:${id.code}` : cs?.wkt || null,
    hasSrs: !!cs?.wkt,
  }
}

/** The wire summary of an opened source (the inspect endpoint's answer). */
export function summaryOf(src: OpenedSource): SourceSummary {
  const out: SourceSummary = { driver: src.driver, layers: src.layers.map((l) => ({ name: l.name, feature_count: l.featureCount,
    geometry_type: l.geometryType, fields: l.fields.map((f) => ({ name: f.name, type: f.subType ? f.subType : f.type })),
    srs: l.srs ?? (src.assumedSrs ? `EPSG:${src.assumedSrs}` : null) })) }
  const encoding = src.encoding ?? src.foreignEncoding
  if (encoding) out.encoding = encoding
  return out
}

/** GPX's per-point layers repeat its routes and tracks; they are never the default. */
const SECONDARY = /^(route_points|track_points)$/

/**
 * The layer to load: `wanted` by name, else the only layer, else the only non-empty one. A
 * choice that cannot be made is a 422 listing the layers, so the person can name one.
 */
export function chooseLayer(src: OpenedSource, wanted: string | undefined): SourceLayer {
  const names = src.layers.map((l) => l.name)
  if (wanted !== undefined) {
    const hit = src.layers.find((l) => l.name === wanted)
    if (!hit) throw sourceError({ file: src.file, message: `there is no layer '${wanted}'; the layers are: ${names.join(', ')}.` }, { layers: names })
    return hit
  }
  if (!src.layers.length) throw sourceError({ file: src.file, message: "the dataset doesn't contain layers." })
  if (src.layers.length === 1) return src.layers[0]!
  const candidates = src.layers.filter((l) => l.featureCount !== 0 && !(src.driver === 'GPX' && SECONDARY.test(l.name)))
  if (candidates.length === 1) return candidates[0]!
  throw sourceError({ file: src.file, message: `the dataset contains more than one layer (${names.join(', ')}); choose one with source_layer.` },
    { layers: names })
}
