/**
 * @module feature/transaction/ops
 * Operations of a transaction (reference §12) as a client sends them in a PUT:
 * `feature.create|update|delete|restore`, `attachment.create|update|delete` and
 * `description.put`, with geometry as base64 WKB in the layer's system and fields as
 * `[[field id, value]]` (or `{keyname: value}`). Everything is checked when it is stored, so
 * a commit fails only on what depends on the layer's state then (missing features, versions).
 */
import { validationError } from '../../core/error.ts'
import { isObject } from '../../core/http.ts'
import { expectKind, expectKeys, expectObject } from '../../core/validate.ts'
import { fromBase64 } from '../../core/bytes.ts'
import { bboxOf, invalidReason, layerTypeOf, type Geometry } from '../../geo/geometry.ts'
import { readWkb } from '../../geo/wkb.ts'
import { toColumn, ValueError } from '../values.ts'
import { badFieldValue, geometryNotValid, geometryTypeMismatch } from '../errors.ts'
import type { FeatureInput, Field, FieldValue, LayerMeta } from '../types.ts'

export const SEQNUM_MAX = 2 ** 31 - 1

const KEYS: Record<string, string[]> = {
  'feature.create': ['geom', 'fields'],
  'feature.update': ['fid', 'vid', 'geom', 'fields'],
  'feature.delete': ['fid', 'vid'],
  'feature.restore': ['fid', 'vid', 'geom', 'fields'],
  'attachment.create': ['fid', 'source', 'keyname', 'name', 'mime_type', 'description'],
  'attachment.update': ['fid', 'aid', 'vid', 'source', 'keyname', 'name', 'mime_type', 'description'],
  'attachment.delete': ['fid', 'aid', 'vid'],
  'description.put': ['fid', 'vid', 'value'],
}

/** An operation checked and ready: the JSON as sent (stored), and what it means. */
export interface Operation {
  action: string
  /** The feature; `{sn}`: the one an earlier `feature.create` of this transaction makes. */
  fid?: number | { sn: number }
  aid?: number
  vid?: number
  input?: FeatureInput
  /** `attachment.*`: the upload that becomes the file, and the attributes to set. */
  upload?: string
  attrs?: { keyname?: string | null; name?: string | null; mime_type?: string; description?: string | null }
  description?: string | null
}

function geometry(v: unknown, meta: LayerMeta, path: string): Geometry | null {
  if (v === null) return null
  let g: Geometry
  try {
    g = readWkb(fromBase64(expectKind<string>('str', v, path)))
  } catch (err) {
    throw geometryNotValid(`not base64 WKB (${(err as Error).message})`, path)
  }
  const reason = invalidReason(g)
  if (reason) throw geometryNotValid(reason, path)
  const type = layerTypeOf(g)
  if (type !== meta.geometryType) throw geometryTypeMismatch(type, meta.geometryType, path)
  return g
}

/** `[[field id, value]]` or `{keyname: value}`; fields the layer lacks are skipped, as the original does. */
function fieldValues(v: unknown, meta: LayerMeta, path: string): { fields: Field[]; values: FieldValue[] } {
  const pairs: [Field | undefined, unknown, string][] = Array.isArray(v)
    ? v.map((item, i) => {
      const p = expectKind<unknown[]>('array', item, `${path}[${i}]`)
      if (p.length !== 2) throw validationError(`Expected a [field id, value] pair - at \`${path}[${i}]\``)
      const id = expectKind<number>('int', p[0], `${path}[${i}][0]`)
      return [meta.fields.find((f) => f.id === id), p[1], `${path}[${i}][1]`]
    })
    : Object.entries(expectObject(v, path)).map(([k, val]) => [meta.fields.find((f) => f.keyname === k), val, `${path}.${k}`])
  const byId = new Map<number, FieldValue>()
  for (const [f, val, at] of pairs) {
    if (!f) continue
    try {
      byId.set(f.id, toColumn(f.datatype, val))
    } catch (err) {
      if (err instanceof ValueError) throw badFieldValue(f.keyname, err.message, at)
      throw err
    }
  }
  // In layer order, as the writer expects.
  const fields = meta.fields.filter((f) => byId.has(f.id))
  return { fields, values: fields.map((f) => byId.get(f.id)!) }
}

function featureInput(o: Record<string, unknown>, meta: LayerMeta, path: string): FeatureInput {
  const input: FeatureInput = { fields: [], values: [] }
  if (o.geom !== undefined) {
    input.geom = geometry(o.geom, meta, `${path}.geom`)
    input.bbox = input.geom && bboxOf(input.geom)
  }
  if (o.fields !== undefined) Object.assign(input, fieldValues(o.fields, meta, `${path}.fields`))
  return input
}

const int = (v: unknown, path: string) => expectKind<number>('int', v, path)
const optStr = (o: Record<string, unknown>, k: string, path: string) =>
  o[k] === undefined ? undefined : expectKind<string | null>('str', o[k], `${path}.${k}`, true)

/** Checks one operation (`path`: where it is in the body); throws a 422 naming the problem. */
export function parseOperation(raw: unknown, meta: LayerMeta, path: string): Operation {
  const o = expectObject(raw, path)
  const action = expectKind<string>('str', o.action, `${path}.action`)
  const keys = KEYS[action]
  if (!keys) {
    throw validationError(`Unsupported operation '${action}'; this server accepts ${Object.keys(KEYS).join(', ')} - at \`${path}.action\``)
  }
  expectKeys(o, ['action', ...keys], path)
  const op: Operation = { action }
  if (o.vid !== undefined) op.vid = int(o.vid, `${path}.vid`)
  if (action === 'attachment.create' && isObject(o.fid)) {
    expectKeys(o.fid, ['sn'], `${path}.fid`)
    op.fid = { sn: int(o.fid.sn, `${path}.fid.sn`) }
  } else if (action !== 'feature.create') {
    if (o.fid === undefined) throw validationError(`Object missing required field \`fid\` - at \`${path}\``)
    op.fid = int(o.fid, `${path}.fid`)
  }
  if (action.startsWith('feature.')) {
    if (action !== 'feature.delete') op.input = featureInput(o, meta, path)
  } else if (action.startsWith('attachment.')) {
    if (action !== 'attachment.create') op.aid = int(o.aid, `${path}.aid`)
    if (o.source !== undefined) {
      const s = expectObject(o.source, `${path}.source`)
      if (s.type !== undefined && s.type !== 'file_upload') throw validationError(`Unsupported source type - at \`${path}.source.type\``)
      op.upload = expectKind<string>('str', s.id, `${path}.source.id`)
    } else if (action === 'attachment.create') {
      throw validationError(`Object missing required field \`source\` - at \`${path}\``)
    }
    op.attrs = {}
    for (const k of ['keyname', 'name', 'description'] as const) {
      const v = optStr(o, k, path)
      if (v !== undefined) op.attrs[k] = v
    }
    if (o.mime_type !== undefined) op.attrs.mime_type = expectKind<string>('str', o.mime_type, `${path}.mime_type`)
  } else {
    op.description = expectKind<string | null>('str', o.value ?? null, `${path}.value`, true)
  }
  return op
}

/** Reads `[[seqnum, operation | null], …]`: every item is checked before anything is stored. */
export function parseItems(body: unknown, meta: LayerMeta): { seqnum: number; payload: string | null; op: Operation | null }[] {
  return expectKind<unknown[]>('array', body, '$').map((item, i) => {
    const pair = expectKind<unknown[]>('array', item, `$[${i}]`)
    if (pair.length !== 2) throw validationError(`Expected a [seqnum, operation] pair - at \`$[${i}]\``)
    const seqnum = int(pair[0], `$[${i}][0]`)
    if (seqnum < 0 || seqnum > SEQNUM_MAX) throw validationError(`Sequence numbers run from 0 to ${SEQNUM_MAX} - at \`$[${i}][0]\``)
    if (pair[1] === null) return { seqnum, payload: null, op: null }
    const op = parseOperation(pair[1], meta, `$[${i}][1]`)
    return { seqnum, payload: JSON.stringify(pair[1]), op }
  })
}
