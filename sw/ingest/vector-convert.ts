/**
 * @module ingest/vector-convert
 * The GDAL half of a vector ingest: open the file, pick its layer, check its reference system
 * and field names, then have GDAL read every feature once and write them, reprojected to the
 * layer's system, into a GeoPackage in its memory file system. That GeoPackage is handed to
 * our SQLite as it is (its geometry blobs are already what a layer stores); GDAL's copy is
 * removed at once. Everything GDAL-specific ends here.
 */
import type { Database as SqlDb, Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { GdalApi } from '../../wasm/gdal.ts'
import { GdalWorkspace, gdalMessages } from './gdal-workspace.ts'
import { gdalOpenFailed, sourceError } from './errors.ts'
import { chooseLayer, openSource, summaryOf, type SourceFile, type SourceLayer, type SourceSummary } from './vector-source.ts'
import type { SourceEncoding } from './encoding.ts'

/** GDAL's names for the fid and geometry columns: nothing a source field is likely called. */
export const SRC_TABLE = 'feature'
const FID_COLUMN = 'outpost_fid'
const GEOM_COLUMN = 'outpost_geom'

export interface ConvertedSource {
  file: string
  summary: SourceSummary
  layer: SourceLayer
  encoding?: SourceEncoding
  /** A shapefile's encoding that is neither UTF-8 nor CP1251 (see `vector-source`). */
  foreignEncoding?: string
  /**
   * The features as GDAL wrote them (`outpost_fid`: 1-based reading order, `outpost_geom`, the
   * fields), opened read-only for planning. Its bytes are `image`, which this connection does
   * not own: `attachImage` hands them to the layer's connection, `freeImage` drops them.
   */
  db: SqlDb
  image: SourceImage
  count: number
}

/** A GeoPackage image in SQLite's heap, owned by whoever frees it. */
export interface SourceImage { pointer: number; size: number; owned: boolean }

export type Stage = 'reading' | 'converting'

/**
 * Converts the chosen layer of `src` into a GeoPackage reprojected to EPSG:`srs` and opens
 * it in `sqlite`. The caller closes `db`. Throws 422s naming the file for what GDAL cannot
 * read or the spec does not allow (no reference system, several layers and none chosen).
 */
export function convertSource(gdal: GdalApi, sqlite: Sqlite3Static, src: SourceFile, srs: number, sourceLayer: string | undefined,
  stage: (s: Stage) => void): Promise<ConvertedSource> {
  return GdalWorkspace.run(gdal, async (ws) => {
    stage('reading')
    const source = await openSource(ws, src)
    try {
      const layer = chooseLayer(source, sourceLayer)
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
      const image = copyImage(sqlite, ws.view(out.local))
      ws.remove(out.local)
      const db = new sqlite.oo1.DB(':memory:')
      try {
        deserialize(sqlite, db, 'main', image, false)
      } catch (err) {
        db.close()
        freeImage(sqlite, image)
        throw err
      }
      const count = Number(db.selectValue(`SELECT count(*) FROM ${SRC_TABLE}`))
      return { file: source.file, summary: summaryOf(source), layer, encoding: source.encoding, foreignEncoding: source.foreignEncoding,
        db, image, count }
    } finally {
      await gdal.close(source.dataset).catch(() => undefined)
    }
  })
}

/** Opens what is in the workspace for the inspect endpoint: the summary, nothing converted. */
export function inspectSource(gdal: GdalApi, src: SourceFile): Promise<SourceSummary> {
  return GdalWorkspace.run(gdal, async (ws) => {
    const source = await openSource(ws, src)
    await gdal.close(source.dataset).catch(() => undefined)
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

/** A copy of `bytes` (an SQLite file) in SQLite's heap. */
function copyImage(sqlite: Sqlite3Static, bytes: Uint8Array): SourceImage {
  const pointer = Number(sqlite.capi.sqlite3_malloc(Math.max(bytes.length, 1)))
  if (!pointer) throw new Error('Out of WASM memory for the converted layer.')
  sqlite.wasm.heap8u().set(bytes, pointer)
  return { pointer, size: bytes.length, owned: false }
}

/**
 * Opens `image` as schema `schema` of `db`. With `own`, SQLite takes the image and frees it
 * when the schema is detached or `db` closed; without, it only reads it.
 */
function deserialize(sqlite: Sqlite3Static, db: SqlDb, schema: string, image: SourceImage, own: boolean): void {
  const { capi } = sqlite
  const flags = own ? capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_RESIZEABLE : capi.SQLITE_DESERIALIZE_READONLY
  const rc = capi.sqlite3_deserialize(db.pointer!, schema, image.pointer, image.size, image.size, flags)
  if (rc) throw new Error(`The converted layer could not be opened (SQLite code ${rc}).`)
  if (own) image.owned = true
}

/**
 * Attaches the converted features to `db` (the new layer's connection, outside any
 * transaction) as schema `src`, which now owns them: detaching `src` frees them.
 */
export function attachImage(sqlite: Sqlite3Static, db: SqlDb, image: SourceImage): void {
  db.exec(`ATTACH ':memory:' AS src`)
  deserialize(sqlite, db, 'src', image, true)
}

/** Frees the converted features when no connection took them. */
export function freeImage(sqlite: Sqlite3Static, image: SourceImage): void {
  if (!image.owned) sqlite.capi.sqlite3_free(image.pointer)
  image.owned = true
}
