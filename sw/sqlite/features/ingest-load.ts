/**
 * @module sqlite/features/ingest-load
 * The SQLite half of a vector ingest. The GeoPackage GDAL wrote is attached to the new layer's
 * connection as `src`; every feature is checked (ingest/feature-check: geometry present and
 * whole, values printable and in a supported encoding) on its bytes where SQLite holds them,
 * and the few geometries that do not fit the layer's type are rebuilt. Only when the file passes are the features copied, in
 * one layer write, by one `INSERT … SELECT` inside SQLite, and the spatial index is packed in
 * one go (`rtreeBulkInsert`).
 */
import { TimeSlice } from '../../core/yield.ts'
import type { Database as SqlDb, Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { Database } from '../../store/database.ts'
import { bindValues } from '../../store/bulk.ts'
import { rtreeBulkInsert } from '../rtree.ts'
import { FeatureCheck } from '../../ingest/feature-check.ts'
import { SRC_TABLE } from '../../ingest/vector-convert.ts'
import { attachImage, columnExpr, quote, type SqliteSource } from '../gpkg-file/source.ts'
import { targetOf, type LoaderOptions, type PlannedField } from '../../ingest/vector-plan.ts'
import type { Progress } from '../../ingest/progress.ts'
import type { LoadPlan } from '../../port/features.ts'
import { columnOf, FEATURE_TABLE, migrateLayer, RTREE_TABLE } from './schema.ts'

/** Features scanned per read of the layer connection (between them, progress and other requests). */
const PAGE = 5000
const SQLITE_ROW = 100

interface RawExports {
  sqlite3_step(st: number): number
  sqlite3_column_double(st: number, i: number): number
  sqlite3_column_blob(st: number, i: number): number
  sqlite3_column_bytes(st: number, i: number): number
}

export type { LoadPlan }

export interface LoadResult { count: number; extent: [number, number, number, number] | null }

/**
 * Copies the checked features of `conv` into `layer` (a new, empty layer database that
 * `plan.meta` describes). Throws the original's 422 listing up to ten problems when a feature
 * is refused (and not skipped); then nothing has been written.
 */
export async function loadFeatures(sqlite: Sqlite3Static, layer: Database, conv: SqliteSource, plan: LoadPlan,
  progress: Progress, signal?: AbortSignal): Promise<LoadResult> {
  const check = new FeatureCheck({ file: plan.file, srs: plan.srs, target: targetOf(plan.meta.geometryType), opts: plan.opts,
    foreignEncoding: conv.foreignEncoding })
  const { skipped, fixes } = check
  let srcIds = new Float64Array(Math.max(conv.count, 1))
  let boxes = new Float64Array(Math.max(conv.count, 1) * 4)
  let count = 0
  const extent: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity]
  const x = sqlite.wasm.exports as unknown as RawExports

  const texts = plan.fields.filter((f) => f.datatype === 'STRING')
  const textCols = texts.map((f) => `, ${quote(f.keyname)}`).join('')

  /**
   * Scans the features after `after` where SQLite holds them (geometry bytes, text bytes);
   * returns the last fid seen.
   */
  const scanPage = (db: SqlDb, after: number): number => {
    const st = db.prepare(`SELECT outpost_fid, outpost_geom${textCols} FROM src.${SRC_TABLE} WHERE outpost_fid > ? ORDER BY outpost_fid LIMIT ${PAGE}`)
    let last = -1
    try {
      st.bind(1, after)
      const p = st.pointer as number
      rows: while (x.sqlite3_step(p) === SQLITE_ROW) {
        const feature = x.sqlite3_column_double(p, 0)
        last = feature
        for (let k = 0; k < texts.length; k++) {
          const tp = x.sqlite3_column_blob(p, 2 + k)
          if (tp && !check.text(feature, texts[k]!.keyname, sqlite.wasm.heap8u(), tp, x.sqlite3_column_bytes(p, 2 + k))) continue rows
        }
        const ptr = x.sqlite3_column_blob(p, 1)
        const b = check.geometry(feature, ptr ? sqlite.wasm.heap8u().subarray(ptr, ptr + x.sqlite3_column_bytes(p, 1)) : null)
        if (!b) continue
        if (count === srcIds.length) { srcIds = grow(srcIds, count * 2); boxes = grow(boxes, count * 8) }
        srcIds[count] = feature
        boxes[4 * count] = b[0]!; boxes[4 * count + 1] = b[1]!; boxes[4 * count + 2] = b[2]!; boxes[4 * count + 3] = b[3]!
        if (b[0]! < extent[0]) extent[0] = b[0]!
        if (b[1]! < extent[1]) extent[1] = b[1]!
        if (b[2]! > extent[2]) extent[2] = b[2]!
        if (b[3]! > extent[3]) extent[3] = b[3]!
        count++
      }
    } finally {
      st.finalize()
    }
    return last
  }

  await layer.read((db) => attachImage(db, conv.image))
  try {
    progress.stage('checking', conv.count)
    const slice = new TimeSlice()
    for (let after = 0, done = 0; ;) {
      await slice.pause()
      signal?.throwIfAborted()
      const last = await layer.read((db) => scanPage(db, after))
      if (last < 0) break
      done = Math.min(conv.count, done + PAGE)
      progress.done(done)
      if (check.full) break
      after = last
    }
    check.verdict()
    const keep = skipped.size ? srcIds.subarray(0, count).filter((id) => !skipped.has(id)) : srcIds.subarray(0, count)
    const ids = await finalIds(layer, plan, keep)
    progress.stage('writing', count)
    await layer.write((db) => {
      migrateLayer(db, plan.meta)
      if (fixes.length) {
        const st = db.prepare(`UPDATE src.${SRC_TABLE} SET outpost_geom = ? WHERE outpost_fid = ?`)
        try {
          for (const [feature, blob] of fixes) { bindValues(sqlite, st, [blob, feature]); st.stepReset() }
        } finally {
          st.finalize()
        }
      }
      copyRows(db, plan, skipped)
      if (keep.length) rtreeBulkInsert(sqlite, db, RTREE_TABLE, ids, skipped.size ? pickBoxes(srcIds, boxes, count, skipped) : boxes.subarray(0, count * 4))
      db.exec({ sql: `UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?`,
        bind: [...(keep.length ? extent : [null, null, null, null]), FEATURE_TABLE] })
    })
    return { count: keep.length, extent: keep.length ? extent : null }
  } finally {
    await layer.read((db) => db.exec('DETACH src'))
  }
}

/** The layer's fids of the kept source features: their reading order (renumbered past skipped ones) or the fid field. */
async function finalIds(layer: Database, plan: LoadPlan, keep: Float64Array): Promise<Float64Array> {
  if (plan.fid === undefined) return keep.length === 0 || keep[keep.length - 1] === keep.length ? keep : keep.map((_, i) => i + 1)
  const byFeature = new Map(await layer.read((db) => db.selectArrays(`SELECT outpost_fid, ${quote(plan.fid!)} FROM src.${SRC_TABLE}`)
    .map(([a, b]) => [Number(a), Number(b)] as const)))
  return keep.map((f) => byFeature.get(f)!)
}

/** The one `INSERT … SELECT` that copies the kept features, their values in the layer's forms. */
function copyRows(db: SqlDb, plan: LoadPlan, skipped: Set<number>): void {
  const srcSrs = Number(db.selectValue(`SELECT srs_id FROM src.gpkg_geometry_columns`) ?? plan.srs)
  let geom = 'outpost_geom'
  if (srcSrs !== plan.srs) {
    // GDAL named the reference system by another id: the blobs' headers get the layer's.
    db.createFunction('outpost_gpkg_srs', (_ctx: number, blob: unknown) => {
      if (!(blob instanceof Uint8Array)) return null
      new DataView(blob.buffer, blob.byteOffset).setInt32(4, plan.srs, (blob[3]! & 1) === 1)
      return blob
    }, { arity: 1, deterministic: true })
    geom = 'outpost_gpkg_srs(outpost_geom)'
  }
  const fid = plan.fid !== undefined ? quote(plan.fid) : skipped.size ? 'row_number() OVER (ORDER BY outpost_fid)' : 'outpost_fid'
  const cols = plan.meta.fields.map((f) => `, ${columnOf(f.id)}`).join('')
  const values = plan.fields.map((f) => `, ${columnExpr(f.datatype, quote(f.keyname))}`).join('')
  const where = skipped.size ? 'WHERE outpost_fid NOT IN (SELECT value FROM json_each(?))' : ''
  db.exec({ sql: `INSERT INTO ${FEATURE_TABLE} (fid, geom${cols}) SELECT ${fid}, ${geom}${values} FROM src.${SRC_TABLE} ${where} ORDER BY outpost_fid`,
    bind: skipped.size ? [JSON.stringify([...skipped])] : undefined })
}

function pickBoxes(ids: Float64Array, boxes: Float64Array, count: number, skipped: Set<number>): Float64Array {
  let kept = 0
  for (let i = 0; i < count; i++) if (!skipped.has(ids[i]!)) kept++
  const out = new Float64Array(kept * 4)
  for (let i = 0, k = 0; i < count; i++) {
    if (skipped.has(ids[i]!)) continue
    out.set(boxes.subarray(4 * i, 4 * i + 4), 4 * k++)
  }
  return out
}

function grow(a: Float64Array<ArrayBuffer>, size: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(size)
  b.set(a)
  return b
}
