/**
 * @module export/source
 * What one layer's export reads: the output columns (keynames or display names, in the
 * order asked), the optional feature-id field, the output SRS, the filters as the listing's
 * SQL selection, and the features themselves in pages by increasing fid. Each page is one
 * read of the layer database, so a long export never holds the layer against edits; an edit
 * made while an export streams is in it or not, never half.
 */
import { TimeSlice } from '../core/yield.ts'
import { validationError } from '../core/error.ts'
import { reproject } from '../geo/reproject.ts'
import { loadProjection } from '../geo/srs.ts'
import { parseWkt, toWkt } from '../geo/wkt.ts'
import type { Geometry } from '../geo/geometry.ts'
import { requireFeatureLayer, type DataOutServices } from '../feature/capability.ts'
import { filterOf } from '../feature/query.ts'
import type { FeatureFilter, FeatureLayer, Field, GpkgFiles, LayerMeta } from '../feature/types.ts'
import { canonicalValue, type RowValue } from '../feature/row-values.ts'
import { geometryNotValid } from '../feature/errors.ts'
import { outputSrs, type ExportFormat } from './formats.ts'
import type { ExportRequest } from './params.ts'

export interface ExportColumn { name: string; field: Field }

export interface ExportSource {
  resourceId: number
  displayName: string
  meta: LayerMeta
  layer: FeatureLayer
  columns: ExportColumn[]
  /** An extra integer column carrying the feature id. */
  fidField: string | undefined
  /** Output SRS. */
  srs: number
  filter: FeatureFilter
  /** The GeoPackage writer (the file itself, and GDAL's input for the other formats). */
  gpkgFiles: GpkgFiles
}

export interface ExportRow { fid: number; geom: Geometry | null; values: RowValue[] }

/** The columns of an export: `fields` picks and orders them, `displayName` names them. */
function columnsOf(meta: LayerMeta, req: ExportRequest): ExportColumn[] {
  const picked = req.fields === undefined ? meta.fields
    : req.fields.flatMap((k) => meta.fields.filter((f) => f.keyname === k))
  const cols = picked.map((field) => ({ name: req.displayName ? field.display_name : field.keyname, field }))
  const names = new Set<string>()
  for (const c of cols) {
    if (names.has(c.name.toLowerCase())) throw validationError(`Field name '${c.name}' occurs twice in the export.`)
    names.add(c.name.toLowerCase())
  }
  if (req.fid !== undefined && names.has(req.fid.toLowerCase())) {
    throw validationError(`Couldn't add FID field '${req.fid}'. Such field already exists.`)
  }
  return cols
}

function checkGeometryType(format: ExportFormat, meta: LayerMeta): void {
  const base = meta.geometryType.replace(/Z$/, '')
  if (format.geometryTypes && !format.geometryTypes.includes(base)) {
    throw validationError(`The selected format does not support ${meta.geometryType} geometry type.`)
  }
}

/** The filters with `intersects` given in `intersects_srs` turned into the layer's SRS. */
function layerFilters(req: ExportRequest, meta: LayerMeta): URLSearchParams {
  const params = new URLSearchParams(req.filters)
  const wkt = params.get('intersects')
  if (wkt === null || req.intersectsSrs === undefined || req.intersectsSrs === meta.srs) return params
  let g: Geometry
  try {
    g = reproject(parseWkt(wkt), req.intersectsSrs, meta.srs)
  } catch (err) {
    throw geometryNotValid((err as Error).message, 'intersects')
  }
  params.set('intersects', toWkt(g))
  return params
}

export async function exportSource(services: DataOutServices, id: number, req: ExportRequest): Promise<ExportSource> {
  const { head, layer } = await requireFeatureLayer(services, id)
  const { meta } = layer
  checkGeometryType(req.format, meta)
  const srs = outputSrs(req.format, req.srs, meta.srs, req.keepLayerSrs)
  await loadProjection(srs, services.platform.epsg)
  await loadProjection(meta.srs, services.platform.epsg)
  return { resourceId: id, displayName: head.displayName, meta, layer, columns: columnsOf(meta, req), fidField: req.fid,
    srs, filter: filterOf(layerFilters(req, meta), meta), gpkgFiles: services.gpkgFiles }
}

/**
 * Rows of the selection in fid order, `pageSize` per read of the layer: geometries in the
 * output SRS, values as the formats write them.
 */
export async function* exportRows(src: ExportSource, pageSize = 1000): AsyncGenerator<ExportRow[]> {
  const { meta, layer, filter } = src
  const fields = src.columns.map((c) => c.field)
  let after = 0
  // Pages are read and written out between other requests (an export of 100,000 features held the thread ~1.5 s).
  const slice = new TimeSlice()
  for (;;) {
    await slice.pause()
    const page = await layer.read((tx) => tx.list({
      filter: { ...filter, conditions: [...filter.conditions, { field: null, op: 'gt', value: after }] }, limit: pageSize,
    }, { geom: true, fields, label: false, description: false }))
    if (page.length) {
      yield page.map((r) => ({ fid: r.fid, geom: r.geom && src.srs !== meta.srs ? reproject(r.geom, meta.srs, src.srs) : r.geom,
        values: r.values.map((v, i) => canonicalValue(v, fields[i]!.datatype)) }))
    }
    if (page.length < pageSize) return
    after = page[page.length - 1]!.fid
  }
}
