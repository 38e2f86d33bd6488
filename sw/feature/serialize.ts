/**
 * @module feature/serialize
 * Features, attachments and extents as the API writes them (reference §5.2, §5.3, §6):
 * values in the requested formats, geometry as WKT or GeoJSON in the requested system,
 * extents as lon/lat in EPSG:4326.
 */
import { validationError } from '../core/error.ts'
import { bboxOf, type Bbox, type Geometry } from '../geo/geometry.ts'
import { toWkt } from '../geo/wkt.ts'
import { reproject, reprojectBbox } from '../geo/reproject.ts'
import { areaOf, lengthOf } from '../geo/measure.ts'
import { fromColumn } from './values.ts'
import type { DumpOptions } from './query.ts'
import type { AttachmentRow, FeatureRow, LayerMeta, RowShape } from './types.ts'

/** What a listing must read for `opts`. */
export function rowShape(opts: DumpOptions): RowShape {
  return { geom: opts.geom, fields: opts.fields, label: opts.label, description: opts.extensions && opts.description }
}

/** Whether a listing with `opts` shows attachments (they are read apart from the rows). */
export const wantsAttachments = (opts: DumpOptions) => opts.extensions && opts.attachment

export const isImageMime = (mime: string) => mime === 'image/jpeg' || mime === 'image/png'

/** The attachment object of the feature JSON (reference §6). */
export function attachmentJson(a: AttachmentRow): Record<string, unknown> {
  return { id: a.id, name: a.name, keyname: a.keyname, size: a.size, mime_type: a.mime_type, description: a.description,
    is_image: isImageMime(a.mime_type), file_meta: a.file_meta === null ? {} : JSON.parse(a.file_meta) }
}

function outputGeom(g: Geometry | null, meta: LayerMeta, opts: DumpOptions): unknown {
  if (!g) return null
  if (opts.srs !== undefined && opts.srs !== meta.srs) g = reproject(g, meta.srs, opts.srs)
  return opts.geomFormat === 'geojson' ? g : toWkt(g)
}

/** A feature as a JSON object, keys in the original's order. */
export function featureJson(row: FeatureRow, meta: LayerMeta, opts: DumpOptions,
  attachments: Map<number, AttachmentRow[]> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.fid }
  if (opts.label) out.label = row.label === null || row.label === undefined ? `#${row.fid}` : String(row.label)
  if (opts.geom) out.geom = outputGeom(row.geom, meta, opts)
  const fields: Record<string, unknown> = {}
  opts.fields.forEach((f, k) => { fields[f.keyname] = fromColumn(f.datatype, row.values[k], opts.dt, opts.bigint) })
  out.fields = fields
  if (opts.extensions) {
    const ext: Record<string, unknown> = {}
    if (opts.attachment) ext.attachment = attachments?.get(row.fid)?.map(attachmentJson) ?? null
    if (opts.description) ext.description = row.description ?? null
    out.extensions = ext
  }
  return out
}

/** A box as the original's lon/lat extent object, in EPSG:4326. */
export function lonLatExtent(b: Bbox | null, srs: number): Record<string, number | null> {
  if (!b) return { minLon: null, minLat: null, maxLon: null, maxLat: null }
  let box: Bbox
  try {
    box = reprojectBbox(b, srs, 4326)
  } catch (err) {
    // Only data stored before coordinates were bounded gets here (proj4 throws on overflow).
    throw validationError(`The extent of the layer cannot be expressed in EPSG:4326: ${(err as Error).message}`)
  }
  // A projection's edge may map to infinity, which JSON has no number for.
  const [minLon, minLat, maxLon, maxLat] = box.map((v) => (Number.isFinite(v) ? v : null))
  return { minLon: minLon!, minLat: minLat!, maxLon: maxLon!, maxLat: maxLat! }
}

const TYPE_NAMES: Record<Geometry['type'], string> = {
  Point: 'Point', LineString: 'LineString', Polygon: 'Polygon',
  MultiPoint: 'MultiPoint', MultiLineString: 'MultiLineString', MultiPolygon: 'MultiPolygon',
}

/** `geometry_info`: type, planar area and length and bounds, in `srs` (default: the layer's). */
export function geometryInfo(g: Geometry | null, meta: LayerMeta, srs: number | undefined): Record<string, unknown> | null {
  if (!g) return null
  if (srs !== undefined && srs !== meta.srs) g = reproject(g, meta.srs, srs)
  const [minX, minY, maxX, maxY] = bboxOf(g)
  return { type: TYPE_NAMES[g.type], area: areaOf(g), length: lengthOf(g), extent: { minX, minY, maxX, maxY } }
}
