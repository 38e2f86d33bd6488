/**
 * @module sqlite/features/export
 * `GpkgTables.exportTo` of the vector layer's storage: the export's output file attached to
 * the layer's connection for one read and filled by `INSERT … SELECT` in C (reprojecting
 * through a SQL function where the SRS differs); when the output has exactly the layer's
 * features, ids and boxes, the spatial index is a copy of the layer's own R*Tree pages.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { SqlDb } from '../../store/database.ts'
import { decodeGpkg, encodeGpkg } from '../../geo/gpkg.ts'
import { reproject } from '../../geo/reproject.ts'
import type { GpkgCopyOptions, GpkgOutput, GpkgSpec, LayerMeta } from '../../feature/types.ts'
import { createGpkgTables, finishGpkg, gpkgLayout, quoteId, type GpkgLayout } from '../gpkg-file/writer.ts'
import { columnOf, FEATURE_TABLE, RTREE_TABLE } from './schema.ts'
import { filterSql } from './reader.ts'

/** The output's schema name on the layer's connection while it is attached. */
const OUT = 'outpost_export'

/** Copies `opts`'s selection of the layer (`db` in a read, the filter's intersects test set) into `out`. */
export function exportLayer(sqlite: Sqlite3Static, db: SqlDb, meta: LayerMeta, out: GpkgOutput, opts: GpkgCopyOptions): void {
  db.exec({ sql: `ATTACH ? AS ${OUT}`, bind: [out.uri] })
  try {
    const spec: GpkgSpec = { ...opts, geometryType: meta.geometryType }
    const o = gpkgLayout(opts, OUT, out.table)
    createGpkgTables(db, spec, o)
    copyFeatures(db, meta, opts, o)
    const asStored = !opts.fidField && !opts.filter.filtered && opts.srs === meta.srs
    finishGpkg(sqlite, db, spec, o, asStored ? RTREE_TABLE : undefined)
  } finally {
    db.exec(`DETACH ${OUT}`)
  }
}

function copyFeatures(db: SqlDb, meta: LayerMeta, opts: GpkgCopyOptions, o: GpkgLayout): void {
  // Same SRS: the stored blobs are GeoPackage blobs of that SRS already.
  const reprojected = opts.srs !== meta.srs
  if (reprojected) {
    db.createFunction('outpost_export_geom', (_ctx: number, blob: unknown) => {
      const g = blob instanceof Uint8Array ? decodeGpkg(blob) : null
      return g ? encodeGpkg(reproject(g, meta.srs, opts.srs), opts.srs) : null
    }, { arity: 1, deterministic: true })
  }
  const values = [opts.fidField ? 'NULL' : 'f.fid', reprojected ? 'outpost_export_geom(f.geom)' : 'f.geom',
    ...opts.columns.map((c) => {
      const col = `f.${columnOf(c.field.id)}`
      // Field values are naive datetimes: written as GDAL writes one without a zone (as the
      // original's file has them), so desktop GIS does not read them as UTC.
      return c.field.datatype === 'DATETIME' ? `${col} || '.000'` : col
    }), ...(opts.fidField ? ['f.fid'] : [])]
  const { where, bind } = filterSql(opts.filter, meta.fields)
  db.exec({ sql: `INSERT INTO "${o.schema}".${quoteId(o.table)} SELECT ${values.join(', ')} FROM main."${FEATURE_TABLE}" f
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY f.fid`, bind: bind.length ? bind as never : undefined })
}
