/**
 * A feature layer kept in an array (no SQL, no GeoPackage): the second implementation of the
 * feature ports (sw/feature/types.ts), as a class without SQLite would provide them. The
 * feature component's unit tests serve it through the routes, and the features contract
 * (features.contract.ts) holds it to the same behaviour as the SQLite layer.
 */
import type {
  AttachmentRow, FeatureFilter, FeatureInput, FeatureLayer, FeatureRead, FeatureRow, FeatureWrite, FieldValue, LayerMeta,
} from '../../sw/feature/types.ts'
import { bboxOf, type Bbox, type Geometry } from '../../sw/geo/geometry.ts'
import { bboxesIntersect } from '../../sw/geo/tile.ts'

/** SQL's order of two values: numbers by value, strings by code point (SQLite's BINARY), NULL after all. */
function compare(a: FieldValue, b: FieldValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0
  return Number(a) - Number(b)
}

/** A LIKE pattern (`%`, `_`, no escape character) as a whole-string regular expression. */
const likeRegExp = (pattern: string, flags: string) =>
  new RegExp(`^${[...pattern].map((ch) => (ch === '%' ? '.*' : ch === '_' ? '.' : ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('')}$`, `s${flags}`)

interface Stored { fid: number; geom: Geometry | null; values: FieldValue[]; description: string | null }

/** What one layer holds: its rows and attachments, copied whole for a write's rollback. */
interface State { rows: Stored[]; attachments: AttachmentRow[]; nextFid: number; nextAid: number }

/** The layer of `meta`; `version` counts its committed writes (its change token). */
export function arrayFeatureLayer(meta: LayerMeta): FeatureLayer {
  let state: State = { rows: [], attachments: [], nextFid: 1, nextAid: 1 }
  let version = 0
  const col = (f: FeatureFilter['conditions'][number]['field']) => meta.fields.indexOf(f!)
  const matches = (r: Stored, f?: FeatureFilter) => (f?.conditions ?? []).every((c) => {
    const v = c.field ? r.values[col(c.field)] : r.fid
    if (c.op === 'isnull') return (v === null || v === undefined) === c.value
    // As SQL: a comparison with NULL is never true.
    if (v === null || v === undefined) return false
    if (c.op === 'eq') return v === c.value
    if (c.op === 'ne') return v !== c.value
    if (c.op === 'gt') return compare(v, c.value as FieldValue) > 0
    if (c.op === 'in') return (c.value as FieldValue[]).includes(v)
    if (c.op === 'ilike') return likeRegExp(String(c.value), 'iu').test(String(v))
    throw new Error(`op ${c.op} is not kept by this test class`)
  }) && (!f?.intersects || (!!r.geom && bboxesIntersect(bboxOf(r.geom), bboxOf(f.intersects))))

  /** The ports over `s`; `live` throws once the read or write has ended. */
  function ports(s: State, live: () => void): FeatureWrite {
    const orphanBlobs: string[] = []
    const find = (fid: number) => s.rows.find((r) => r.fid === fid)
    const apply = (r: Stored, input: FeatureInput) => {
      if (input.geom !== undefined) r.geom = input.geom
      input.fields.forEach((f, i) => { r.values[meta.fields.indexOf(f)] = input.values[i]! })
      if (input.description !== undefined) r.description = input.description
    }
    const create = (input: FeatureInput) => {
      const r: Stored = { fid: s.nextFid++, geom: null, values: meta.fields.map(() => null), description: null }
      apply(r, input)
      s.rows.push(r)
      return r.fid
    }
    const read: FeatureRead = {
      async list(q, shape): Promise<FeatureRow[]> {
        live()
        let out = s.rows.filter((r) => matches(r, q.filter) && (q.fid === undefined || r.fid === q.fid))
        out.sort((a, b) => a.fid - b.fid)
        for (const o of [...(q.order ?? [])].reverse()) {
          const i = meta.fields.indexOf(o.field)
          // NULLs last ascending and first descending (they are the largest), as the port says.
          out = [...out].sort((a, b) => compare(a.values[i] ?? null, b.values[i] ?? null) * (o.desc ? -1 : 1))
        }
        const from = q.offset ?? 0
        if (q.limit !== undefined && q.limit >= 0) out = out.slice(from, from + q.limit)
        else if (from) out = out.slice(from)
        const label = meta.fields.findIndex((f) => f.label_field)
        return out.map((r) => ({ fid: r.fid, geom: shape.geom ? r.geom : null,
          values: shape.fields.map((f) => r.values[meta.fields.indexOf(f)] ?? null),
          ...(shape.label ? { label: label < 0 ? null : r.values[label] } : {}),
          ...(shape.description ? { description: r.description } : {}) }))
      },
      async count(f) { live(); return s.rows.filter((r) => matches(r, f)).length },
      async extent(f): Promise<Bbox | null> {
        live()
        const boxes = s.rows.filter((r) => matches(r, f) && r.geom).map((r) => bboxOf(r.geom!))
        if (!boxes.length) return null
        return [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])),
          Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))]
      },
      async exists(fid) { live(); return !!find(fid) },
      async geometry(fid) { live(); const r = find(fid); return r ? r.geom : undefined },
      async attachments(fids) {
        live()
        const out = new Map<number, AttachmentRow[]>()
        for (const a of [...s.attachments].sort((x, y) => x.id - y.id)) {
          if (fids && !fids.includes(a.fid)) continue
          out.set(a.fid, [...out.get(a.fid) ?? [], { ...a }])
        }
        return out
      },
      async attachment(fid, aid) { live(); const a = s.attachments.find((x) => x.id === aid && x.fid === fid); return a && { ...a } },
    }
    return { ...read, orphanBlobs,
      async create(input) { live(); return create(input) },
      async createMany(inputs) { live(); return inputs.map(create) },
      async update(fid, input) { live(); const r = find(fid); if (r) apply(r, input); return !!r },
      async updateMany(items) { live(); return items.map(({ fid, input }) => { const r = find(fid); if (r) apply(r, input); return !!r }) },
      async delete(fid) {
        live()
        const n = s.rows.length
        s.rows = s.rows.filter((r) => r.fid !== fid)
        for (const a of s.attachments.filter((x) => x.fid === fid)) orphanBlobs.push(a.blob_id)
        s.attachments = s.attachments.filter((x) => x.fid !== fid)
        return s.rows.length < n
      },
      async deleteAll() {
        live()
        orphanBlobs.push(...s.attachments.map((a) => a.blob_id))
        s.rows = []
        s.attachments = []
      },
      async addAttachment(fid, f, file) {
        live()
        const id = s.nextAid++
        s.attachments.push({ id, fid, keyname: f.keyname ?? null, name: f.name ?? null, size: file.size,
          mime_type: f.mime_type ?? 'application/octet-stream', description: f.description ?? null,
          file_meta: JSON.stringify(file.fileMeta), blob_id: file.blobId, fileobj: id })
        return id
      },
      async changeAttachment(row, f, file) {
        live()
        const a = s.attachments.find((x) => x.id === row.id)!
        for (const k of ['name', 'keyname', 'mime_type', 'description'] as const) if (f[k] !== undefined) Object.assign(a, { [k]: f[k] })
        if (file) {
          orphanBlobs.push(a.blob_id)
          Object.assign(a, { blob_id: file.blobId, size: file.size, file_meta: JSON.stringify(file.fileMeta) })
        }
      },
      async removeAttachment(row) {
        live()
        orphanBlobs.push(row.blob_id)
        s.attachments = s.attachments.filter((x) => x.id !== row.id)
      },
    }
  }

  /** Runs `fn` over `s` and ends its ports after it, settled or not. */
  async function run<T>(s: State, fn: (tx: FeatureWrite) => Promise<T>): Promise<T> {
    let open = true
    try {
      return await fn(ports(s, () => { if (!open) throw new Error('The layer transaction has ended.') }))
    } finally {
      open = false
    }
  }

  let queue: Promise<unknown> = Promise.resolve()
  /** One at a time, as a layer database's queue: a write sees no other in between. */
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = queue.then(fn)
    queue = p.catch(() => undefined)
    return p
  }
  return {
    meta,
    token: () => String(version),
    read: (fn) => serial(() => run(state, fn)),
    write: (fn) => serial(async () => {
      const draft = structuredClone(state) // all or nothing: the draft replaces the state only on success
      const out = await run(draft, fn)
      state = draft
      version++
      return out
    }),
  }
}
