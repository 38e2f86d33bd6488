/**
 * @module ingest/vector-load
 * The SQLite half of a vector ingest: reads the features GDAL converted, checks every one as
 * the spec and the original's loader do (geometry present and whole, values printable and in
 * a supported encoding), brings the few that do not fit the layer's type to it, and writes
 * them in batches into the layer's own database with the fast batch path (`insertMany`, then
 * the packed R*Tree). Between batches it reports progress and lets other requests run.
 */
import type { Database as SqlDb } from '@sqlite.org/sqlite-wasm'
import type { Database } from '../store/database.ts'
import { insertMany, type BlobSource, type BulkValue } from '../store/bulk.ts'
import { rtreeBulkInsert } from '../geo/rtree.ts'
import { bboxOf, type Geometry } from '../geo/geometry.ts'
import { gpkgSize, writeGpkg } from '../geo/gpkg.ts'
import type { SqlValue } from '../feature/values.ts'
import { columnOf, FEATURE_TABLE, RTREE_TABLE } from '../feature/schema.ts'
import type { FieldType } from '../classes/vector_layer/fields.ts'
import { ERROR_LIMIT, featureErrors, type Problem } from './errors.ts'
import { FixError, fixGeometry, type FixErrors, type TargetType } from './geom-fix.ts'
import { FLAW_TEXT, Flaw, Kind, Scan, scanGpkg } from './wkb-scan.ts'
import { textProblem } from './encoding.ts'
import { SRC_TABLE, type ConvertedSource } from './vector-convert.ts'
import { targetOf, type LoaderOptions, type PlannedField, type Seen } from './vector-plan.ts'

/** Rows per batch: one layer write each, and a progress report. */
const BATCH = 20000

/** A rebuilt geometry, written into the heap by `insertMany`. */
class Rebuilt implements BlobSource {
  readonly byteLength: number
  constructor(readonly g: Geometry, readonly srs: number) { this.byteLength = gpkgSize(g) }
  writeTo(view: DataView, at: number): void { writeGpkg(view, at, this.g, this.srs) }
}

/** Yields what exploring needs of each feature's geometry, in reading order. */
export function explorer(src: SqlDb): { next(): Seen | undefined; close(): void } {
  const st = src.prepare(`SELECT outpost_geom FROM ${SRC_TABLE} ORDER BY outpost_fid`)
  const scan = new Scan()
  return {
    next() {
      while (st.step()) {
        const s = scanGpkg(st.get(0) as Uint8Array | null, scan)
        if (s.kind !== Kind.None && !s.empty) return { kind: s.kind, z: s.z, parts: s.parts }
      }
      return undefined
    },
    close() { st.finalize() },
  }
}

/** The fid column a layer takes its feature ids from (`fid_source` AUTO or FIELD), checked. */
export function fidColumn(conv: ConvertedSource, opts: LoaderOptions): string | undefined {
  if (opts.fidSource === 'SEQUENCE') return undefined
  const fields = conv.layer.fields
  for (const name of opts.fidField) {
    const f = fields.find((x) => x.name.toLowerCase() === name.toLowerCase())
    if (!f) continue
    if (f.type !== 'Integer' && f.type !== 'Integer64') continue
    const q = `"${f.name.replace(/"/g, '""')}"`
    const bad = conv.db.selectValue(`SELECT count(*) - count(DISTINCT ${q}) + sum(${q} IS NULL) + sum(${q} < 1 OR ${q} > 2147483647) FROM ${SRC_TABLE}`)
    if (!Number(bad ?? 0)) return f.name
    if (opts.fidSource === 'FIELD' && opts.fixErrors === 'NONE') {
      throw featureErrors([{ file: conv.file, field: f.name, message: `field '${f.name}' contains non-unique, empty or out of range values, so it cannot be the feature id.` }])
    }
    return undefined
  }
  if (opts.fidSource === 'FIELD' && opts.fixErrors === 'NONE') {
    throw featureErrors([{ file: conv.file, message: opts.fidField.length
      ? `none of the fields ${opts.fidField.join(', ')} is an integer field present in the file.` : "parameter 'fid_field' is missing." }])
  }
  return undefined
}

/** A source value as the layer's column stores it (see `feature/values.ts`); `undefined` when it is unusable. */
function columnValue(type: FieldType, v: unknown): SqlValue {
  if (v === null || v === undefined) return null
  switch (type) {
    case 'DATE': return String(v).slice(0, 10)
    case 'TIME': return String(v).slice(0, 8)
    case 'DATETIME': return String(v).replace(' ', 'T').slice(0, 19)
    case 'BOOLEAN': return v ? 1 : 0
    default: return v as SqlValue
  }
}

export interface LoadPlan {
  file: string
  srs: number
  geometryType: string
  fields: PlannedField[]
  /** Column ids of the fields in the layer, in the same order. */
  fieldIds: number[]
  fid?: string
  opts: LoaderOptions
}

export interface LoadResult { count: number; extent: [number, number, number, number] | null }

/**
 * Copies the checked features of `src` into `layer` (an empty layer database). Throws the
 * original's 422 listing up to ten problems when any feature is refused (and not skipped);
 * what was written by then is the caller's to discard.
 */
export async function loadFeatures(src: SqlDb, layer: Database, plan: LoadPlan,
  progress: (done: number) => void, signal?: AbortSignal): Promise<LoadResult> {
  const target: TargetType = targetOf(plan.geometryType)
  const fix: FixErrors = plan.opts.fixErrors
  const cols = ['outpost_fid', 'outpost_geom', ...plan.fields.map((f) => `"${f.keyname.replace(/"/g, '""')}"`)]
  const fidIdx = plan.fid === undefined ? -1 : cols.length
  if (plan.fid !== undefined) cols.push(`"${plan.fid.replace(/"/g, '""')}"`)
  const st = src.prepare(`SELECT ${cols.join(', ')} FROM ${SRC_TABLE} ORDER BY outpost_fid`)
  const head = `INSERT INTO ${FEATURE_TABLE} (fid, geom${plan.fieldIds.map((id) => `, ${columnOf(id)}`).join('')})`
  const problems: Problem[] = []
  const scan = new Scan()
  let ids = new Float64Array(1024)
  let boxes = new Float64Array(4096)
  let count = 0
  let seq = 0
  let read = 0
  const extent: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity]
  const refuse = (p: Problem, typeError: boolean): void => {
    if (plan.opts.skipErrors || (typeError && plan.opts.skipOtherGeometryTypes)) return
    if (problems.length < ERROR_LIMIT) problems.push(p)
  }
  try {
    for (;;) {
      signal?.throwIfAborted()
      const rows: BulkValue[][] = []
      while (rows.length < BATCH && problems.length < ERROR_LIMIT && st.step()) {
        read++
        const feature = Number(st.get(0))
        const row = rowOf(st, feature)
        if (row) rows.push(row)
      }
      if (!problems.length && rows.length) await layer.write((db) => insertMany(layer.sqlite, db, head, rows))
      progress(read)
      if (rows.length < BATCH || problems.length >= ERROR_LIMIT) break
    }
    if (problems.length) throw featureErrors(problems)
    await layer.write((db) => finish(db))
    return { count, extent: count ? extent : null }
  } finally {
    st.finalize()
  }

  /** The layer row of the current source row, or `undefined` when it is refused or skipped. */
  function rowOf(stmt: ReturnType<SqlDb['prepare']>, feature: number): BulkValue[] | undefined {
    const blob = stmt.get(1) as Uint8Array | null
    const s = scanGpkg(blob, scan)
    let geom: Uint8Array | Rebuilt
    if (s.empty && s.flaw === Flaw.None) {
      refuse({ file: plan.file, feature, message: 'has no geometry' }, false)
      return undefined
    }
    const fits = s.kind === target.family + (target.multi ? 3 : 0) && s.z === target.z && !s.m && s.flaw === Flaw.None
    if (fits) {
      geom = blob!
      new DataView(geom.buffer, geom.byteOffset).setInt32(4, plan.srs, (geom[3]! & 1) === 1)
    } else if (s.flaw === Flaw.Malformed || s.flaw === Flaw.Unsupported) {
      refuse({ file: plan.file, feature, message: FLAW_TEXT[s.flaw]! }, s.flaw === Flaw.Unsupported)
      return undefined
    } else {
      try {
        const g = fixGeometry(blob!, target, fix)
        geom = new Rebuilt(g, plan.srs)
        const b = bboxOf(g)
        s.bbox[0] = b[0]; s.bbox[1] = b[1]; s.bbox[2] = b[2]; s.bbox[3] = b[3]
      } catch (err) {
        if (!(err instanceof FixError) && !(err instanceof RangeError)) throw err
        const fe = err instanceof FixError ? err : new FixError(FLAW_TEXT[Flaw.Malformed]!)
        refuse({ file: plan.file, feature, message: fe.message }, fe.typeError)
        return undefined
      }
    }
    const row: BulkValue[] = [0, geom]
    for (let i = 0; i < plan.fields.length; i++) {
      const f = plan.fields[i]!
      const v = columnValue(f.datatype, stmt.get(i + 2))
      if (typeof v === 'string') {
        const bad = textProblem(v, false)
        if (bad) {
          refuse({ file: plan.file, feature, field: f.keyname, message: `the value ${bad}` }, false)
          return undefined
        }
      }
      row.push(v)
    }
    const fid = fidIdx < 0 ? ++seq : Number(stmt.get(fidIdx))
    row[0] = fid
    if (count === ids.length) { ids = grow(ids, count * 2); boxes = grow(boxes, count * 8) }
    ids[count] = fid
    boxes.set(s.bbox, count * 4)
    if (s.bbox[0]! < extent[0]) extent[0] = s.bbox[0]!
    if (s.bbox[1]! < extent[1]) extent[1] = s.bbox[1]!
    if (s.bbox[2]! > extent[2]) extent[2] = s.bbox[2]!
    if (s.bbox[3]! > extent[3]) extent[3] = s.bbox[3]!
    count++
    return row
  }

  /** The spatial index packed in one go, the contents' extent, and the fid sequence. */
  function finish(db: SqlDb): void {
    if (count) rtreeBulkInsert(layer.sqlite, db, RTREE_TABLE, ids.subarray(0, count), boxes.subarray(0, count * 4))
    db.exec({ sql: `UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ?, last_change = strftime('%Y-%m-%dT%H:%M:%fZ','now')
        WHERE table_name = ?`, bind: [...(count ? extent : [null, null, null, null]), FEATURE_TABLE] })
  }
}

function grow(a: Float64Array<ArrayBuffer>, size: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(size)
  b.set(a)
  return b
}
