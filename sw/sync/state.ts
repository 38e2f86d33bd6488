/**
 * @module sync/state
 * A feature as both sides compare it (`FeatureState`: WKB geometry as base64, field values
 * by local keyname as the changes API writes them, the description), read from the local
 * layer (now or at a past version), built from the remote's operations, compared, hashed,
 * and turned back into a local write.
 */
import { fromBase64, toBase64 } from '../core/bytes.ts'
import { readWkb, toWkb } from '../geo/wkb.ts'
import { bboxOf, layerTypeOf, type Geometry } from '../geo/geometry.ts'
import { fromColumn, toColumn, ValueError } from '../feature/values.ts'
import type { FeatureInput, FeatureRead, Field, FieldValue, LayerMeta } from '../feature/types.ts'
import type { FeatureState, Problem, ProblemJson, ReplicaRead } from './types.ts'

/** States of the local features `fids` (at `version`, if given), by fid; absent ones are missing from the map. */
export async function localStates(tx: FeatureRead, meta: LayerMeta, fids: number[], version?: number): Promise<Map<number, FeatureState>> {
  const out = new Map<number, FeatureState>()
  // In chunks: one query each, not one per feature.
  for (let i = 0; i < fids.length; i += 500) {
    const chunk = fids.slice(i, i + 500)
    const rows = await tx.list({ version, filter: { conditions: [{ field: null, op: 'in', value: chunk }], filtered: true } },
      { geom: true, fields: meta.fields, label: false, description: true })
    for (const row of rows) {
      const fields: Record<string, unknown> = {}
      meta.fields.forEach((f, k) => { fields[f.keyname] = fromColumn(f.datatype, row.values[k], 'iso', 'compat') })
      out.set(row.fid, { geom: row.geom ? toBase64(toWkb(row.geom)) : null, fields, description: row.description ?? null })
    }
  }
  return out
}

/** The local feature `fid` (at `version`, if given); `null` when it does not exist (then). */
export async function localState(tx: FeatureRead, meta: LayerMeta, fid: number, version?: number): Promise<FeatureState | null> {
  return (await localStates(tx, meta, [fid], version)).get(fid) ?? null
}

/** A remote operation's fields (`[[remote field id, value]]`) by local keyname; fields not linked are skipped. */
export function opFields(pairs: unknown, byRemoteId: Map<number, Field>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (!Array.isArray(pairs)) return out
  for (const p of pairs) {
    if (!Array.isArray(p)) continue
    const f = byRemoteId.get(Number(p[0]))
    if (f) out[f.keyname] = p[1]
  }
  return out
}

/** `state` with a remote operation's partial changes applied. */
export function withChanges(state: FeatureState, op: Record<string, unknown>, byRemoteId: Map<number, Field>): FeatureState {
  const next: FeatureState = { ...state, fields: { ...state.fields, ...opFields(op.fields, byRemoteId) } }
  if ('geom' in op) next.geom = (op.geom as string | null) ?? null
  if ('value' in op) next.description = (op.value as string | null) ?? null
  return next
}

/** The state a creation operation describes: fields it omits are null (the feed omits nulls). */
export function createdState(op: Record<string, unknown>, meta: LayerMeta, byRemoteId: Map<number, Field>): FeatureState {
  const fields: Record<string, unknown> = Object.fromEntries(meta.fields.map((f) => [f.keyname, null]))
  return { geom: (op.geom as string | undefined) ?? null, fields: { ...fields, ...opFields(op.fields, byRemoteId) }, description: null }
}

const norm = (v: unknown) => (v === undefined ? null : v)

export function sameState(a: FeatureState | null, b: FeatureState | null): boolean {
  if (a === null || b === null) return a === b
  if (a.geom !== b.geom || norm(a.description) !== norm(b.description)) return false
  const keys = new Set([...Object.keys(a.fields), ...Object.keys(b.fields)])
  for (const k of keys) if (JSON.stringify(norm(a.fields[k])) !== JSON.stringify(norm(b.fields[k]))) return false
  return true
}

/** A short stable fingerprint of a state (remotes without versions are compared by it). */
export function stateHash(s: FeatureState, extra = ''): string {
  const text = JSON.stringify([s.geom, Object.keys(s.fields).sort().map((k) => [k, norm(s.fields[k])]), norm(s.description), extra])
  let h1 = 0x811c9dc5, h2 = 0x01000193
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 0x01000193)
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) ^ (h2 >>> 13)
  }
  return (h1 >>> 0).toString(16).padStart(8, '0') + (h2 >>> 0).toString(16).padStart(8, '0')
}

/** `state`'s geometry as the layer takes it; a `ValueError` when it cannot be read or is of another type. */
function stateGeometry(state: FeatureState, meta: LayerMeta): Geometry | null {
  if (state.geom === null) return null
  let geom: Geometry
  try {
    geom = readWkb(fromBase64(state.geom))
  } catch (err) {
    throw new ValueError(`the geometry cannot be read: ${(err as Error).message}`)
  }
  const type = layerTypeOf(geom)
  if (type !== meta.geometryType) throw new ValueError(`the geometry is a ${type}, the layer takes ${meta.geometryType}`)
  return geom
}

/**
 * A local write of `state` (all fields, geometry, description). What the layer refuses throws a
 * `ValueError` naming the field or the geometry.
 */
export function stateInput(state: FeatureState, meta: LayerMeta): FeatureInput {
  const geom = stateGeometry(state, meta)
  const fields = meta.fields.filter((f) => f.keyname in state.fields)
  const values: FieldValue[] = fields.map((f) => {
    try {
      return toColumn(f.datatype, state.fields[f.keyname])
    } catch (err) {
      throw err instanceof ValueError ? new ValueError(`field '${f.keyname}': ${err.message}`) : err
    }
  })
  const input: FeatureInput = { geom, bbox: geom && bboxOf(geom), fields, values }
  if (state.description !== undefined) input.description = state.description
  return input
}

/** `[[remote field id, value]]` of a state, for a transaction operation. */
export function remoteFields(state: FeatureState, meta: LayerMeta, fieldMap: Record<string, number>): [number, unknown][] {
  const out: [number, unknown][] = []
  for (const f of meta.fields) {
    const rid = fieldMap[String(f.id)]
    if (rid !== undefined && f.keyname in state.fields) out.push([rid, state.fields[f.keyname] ?? null])
  }
  return out
}

/** Local fields by the remote field id they are linked to. */
export function byRemoteId(meta: LayerMeta, fieldMap: Record<string, number>): Map<number, Field> {
  const out = new Map<number, Field>()
  for (const f of meta.fields) {
    const rid = fieldMap[String(f.id)]
    if (rid !== undefined) out.set(rid, f)
  }
  return out
}

/** A problem as the API shows it (the round's report, the layer's sync state). */
export const problemJson = (p: Problem): ProblemJson => ({ fid: p.fid, remote_fid: p.rfid, reason: p.reason, since: p.since })

/** Local changes waiting to be pushed: features (each once, whatever changed of it) and attachments. */
export async function waitingCounts(r: ReplicaRead): Promise<{ features: number; attachments: number }> {
  return { features: new Set((await r.localChanges()).map((c) => c.fid)).size, attachments: (await r.localAttachmentChanges()).length }
}
