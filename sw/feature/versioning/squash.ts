/**
 * @module feature/versioning/squash
 * The engine-neutral half of the changes feed (reference §12), as the original computes it:
 * for each feature changed in `(initial, target]`, its state at `initial` is compared with its
 * state at `target`, and the difference is one squashed operation: `create` (absent at
 * initial), `update` (only the columns that differ), `delete`, or `restore` (deleted at
 * initial). Creations omit null values. Attachments and descriptions follow the same rules.
 * Each implementation of the history reads the two states (its own SQL) and hands them here,
 * so SQLite and PostgreSQL squash alike.
 */
import type { ChangeOp } from '../history-types.ts'
import type { Field } from '../types.ts'

/** A feature's state at a version: values as the storage gives them (compared with `same`). */
export interface FeatureState {
  key: number
  vid: number
  op: string
  geom: unknown
  values: unknown[]
}

/** An extension row's state (an attachment by its id, a description by its fid): `data` as its history keeps it. */
export interface ExtState {
  key: number
  fid: number
  vid: number
  op: string
  data: Record<string, unknown>
}

/** How an implementation writes what it stored: geometry as base64 WKB, a field value as the feed shows it. */
export interface FeatureOutput {
  geom(stored: unknown): string | null
  value(field: Field, stored: unknown): unknown
}

/** Equal stored values (byte arrays by content; null and undefined alike). */
export const same = (a: unknown, b: unknown): boolean => {
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

/** The states at `initial` and at `target` of the rows, by key. */
function pair<R extends { key: number }>(initialRows: R[], targetRows: R[]): Map<number, { i?: R; t?: R }> {
  const out = new Map<number, { i?: R; t?: R }>()
  for (const r of initialRows) out.set(r.key, { i: r })
  for (const r of targetRows) {
    const p = out.get(r.key)
    if (p) p.t = r
    else out.set(r.key, { t: r })
  }
  return out
}

/** The feature operations, by fid, from the states at `initial` and at `target`. */
export function featureOps(fields: readonly Field[], initial: FeatureState[], target: FeatureState[], out: FeatureOutput): ChangeOp[] {
  const ops: ChangeOp[] = []
  for (const [fid, { i, t }] of [...pair(initial, target)].sort((a, b) => a[0] - b[0])) {
    const changedValue = (k: number) => !i || !same(i.values[k], t!.values[k])
    const changedGeom = () => !i || !same(i.geom, t!.geom)
    const action = actionOf(i, t, () => fields.some((_, k) => changedValue(k)) || changedGeom())
    if (!action) continue
    const op: ChangeOp = { action: `feature.${action}`, fid, vid: t ? t.vid : i!.vid }
    if (action !== 'delete') {
      const r = t!
      const create = action === 'create'
      if (create ? r.geom !== null : changedGeom()) op.geom = out.geom(r.geom)
      const values: [number, unknown][] = []
      fields.forEach((f, k) => {
        if (create ? r.values[k] !== null : changedValue(k)) values.push([f.id, out.value(f, r.values[k])])
      })
      op.fields = values
    }
    ops.push(op)
  }
  return ops
}

const ATTACHMENT_KEYS = ['keyname', 'name', 'mime_type', 'description'] as const

/** Extension operations (`attachment.*`, `description.put`); `deletedFids`: features the feed deletes. */
export function extOps(ext: 'attachment' | 'description', initial: ExtState[], target: ExtState[], deletedFids: Set<number>): ChangeOp[] {
  const ops: ChangeOp[] = []
  for (const [key, { i, t }] of [...pair(initial, target)].sort((a, b) => (a[1].t ?? a[1].i)!.fid - (b[1].t ?? b[1].i)!.fid || a[0] - b[0])) {
    const fid = (t ?? i)!.fid
    if (ext === 'description') {
      // A description is a value of its feature: put whenever it differs; the feature's own
      // deletion says the rest.
      if (deletedFids.has(fid) || !t || t.op === 'D') continue
      if (same(i && i.op !== 'D' ? i.data.value ?? null : null, t.data.value ?? null)) continue
      ops.push({ action: 'description.put', fid, vid: t.vid, value: t.data.value ?? null })
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
    ops.push(op)
  }
  return ops
}

/** The fids the feature operations delete (their descriptions are not put). */
export const deletedFids = (ops: ChangeOp[]) => new Set(ops.filter((o) => o.action === 'feature.delete').map((o) => o.fid as number))
