/**
 * @module sqlite/features/ingest-load
 * The SQLite half of a vector ingest. The GeoPackage GDAL wrote is attached to the new layer's
 * connection as `src`; every feature is checked as the spec and the original's loader say
 * (geometry present and whole, values printable and in a supported encoding) — geometries by
 * scanning their bytes where SQLite holds them, values by SQL — and the few geometries that do
 * not fit the layer's type are rebuilt. Only when the file passes are the features copied, in
 * one layer write, by one `INSERT … SELECT` inside SQLite, and the spatial index is packed in
 * one go (`rtreeBulkInsert`).
 */
import { TimeSlice } from '../../core/yield.ts'
import type { Database as SqlDb, Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { Database } from '../../store/database.ts'
import { bindValues } from '../../store/bulk.ts'
import { rtreeBulkInsert } from '../rtree.ts'
import { bboxOf } from '../../geo/geometry.ts'
import { encodeGpkg } from '../../geo/gpkg.ts'
import type { FieldType, LayerMeta } from '../../feature/types.ts'
import { ERROR_LIMIT, featureErrors, foreignEncoding, type Problem } from '../../ingest/errors.ts'
import { FixError, fixGeometry, type FixErrors, type TargetType } from '../../ingest/geom-fix.ts'
import { FLAW_TEXT, Flaw, Scan, scanGpkg } from '../../ingest/wkb-scan.ts'
import { textProblem } from '../../ingest/encoding.ts'
import { SRC_TABLE } from '../../ingest/vector-convert.ts'
import { attachImage, quote, type SqliteSource } from '../gpkg-file/source.ts'
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

/** A source column as the layer's column stores it (see `feature/values.ts`), in SQL. */
function columnExpr(type: FieldType, col: string): string {
  switch (type) {
    case 'DATE': return `substr(${col}, 1, 10)`
    case 'TIME': return `substr(${col}, 1, 8)`
    case 'DATETIME': return `substr(replace(${col}, ' ', 'T'), 1, 19)`
    case 'BOOLEAN': return `CASE WHEN ${col} IS NULL THEN NULL WHEN ${col} THEN 1 ELSE 0 END`
    default: return col
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true })

function ascii(heap: Uint8Array, at: number, n: number): boolean {
  for (let i = at, end = at + n; i < end; i++) if (heap[i]! >= 0x80) return false
  return true
}

/**
 * Why the text bytes at `heap[at, at + n)` cannot be a value (see `textProblem`), read in
 * place: printable ASCII, the common case, never leaves the loop.
 */
function textBytesProblem(heap: Uint8Array, at: number, n: number): string | undefined {
  for (let i = at, end = at + n; i < end; i++) {
    const b = heap[i]!
    if ((b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d) continue
    let text: string
    try {
      text = UTF8.decode(heap.subarray(at, end))
    } catch {
      return textProblem('\uFFFD', false)
    }
    return textProblem(text, false)
  }
  return undefined
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
  const target: TargetType = targetOf(plan.meta.geometryType)
  const fix: FixErrors = plan.opts.fixErrors
  const problems: Problem[] = []
  const skipped = new Set<number>()
  const refuse = (p: Problem & { feature: number }, typeError: boolean): void => {
    if (plan.opts.skipErrors || (typeError && plan.opts.skipOtherGeometryTypes)) skipped.add(p.feature)
    else problems.push(p)
  }
  const fixes: Array<[number, Uint8Array]> = []
  let srcIds = new Float64Array(Math.max(conv.count, 1))
  let boxes = new Float64Array(Math.max(conv.count, 1) * 4)
  let count = 0
  const extent: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity]
  const x = sqlite.wasm.exports as unknown as RawExports
  const scan = new Scan()

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
          if (!tp) continue
          const n = x.sqlite3_column_bytes(p, 2 + k)
          if (conv.foreignEncoding && !ascii(sqlite.wasm.heap8u(), tp, n)) {
            throw foreignEncoding({ file: plan.file, feature, field: texts[k]!.keyname }, conv.foreignEncoding)
          }
          const bad = textBytesProblem(sqlite.wasm.heap8u(), tp, n)
          if (bad) { refuse({ file: plan.file, feature, field: texts[k]!.keyname, message: `the value ${bad}` }, false); continue rows }
        }
        const ptr = x.sqlite3_column_blob(p, 1)
        const blob = ptr ? sqlite.wasm.heap8u().subarray(ptr, ptr + x.sqlite3_column_bytes(p, 1)) : null
        const s = scanGpkg(blob, scan)
        if (s.empty && s.flaw === Flaw.None) { refuse({ file: plan.file, feature, message: 'has no geometry' }, false); continue }
        if (s.flaw === Flaw.Malformed || s.flaw === Flaw.Unsupported) {
          refuse({ file: plan.file, feature, message: FLAW_TEXT[s.flaw]! }, s.flaw === Flaw.Unsupported)
          continue
        }
        let b: ArrayLike<number> = s.bbox
        const fits = s.kind === target.family + (target.multi ? 3 : 0) && s.z === target.z && !s.m && s.flaw === Flaw.None
        if (!fits) {
          try {
            const g = fixGeometry(blob!.slice(), target, fix)
            fixes.push([feature, encodeGpkg(g, plan.srs)])
            b = bboxOf(g)
          } catch (err) {
            if (!(err instanceof FixError) && !(err instanceof RangeError)) throw err
            const fe = err instanceof FixError ? err : new FixError(FLAW_TEXT[Flaw.Malformed]!)
            refuse({ file: plan.file, feature, message: fe.message }, fe.typeError)
            continue
          }
        }
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
      if (!plan.opts.skipErrors && problems.length >= ERROR_LIMIT) break
      after = last
    }
    if (problems.length) throw featureErrors(problems.sort((a, b) => a.feature! - b.feature!).slice(0, ERROR_LIMIT))
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
