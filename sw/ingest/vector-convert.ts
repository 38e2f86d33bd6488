/**
 * @module ingest/vector-convert
 * The GDAL half of a vector ingest: open the file, pick its layer, check its reference system
 * and field names, then have GDAL read every feature once and write them, reprojected to the
 * layer's system, into a GeoPackage in its memory file system. Its bytes are read out and
 * GDAL's copy is removed at once; the app's `GpkgSources` open them (SQLite's on every host, a
 * GeoPackage being an SQLite file: sw/sqlite/gpkg-file/source.ts), whichever engine holds the
 * layers. Everything GDAL-specific ends here.
 */
import type { GdalEngine } from '../../wasm/gdal.ts'
import type { FieldType } from '../feature/types.ts'
import { GdalWorkspace, gdalMessages } from './gdal-workspace.ts'
import { gdalOpenFailed, sourceError } from './errors.ts'
import { chooseLayer, noGeometry, openSource, summaryOf, type SourceFile, type SourceLayer, type SourceSummary } from './vector-source.ts'
import type { SourceEncoding } from './encoding.ts'

/** GDAL's names for the fid and geometry columns: nothing a source field is likely called. */
export const SRC_TABLE = 'feature'
const FID_COLUMN = 'outpost_fid'
const GEOM_COLUMN = 'outpost_geom'

export interface ConvertedFile {
  file: string
  summary: SourceSummary
  layer: SourceLayer
  encoding?: SourceEncoding
  /** A shapefile's encoding that is neither UTF-8 nor CP1251 (see `vector-source`). */
  foreignEncoding?: string
  /**
   * The GeoPackage GDAL wrote: table `SRC_TABLE`, `outpost_fid` (1-based reading order),
   * `outpost_geom`, then the fields.
   */
  bytes: Uint8Array
}

/** A planned field as the source read gives it: the source column and the layer's type of it. */
export interface SourceColumn { keyname: string; datatype: FieldType }

/** Some features of a source in reading order, column by column (`GpkgSource.batches`). */
export interface SourceBatch {
  /** Each feature's `outpost_fid`: its 1-based place in the file, as the messages count. */
  features: number[]
  /** Its geometry as a GeoPackage blob, null when empty. */
  geoms: (Uint8Array | null)[]
  /**
   * Per asked column, its values in the layer's canonical form (feature/values.ts: dates and
   * times as ISO text, booleans 0/1); STRING values as their stored bytes (UTF-8), so the load
   * checks their encoding as the bytes are, before decoding them.
   */
  values: (string | number | bigint | Uint8Array | null)[][]
  /** The values of the id column asked for, if one was. */
  ids?: number[]
}

/**
 * GDAL's GeoPackage of an ingest opened by the app's `GpkgSources`: what planning reads of it,
 * then the features a data port's `load` copies, either its own way (SQLite attaches the file)
 * or through `batches` (any engine: no SQL of its own on the file).
 */
export interface GpkgSource extends Omit<ConvertedFile, 'bytes'> {
  /** How many features it holds. */
  readonly count: number
  /** Each feature's geometry (GeoPackage blob, null when empty) in reading order. */
  geometries(): { next(): Uint8Array | null | undefined; close(): void }
  /** How many values of `column` cannot be feature ids: repeated, empty or outside 1…2^31−1. */
  badIds(column: string): number
  /**
   * Every feature in reading order, `size` at a time, with the values of `columns` and of
   * `idColumn` (if given). Each iteration reads anew; leaving it early ends its read.
   */
  batches(columns: readonly SourceColumn[], idColumn: string | undefined, size: number): Iterable<SourceBatch>
  /** Planning is over: its reads end (a load reads the file its own way or through `batches`). */
  planned(): void
  /** Gives its memory back; call once the load is over or given up. */
  free(): void
}

/** Opens GDAL's GeoPackages (Services.gpkgSources): SQLite's on every host. */
export interface GpkgSources {
  open(conv: ConvertedFile): Promise<GpkgSource>
}

export type Stage = 'reading' | 'converting'

/**
 * Converts the chosen layer of `src` into a GeoPackage reprojected to EPSG:`srs`. Throws 422s naming the file for what GDAL cannot
 * read or the spec does not allow (no reference system, several layers and none chosen).
 */
export function convertSource(gdal: GdalEngine, src: SourceFile, srs: number, sourceLayer: string | undefined,
  stage: (s: Stage) => void): Promise<ConvertedFile> {
  return GdalWorkspace.run(gdal, async (ws) => {
    stage('reading')
    const source = await openSource(ws, src)
    try {
      const layer = chooseLayer(source, sourceLayer)
      if (!layer.geometryType) throw noGeometry(source.file, source.layers.length > 1 ? layer.name : undefined)
      if (!layer.hasSrs && !source.assumedSrs) {
        throw sourceError({ file: source.file, message: "the layer doesn't contain coordinate system information (for a shapefile: include its .prj in the ZIP)." })
      }
      stage('converting')
      const args = ['-f', 'GPKG', '-t_srs', `EPSG:${srs}`, '-nln', SRC_TABLE, '-lco', `FID=${FID_COLUMN}`,
        '-lco', `GEOMETRY_NAME=${GEOM_COLUMN}`, '-lco', 'SPATIAL_INDEX=NO', '-dsco', 'ADD_GPKG_OGR_CONTENTS=NO',
        '-nlt', 'CONVERT_TO_LINEAR', '-gt', 'unlimited',
        // The GeoPackage is a file in memory, read at once: SQLite's syncs are only cost there (half the time).
        '--config', 'OGR_SQLITE_SYNCHRONOUS', 'OFF', '--config', 'OGR_SQLITE_JOURNAL', 'OFF']
      if (!layer.hasSrs) args.push('-s_srs', `EPSG:${source.assumedSrs}`)
      args.push(layer.name)
      let out
      try {
        out = ws.track(await gdal.ogr2ogr(source.dataset, args, ws.outputName('src')))
      } catch (err) {
        throw conversionError(source.file, gdalMessages(err))
      }
      const bytes = await ws.read(out.local)
      await ws.remove(out.local)
      return { file: source.file, summary: summaryOf(source), layer, encoding: source.encoding, foreignEncoding: source.foreignEncoding, bytes }
    } finally {
      await gdal.close(source.dataset).catch(() => undefined)
    }
  })
}

/**
 * Opens what is in the workspace for the inspect endpoints: the summary, nothing converted.
 * With `vector`, a file without a layer that has geometry is refused (it cannot become a
 * vector layer: the person learns it before choosing anything).
 */
export function inspectSource(gdal: GdalEngine, src: SourceFile, { vector = false } = {}): Promise<SourceSummary> {
  return GdalWorkspace.run(gdal, async (ws) => {
    const source = await openSource(ws, src)
    await gdal.close(source.dataset).catch(() => undefined)
    if (vector && !source.layers.some((l) => l.geometryType)) throw noGeometry(source.file)
    return summaryOf(source)
  })
}

/** A GDAL failure while converting, named by the feature when GDAL names one. */
function conversionError(file: string, detail: string | undefined) {
  const m = detail && /reproject feature (\d+)/i.exec(detail)
  if (m) {
    return sourceError({ file, message: `a feature (id ${m[1]} in the file) cannot be reprojected to the layer's reference system: its coordinates are outside the systems' area.` },
      { source_fid: Number(m[1]), detail })
  }
  if (detail && /local coordinate system|cannot find coordinate operations|cannot be transformed/i.test(detail)) {
    return sourceError({ file, message: "the layer's coordinate system cannot be transformed to the layer's reference system." }, { detail })
  }
  return gdalOpenFailed(file, detail)
}
