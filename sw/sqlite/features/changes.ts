/**
 * @module sqlite/features/changes
 * The changes feed of a versioned layer (reference §12), as the original computes it: for
 * each feature changed in `(initial, target]`, its state at `initial` (from the history) is
 * compared with its state at `target` (the current row if its last change is in range, else
 * the history), and the difference is one squashed operation: `create` (absent at initial),
 * `update` (only the columns that differ), `delete`, or `restore` (deleted at initial).
 * Geometry is base64 WKB in the layer's system; fields are `[[field id, value]]` with ISO
 * dates; creations omit null values. Attachments and descriptions follow the same rules.
 */
import type { SqlDb } from '../../store/database.ts'
import { toBase64 } from '../../core/bytes.ts'
import { gpkgWkb } from '../../geo/gpkg.ts'
import { fromColumn } from '../../feature/values.ts'
import type { ChangeOp, ChangesQuery, VersionSummary } from '../../feature/history-types.ts'
import type { Field, FieldValue } from '../../feature/types.ts'
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

const same = (a: unknown, b: unknown): boolean => {
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    if (a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
    return true
  }
  return a === b || (a == null && b == null)
}

type Action = 'create' | 'update' | 'delete' | 'restore'

/** The squashed action between the two states, if any (`null` when nothing differs). */
function actionOf(i: { op: string } | undefined, t: { op: string } | undefined, differs: () => boolean): Action | null {
  const pi = !!i && i.op !== 'D', di = !!i && i.op === 'D', pt = !!t && t.op !== 'D'
  if (!pi && pt) return di ? 'restore' : 'create'
  if (pi && !pt) return 'delete'
  if (pi && pt && differs()) return 'update'
  return null
}

const geomOut = (blob: unknown) => {
  const wkb = blob instanceof Uint8Array ? gpkgWkb(blob) : null
  return wkb ? toBase64(wkb) : null
}

/** The states at `initial` and at `target` of the rows a query returns, by key. */
function pair<R extends { key: number; op: string }>(initialRows: R[], targetRows: R[]): Map<number, { i?: R; t?: R }> {
  const out = new Map<number, { i?: R; t?: R }>()
  for (const r of initialRows) out.set(r.key, { i: r })
  for (const r of targetRows) {
    const p = out.get(r.key)
    if (p) p.t = r
    else out.set(r.key, { t: r })
  }
  return out
}

function featureOps(db: SqlDb, fields: readonly Field[], q: ChangesQuery): ChangeOp[] {
  const cols = fields.map((f) => `, ${columnOf(f.id)}`).join('')
  const range = [q.fidMin, q.fidMax]
  const wrap = (rows: Row[]) => rows.map((r) => ({ key: Number(r[0]), vid: Number(r[1]), op: String(r[2]), row: r }))
  const initial = wrap(db.selectArrays(`SELECT fid, vid, op, geom${cols} FROM ${HISTORY_TABLE}
    WHERE fid BETWEEN ? AND ? AND vid <= ? AND nid > ?`, [...range, q.initial, q.initial]))
  const target = wrap([
    ...db.selectArrays(`SELECT s.fid, s.vid, s.op, f.geom${cols.replace(/, /g, ', f.')} FROM feature_vstate s
      LEFT JOIN feature f ON f.fid = s.fid WHERE s.fid BETWEEN ? AND ? AND s.vid > ? AND s.vid <= ?`, [...range, q.initial, q.target]),
    ...db.selectArrays(`SELECT fid, vid, op, geom${cols} FROM ${HISTORY_TABLE}
      WHERE fid BETWEEN ? AND ? AND vid <= ? AND nid > ?`, [...range, q.target, q.target])])
  const out: ChangeOp[] = []
  for (const [fid, { i, t }] of [...pair(initial, target)].sort((a, b) => a[0] - b[0])) {
    const changed = (k: number) => !i || !same(i.row[k], t!.row[k])
    const action = actionOf(i, t, () => fields.some((_, k) => changed(4 + k)) || changed(3))
    if (!action) continue
    const op: ChangeOp = { action: `feature.${action}`, fid, vid: t ? t.vid : i!.vid }
    if (action !== 'delete') {
      const r = t!.row
      const create = action === 'create'
      if (create ? r[3] !== null : changed(3)) op.geom = geomOut(r[3])
      const values: [number, unknown][] = []
      fields.forEach((f, k) => {
        if (create ? r[4 + k] !== null : changed(4 + k)) values.push([f.id, fromColumn(f.datatype, r[4 + k] as FieldValue, 'iso', 'compat')])
      })
      op.fields = values
    }
    out.push(op)
  }
  return out
}

const ATTACHMENT_KEYS = ['keyname', 'name', 'mime_type', 'description'] as const

/** Extension operations (`attachment.*`, `description.put`) for the fids in range. */
function extOps(db: SqlDb, ext: 'attachment' | 'description', q: ChangesQuery, deletedFids: Set<number>): ChangeOp[] {
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
  const out: ChangeOp[] = []
  for (const [key, { i, t }] of [...pair(initial, target)].sort((a, b) => (a[1].t ?? a[1].i)!.fid - (b[1].t ?? b[1].i)!.fid || a[0] - b[0])) {
    const fid = (t ?? i)!.fid
    if (ext === 'description') {
      // A description is a value of its feature: put whenever it differs; the feature's own
      // deletion says the rest.
      if (deletedFids.has(fid) || !t || t.op === 'D') continue
      if (same(i && i.op !== 'D' ? i.data.value ?? null : null, t.data.value ?? null)) continue
      out.push({ action: 'description.put', fid, vid: t.vid, value: t.data.value ?? null })
      continue
    }
    const differs = (k: string) => !i || !same(i.data[k], t!.data[k])
    const action = actionOf(i, t, () => ATTACHMENT_KEYS.some(differs) || differs('fileobj'))
    if (!action) continue
    const op: ChangeOp = { action: `attachment.${action}`, fid, aid: key, vid: t ? t.vid : i!.vid }
    if (action !== 'delete') {
      const d = t!.data
      if (action === 'create' || differs('fileobj')) op.fileobj = d.fileobj
      for (const k of ATTACHMENT_KEYS) {
        if (action === 'create' ? d[k] !== null || k === 'mime_type' : differs(k)) op[k] = d[k]
      }
    }
    out.push(op)
  }
  return out
}

/** The operations for the features with fids in `[q.fidMin, q.fidMax]`: features first, then extensions. */
export function changes(db: SqlDb, fields: readonly Field[], q: ChangesQuery): ChangeOp[] {
  const ops = featureOps(db, fields, q)
  const deleted = new Set(ops.filter((o) => o.action === 'feature.delete').map((o) => o.fid as number))
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
