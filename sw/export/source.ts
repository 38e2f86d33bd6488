/**
 * @module export/source
 * What one layer's export reads: the output columns (keynames or display names, in the
 * order asked), the optional feature-id field, the output SRS, the filters as the listing's
 * SQL selection, and the features themselves in pages by increasing fid. Each page is one
 * read of the layer database, so a long export never holds the layer against edits; an edit
 * made while an export streams is in it or not, never half.
 */
import type { Services } from '../services.ts'
import type { Field } from '../classes/vector_layer/fields.ts'
import { validationError } from '../core/error.ts'
import { decodeGpkg } from '../geo/gpkg.ts'
import { reproject } from '../geo/reproject.ts'
import { parseWkt, toWkt } from '../geo/wkt.ts'
import type { Geometry } from '../geo/geometry.ts'
import { requireFeatureLayer } from '../feature/capability.ts'
import { selection, type Selection } from '../feature/query.ts'
import { columnOf, FEATURE_TABLE, type LayerMeta } from '../feature/schema.ts'
import type { Layer } from '../feature/layers.ts'
import { rowValue, type RowValue } from '../feature/row-values.ts'
import { geometryNotValid } from '../feature/errors.ts'
import { RowReader } from '../store/row-reader.ts'
import type { SqlDb } from '../store/database.ts'
import { outputSrs, type ExportFormat } from './formats.ts'
import type { ExportRequest } from './params.ts'

export interface ExportColumn { name: string; field: Field }

export interface ExportSource {
  resourceId: number
  displayName: string
  meta: LayerMeta
  layer: Layer
  columns: ExportColumn[]
  /** An extra integer column carrying the feature id. */
  fidField: string | undefined
  /** Output SRS. */
  srs: number
  sel: Selection
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

export async function exportSource(services: Services, id: number, req: ExportRequest): Promise<ExportSource> {
  const { head, meta, layer } = await requireFeatureLayer(services, id)
  checkGeometryType(req.format, meta)
  return { resourceId: id, displayName: head.displayName, meta, layer, columns: columnsOf(meta, req), fidField: req.fid,
    srs: outputSrs(req.format, req.srs, meta.srs, req.keepLayerSrs), sel: selection(layerFilters(req, meta), meta) }
}

/** `WHERE` of the selection (`f` is the feature table), with `extra` conditions first. */
export function whereOf(src: ExportSource, extra: string[] = []): string {
  const all = [...extra, ...src.sel.where]
  return all.length ? `WHERE ${all.join(' AND ')}` : ''
}

/** Runs `fn` with the selection's intersects geometry visible to `outpost_intersects`. */
export function withSelection<T>(src: ExportSource, fn: () => T): T {
  src.layer.filter = src.sel.intersects
  try {
    return fn()
  } finally {
    src.layer.filter = undefined
  }
}

/** Rows of the selection in fid order, `pageSize` per read of the layer database. */
export async function* exportRows(src: ExportSource, pageSize = 1000): AsyncGenerator<ExportRow[]> {
  const { meta, layer } = src
  const cols = ['f.fid', 'f.geom', ...src.columns.map((c) => `f.${columnOf(c.field.id)}`)].join(', ')
  const sql = `SELECT ${cols} FROM ${FEATURE_TABLE} f ${whereOf(src, ['f.fid > ?'])} ORDER BY f.fid LIMIT ${pageSize}`
  const types = src.columns.map((c) => c.field.datatype)
  let after = -Infinity
  for (;;) {
    const page = await layer.db.read((db: SqlDb) => withSelection(src, () => {
      const out: ExportRow[] = []
      const r = new RowReader(layer.db.sqlite, db, sql, [after, ...src.sel.bind])
      try {
        while (r.step()) {
          const blob = r.blobView(1)
          let geom = blob && decodeGpkg(blob)
          if (geom && src.srs !== meta.srs) geom = reproject(geom, meta.srs, src.srs)
          const values = types.map((t, i) => rowValue(r, i + 2, t))
          out.push({ fid: r.number(0), geom, values })
        }
      } finally {
        r.finalize()
      }
      return out
    }))
    if (page.length) yield page
    if (page.length < pageSize) return
    after = page[page.length - 1]!.fid
  }
}
