/**
 * @module export/gpkg
 * A GeoPackage of one layer's selection. A layer with GeoPackage storage copies the selection
 * into the file itself (`GpkgTables.exportTo`: `INSERT … SELECT` in C, its R*Tree pages copied
 * when nothing is filtered or reprojected), inside one read of its database; any other layer is
 * written from its features, page by page. Either way the file is finished before the answer
 * starts and streams out of memory (`GpkgFiles`, SQLite's writer on every host).
 */
import { exportRows, type ExportSource } from './source.ts'
import type { GpkgFile, GpkgSpec } from '../feature/types.ts'

/** The original's GeoPackage layer name: a leading `_` where GDAL would refuse the name. */
export function gpkgLayerName(name: string): string {
  return /^[`~!@#$%^&*()+\-={}|[\]\\:";'<>?,./]/.test(name) || name.slice(0, 4).toLowerCase() === 'gpkg' ? `_${name}` : name
}

/**
 * Builds the GeoPackage of `src` with its features in table `table`. Without `fidField`
 * the features keep their ids (the original's `-preserve_fid`); with it they are numbered
 * anew and the field carries the original id.
 */
export async function buildGpkg(src: ExportSource, table: string): Promise<GpkgFile> {
  const out = await src.gpkgFiles.create(table)
  try {
    const { gpkg } = src.layer
    if (gpkg) await gpkg.read((t) => t.exportTo(out, src), src.filter)
    else await out.writeRows(specOf(src), exportRows(src))
    return out.file()
  } catch (err) {
    out.close()
    throw err
  }
}

const specOf = (src: ExportSource): GpkgSpec =>
  ({ columns: src.columns, fidField: src.fidField, srs: src.srs, filter: src.filter, geometryType: src.meta.geometryType })
