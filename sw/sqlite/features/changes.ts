/**
 * @module sqlite/features/changes
 * The changes feed of a versioned layer (reference §12): the states of the changed features at
 * `initial` (from the history) and at `target` (the current row if its last change is in
 * range, else the history), read here and squashed into operations by
 * feature/versioning/squash.ts. Geometry is base64 WKB in the layer's system; fields are
 * `[[field id, value]]` with ISO dates.
 */
import type { SqlDb } from '../../store/database.ts'
import { toBase64 } from '../../core/bytes.ts'
import { gpkgWkb } from '../../geo/gpkg.ts'
import { fromColumn } from '../../feature/values.ts'
import type { ChangeOp, ChangesQuery, VersionSummary } from '../../feature/history-types.ts'
import type { Field, FieldValue } from '../../feature/types.ts'
import { deletedFids, extOps as squashExt, featureOps as squashFeatures, type FeatureOutput } from '../../feature/versioning/squash.ts'
import { ATTACHMENT_DATA, HISTORY_TABLE } from './history-schema.ts'
import { columnOf } from './schema.ts'

type Row = unknown[] // fid, vid, op, geom, ...values

/**
 * Ids of features changed in `(initial, target]` (their attachments and descriptions too),
 * after `after`, ascending. A first download (`initial` 0) walks the tables in fid order;
 * a later one looks the few changed rows up by version.
 */
export function changedFids(db: SqlDb, initial: number, target: number, after: number | null, limit: number): number[] {
  const from = after ?? -1
  const dense = initial === 0
  const found = new Set<number>()
  // [table, its index by fid (or NOT INDEXED: keyed by fid), its index by version]
  for (const [table, byFid, byVid] of [['feature_vstate', 'NOT INDEXED', 'feature_vstate_vid'],
    [HISTORY_TABLE, 'NOT INDEXED', 'feature_history_vid'], ['ext_vstate', 'INDEXED BY ext_vstate_fid', 'ext_vstate_vid'],
    ['ext_history', 'INDEXED BY ext_history_fid', 'ext_history_vid']]) {
    const hint = dense ? byFid : `INDEXED BY ${byVid}`
    for (const fid of db.selectValues(`SELECT DISTINCT fid FROM ${table} ${hint} WHERE vid > ? AND vid <= ? AND fid > ?
      ORDER BY fid LIMIT ?`, [initial, target, from, limit])) found.add(Number(fid))
  }
  return [...found].sort((a, b) => a - b).slice(0, limit)
}

const geomOut = (blob: unknown) => {
  const wkb = blob instanceof Uint8Array ? gpkgWkb(blob) : null
  return wkb ? toBase64(wkb) : null
}

const OUTPUT: FeatureOutput = { geom: geomOut, value: (f, raw) => fromColumn(f.datatype, raw as FieldValue, 'iso', 'compat') }

function featureOps(db: SqlDb, fields: readonly Field[], q: ChangesQuery): ChangeOp[] {
  const cols = fields.map((f) => `, ${columnOf(f.id)}`).join('')
  const range = [q.fidMin, q.fidMax]
  const wrap = (rows: Row[]) => rows.map((r) => ({ key: Number(r[0]), vid: Number(r[1]), op: String(r[2]), geom: r[3], values: r.slice(4) }))
  const initial = wrap(db.selectArrays(`SELECT fid, vid, op, geom${cols} FROM ${HISTORY_TABLE}
    WHERE fid BETWEEN ? AND ? AND vid <= ? AND nid > ?`, [...range, q.initial, q.initial]))
  const target = wrap([
    ...db.selectArrays(`SELECT s.fid, s.vid, s.op, f.geom${cols.replace(/, /g, ', f.')} FROM feature_vstate s
      LEFT JOIN feature f ON f.fid = s.fid WHERE s.fid BETWEEN ? AND ? AND s.vid > ? AND s.vid <= ?`, [...range, q.initial, q.target]),
    ...db.selectArrays(`SELECT fid, vid, op, geom${cols} FROM ${HISTORY_TABLE}
      WHERE fid BETWEEN ? AND ? AND vid <= ? AND nid > ?`, [...range, q.target, q.target])])
  return squashFeatures(fields, initial, target, OUTPUT)
}

/** Extension operations (`attachment.*`, `description.put`) for the fids in range. */
function extOps(db: SqlDb, ext: 'attachment' | 'description', q: ChangesQuery, deleted: Set<number>): ChangeOp[] {
  const current = ext === 'attachment'
    ? `SELECT s.eid, s.fid, s.vid, s.op, CASE WHEN a.id IS NULL THEN NULL ELSE ${ATTACHMENT_DATA} END FROM ext_vstate s
       LEFT JOIN feature_attachment a ON a.id = s.eid`
    : `SELECT s.eid, s.fid, s.vid, s.op, json_object('value', d.value) FROM ext_vstate s
       LEFT JOIN feature_description d ON d.fid = s.eid`
  const wrap = (rows: Row[]) => rows.map((r) => ({ key: Number(r[0]), fid: Number(r[1]), vid: Number(r[2]), op: String(r[3]),
    data: (r[4] === null ? {} : JSON.parse(String(r[4]))) as Record<string, unknown> }))
  const range = [q.fidMin, q.fidMax]
  const initial = wrap(db.selectArrays(`SELECT eid, fid, vid, op, data FROM ext_history
    WHERE ext = ? AND fid BETWEEN ? AND ? AND vid <= ? AND nid > ?`, [ext, ...range, q.initial, q.initial]))
  const target = wrap([
    ...db.selectArrays(`${current} WHERE s.ext = ? AND s.fid BETWEEN ? AND ? AND s.vid > ? AND s.vid <= ?`,
      [ext, ...range, q.initial, q.target]),
    ...db.selectArrays(`SELECT eid, fid, vid, op, data FROM ext_history WHERE ext = ? AND fid BETWEEN ? AND ? AND vid <= ? AND nid > ?`,
      [ext, ...range, q.target, q.target])])
  return squashExt(ext, initial, target, deleted)
}

/** The operations for the features with fids in `[q.fidMin, q.fidMax]`: features first, then extensions. */
export function changes(db: SqlDb, fields: readonly Field[], q: ChangesQuery): ChangeOp[] {
  const ops = featureOps(db, fields, q)
  const deleted = deletedFids(ops)
  for (const ext of ['attachment', 'description'] as const) if (q.extensions.includes(ext)) ops.push(...extOps(db, ext, q, deleted))
  return ops
}

/** Features created, updated, deleted and restored in `(initial, target]`, squashed per feature. */
export function summary(db: SqlDb, fields: readonly Field[], initial: number, target: number): VersionSummary {
  const out: VersionSummary = { create: 0, update: 0, delete: 0, restore: 0 }
  for (let after: number | null = null; ;) {
    const fids = changedFids(db, initial, target, after, 1000)
    if (!fids.length) return out
    for (const op of featureOps(db, fields, { initial, target, fidMin: fids[0]!, fidMax: fids[fids.length - 1]!, extensions: [] })) {
      out[(op.action as string).slice(8) as keyof VersionSummary]++
    }
    after = fids[fids.length - 1]!
  }
}
