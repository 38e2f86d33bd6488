/**
 * @module postgres/features/changes
 * The changes feed of a versioned layer on PostGIS (reference §12): the states of the changed
 * features at `initial` (from the history) and at `target` (the current row if its last change
 * is in range, else the history), two statements per page, squashed into operations by
 * feature/versioning/squash.ts exactly as SQLite's are (sqlite/features/changes.ts). Geometry
 * goes out as the WKB our own encoder writes (the bytes SQLite's GeoPackage blobs hold).
 */
import { toBase64 } from '../../core/bytes.ts'
import { readWkb, toWkb } from '../../geo/wkb.ts'
import { fromColumn } from '../../feature/values.ts'
import type { ChangeOp, ChangesQuery, VersionSummary } from '../../feature/history-types.ts'
import type { Field } from '../../feature/types.ts'
import { deletedFids, extOps as squashExt, featureOps as squashFeatures, type ExtState, type FeatureOutput,
  type FeatureState } from '../../feature/versioning/squash.ts'
import type { PgConn } from '../conn.ts'
import { ATTACHMENT_DATA } from './history-schema.ts'
import type { LayerTables } from './schema.ts'
import { columnOf } from './schema.ts'
import { canonical, fromCanonical } from './values.ts'

const OUTPUT: FeatureOutput = {
  geom: (wkb) => (wkb instanceof Uint8Array ? toBase64(toWkb(readWkb(wkb))) : null),
  value: (f, v) => fromColumn(f.datatype, fromCanonical(f.datatype, v), 'iso', 'compat'),
}

/**
 * Ids of features changed in `(initial, target]` (their attachments and descriptions too),
 * after `after`, ascending: one statement over the four state tables.
 */
export async function changedFids(db: PgConn, t: LayerTables, initial: number, target: number, after: number | null,
  limit: number): Promise<number[]> {
  const part = (table: string) => `SELECT fid FROM ${table} WHERE vid > $1 AND vid <= $2 AND fid > $3`
  return (await db.rows<{ fid: number }>(`${[t.vstate, t.history, t.extVstate, t.extHistory].map(part).join(' UNION ')}
    ORDER BY fid LIMIT $4`, [initial, target, after ?? -1, limit])).map((r) => r.fid)
}

async function featureOps(db: PgConn, t: LayerTables, fields: readonly Field[], q: ChangesQuery): Promise<ChangeOp[]> {
  const cols = fields.map((f, k) => `, ${canonical(`x.${columnOf(f.id)}`, f.datatype)} AS v${k}`).join('')
  const states = (rows: Record<string, unknown>[]): FeatureState[] => rows.map((r) => ({ key: r.fid as number, vid: r.vid as number,
    op: r.op as string, geom: r.geom, values: fields.map((_, k) => r[`v${k}`]) }))
  const history = (v: string) => `SELECT x.fid, x.vid, x.op, ST_AsBinary(x.geom) AS geom${cols} FROM ${t.history} x
    WHERE x.fid BETWEEN $1 AND $2 AND x.vid <= ${v} AND x.nid > ${v}`
  const initial = states(await db.rows(history('$3'), [q.fidMin, q.fidMax, q.initial]))
  const target = states(await db.rows(`SELECT s.fid, s.vid, s.op, ST_AsBinary(x.geom) AS geom${cols} FROM ${t.vstate} s
    LEFT JOIN ${t.features} x ON x.fid = s.fid WHERE s.fid BETWEEN $1 AND $2 AND s.vid > $3 AND s.vid <= $4
    UNION ALL ${history('$4')}`, [q.fidMin, q.fidMax, q.initial, q.target]))
  return squashFeatures(fields, initial, target, OUTPUT)
}

/** Extension operations (`attachment.*`, `description.put`) for the fids in range. */
async function extOps(db: PgConn, t: LayerTables, ext: 'attachment' | 'description', q: ChangesQuery, deleted: Set<number>): Promise<ChangeOp[]> {
  const current = ext === 'attachment'
    ? `SELECT s.eid, s.fid, s.vid, s.op, CASE WHEN a.id IS NULL THEN NULL ELSE ${ATTACHMENT_DATA} END AS data FROM ${t.extVstate} s
       LEFT JOIN ${t.attachment} a ON a.id = s.eid`
    : `SELECT s.eid, s.fid, s.vid, s.op, jsonb_build_object('value', d.value) AS data FROM ${t.extVstate} s
       LEFT JOIN ${t.description} d ON d.fid = s.eid`
  type Row = { eid: number; fid: number; vid: number; op: string; data: Record<string, unknown> | null }
  const states = (rows: Row[]): ExtState[] => rows.map((r) => ({ key: r.eid, fid: r.fid, vid: r.vid, op: r.op, data: r.data ?? {} }))
  const history = (v: string) => `SELECT eid, fid, vid, op, data FROM ${t.extHistory}
    WHERE ext = $1 AND fid BETWEEN $2 AND $3 AND vid <= ${v} AND nid > ${v}`
  const initial = states(await db.rows<Row>(history('$4'), [ext, q.fidMin, q.fidMax, q.initial]))
  const target = states(await db.rows<Row>(`${current} WHERE s.ext = $1 AND s.fid BETWEEN $2 AND $3 AND s.vid > $4 AND s.vid <= $5
    UNION ALL ${history('$5')}`, [ext, q.fidMin, q.fidMax, q.initial, q.target]))
  return squashExt(ext, initial, target, deleted)
}

/** The operations for the features with fids in `[q.fidMin, q.fidMax]`: features first, then extensions. */
export async function changes(db: PgConn, t: LayerTables, fields: readonly Field[], q: ChangesQuery): Promise<ChangeOp[]> {
  const ops = await featureOps(db, t, fields, q)
  const deleted = deletedFids(ops)
  for (const ext of ['attachment', 'description'] as const) {
    if (q.extensions.includes(ext)) ops.push(...await extOps(db, t, ext, q, deleted))
  }
  return ops
}

/** Features created, updated, deleted and restored in `(initial, target]`, squashed per feature (pages of 1000). */
export async function summary(db: PgConn, t: LayerTables, fields: readonly Field[], initial: number, target: number): Promise<VersionSummary> {
  const out: VersionSummary = { create: 0, update: 0, delete: 0, restore: 0 }
  for (let after: number | null = null; ;) {
    const fids = await changedFids(db, t, initial, target, after, 1000)
    if (!fids.length) return out
    for (const op of await featureOps(db, t, fields, { initial, target, fidMin: fids[0]!, fidMax: fids[fids.length - 1]!, extensions: [] })) {
      out[(op.action as string).slice(8) as keyof VersionSummary]++
    }
    after = fids[fids.length - 1]!
  }
}
