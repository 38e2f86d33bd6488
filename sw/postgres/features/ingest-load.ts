/**
 * @module postgres/features/ingest-load
 * The PostgreSQL half of a vector ingest: the features of GDAL's GeoPackage, read through the
 * engine-neutral `GpkgSource.batches` (SQLite opens the file on every host; no SQL here on it),
 * checked as every engine checks them (ingest/feature-check), and inserted into the new
 * `layer_<id>` one batch per statement (`unnest` of column arrays, geometries as the WKB inside
 * the GeoPackage blobs). Table and rows are made in one transaction: a refused file, a cancel
 * or a failure rolls it back, and no table is left.
 */
import type { LoadPlan } from '../../port/features.ts'
import type { GpkgSource, SourceBatch } from '../../ingest/vector-convert.ts'
import type { Progress } from '../../ingest/progress.ts'
import { FeatureCheck } from '../../ingest/feature-check.ts'
import { targetOf } from '../../ingest/vector-plan.ts'
import { gpkgWkb } from '../../geo/gpkg.ts'
import type { PgConn } from '../conn.ts'
import { Params } from './filter.ts'
import { COLUMN_TYPES, columnOf, ensureTables, holdLayer, tablesOf } from './schema.ts'

/** Features per read of the source and per INSERT (as SQLite's load pages its checks). */
const BATCH = 5000

const UTF8 = new TextDecoder()

/** A source value as PostgreSQL's input takes it: text decoded (it passed the checks), a bigint as its digits. */
function bindable(v: SourceBatch['values'][number][number]): string | number | null {
  if (v instanceof Uint8Array) return UTF8.decode(v)
  if (typeof v === 'bigint') return String(v)
  return v
}

/**
 * Makes layer `plan.meta`'s tables on `db` (inside the caller's transaction) and fills them
 * from `src`, every feature checked; throws the original's 422 when one is refused (and not
 * skipped), and the caller's rollback leaves nothing. Returns how many features were stored.
 */
export async function loadFeatures(db: PgConn, src: GpkgSource, plan: LoadPlan, progress: Progress, signal?: AbortSignal): Promise<number> {
  const check = new FeatureCheck({ file: plan.file, srs: plan.srs, target: targetOf(plan.meta.geometryType), opts: plan.opts,
    foreignEncoding: src.foreignEncoding })
  const { meta } = plan
  const t = tablesOf(meta.resourceId)
  await ensureTables(db, meta)
  await holdLayer(db, meta.resourceId)
  // The planned fields and the layer's fields are in the same order (classes/vector_layer/ingest.ts).
  const types = plan.fields.map((f) => f.datatype)
  const insert = (p: Params, fids: number[], geoms: Uint8Array[], columns: unknown[][]) => {
    const arrays = [`${p.add(fids)}::bigint[]`, `${p.add(geoms)}::bytea[]`, ...columns.map((c, k) => `${p.add(c)}::${COLUMN_TYPES[types[k]!]}[]`)]
    const names = columns.map((_, k) => `c${k}`)
    return db.exec(`INSERT INTO ${t.features} (fid, geom${meta.fields.map((f) => `, ${columnOf(f.id)}`).join('')})
      SELECT u.fid, ST_GeomFromWKB(u.g, ${p.add(plan.srs)})${names.map((n) => `, u.${n}`).join('')}
      FROM unnest(${arrays.join(', ')}) AS u(fid, g${names.map((n) => `, ${n}`).join('')})`, p.values)
  }
  progress.stage('checking', src.count)
  let count = 0
  let done = 0
  for (const b of src.batches(plan.fields, plan.fid, BATCH)) {
    signal?.throwIfAborted()
    const fids: number[] = []
    const geoms: Uint8Array[] = []
    const columns: unknown[][] = types.map(() => [])
    rows: for (let i = 0; i < b.features.length; i++) {
      const feature = b.features[i]!
      for (let k = 0; k < types.length; k++) {
        const v = b.values[k]![i]
        if (types[k] === 'STRING' && v instanceof Uint8Array && !check.text(feature, plan.fields[k]!.keyname, v, 0, v.length)) continue rows
      }
      const fixed = check.fixes.length
      if (!check.geometry(feature, b.geoms[i]!)) continue
      // Once a feature is refused nothing is stored: the rest is only checked.
      if (check.problems.length) continue
      count++
      fids.push(plan.fid === undefined ? count : b.ids![i]!)
      geoms.push(gpkgWkb(check.fixes.length > fixed ? check.fixes[fixed]![1] : b.geoms[i]!)!)
      for (let k = 0; k < types.length; k++) columns[k]!.push(bindable(b.values[k]![i]!))
    }
    if (fids.length) await insert(new Params(), fids, geoms, columns)
    done += b.features.length
    progress.done(done)
    if (check.full) break
  }
  check.verdict()
  signal?.throwIfAborted()
  progress.stage('writing', count)
  // Fids were given: the identity goes on after the largest, as SQLite's AUTOINCREMENT does.
  if (count) await db.exec(`SELECT setval(pg_get_serial_sequence($1, 'fid'), max(fid)) FROM ${t.features}`, [t.features])
  return count
}
