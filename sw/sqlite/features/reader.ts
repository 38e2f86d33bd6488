/**
 * @module sqlite/features/reader
 * The read side of a vector layer's feature-layer capability: the component's queries
 * (`feature/types.ts`) turned into SQL over the layer's GeoPackage tables, rows back in the
 * canonical form.
 */
import type { SqlDb } from '../../store/database.ts'
import { RowReader, SQLITE_BLOB, SQLITE_FLOAT, SQLITE_INTEGER, SQLITE_TEXT } from '../../store/row-reader.ts'
import { flatten } from '../../geo/flat.ts'
import { bboxOf, type Bbox, type Geometry } from '../../geo/geometry.ts'
import { decodeGpkg } from '../../geo/gpkg.ts'
import { likeToGlob } from '../../core/text.ts'
import type {
  AttachmentRow, BoxRow, Condition, FeatureFilter, FeatureHistorySync as FeatureHistory, FeatureQuery, FeatureReadSync as FeatureRead,
  FeatureRow, Field, FieldValue, LayerMeta, RowShape,
} from '../../feature/types.ts'
import type {
  ChangeOp, ChangesQuery, ItemVersion, TransactionOp, TransactionRecord, VersionListQuery, VersionRecord, VersioningState,
  VersionSummary,
} from '../../feature/history-types.ts'
import type { PastRequest } from '../../core/idempotency.ts'
import { columnOf, FEATURE_TABLE, RTREE_TABLE } from './schema.ts'
import { pastRequest } from '../../store/request-log.ts'
import { changedFids, changes, summary } from './changes.ts'
import { attachmentsAt, descriptionAt, featuresAt, latestVersion, listVersions, versionOf } from './versions.ts'
import { getTransaction, transactionOps, transactionResults } from './transactions.ts'
import type { Layer } from './layer.ts'

type Bind = FieldValue

/** Column `i` as oo1's `Stmt.get` answers it: integers past 2^53 as BigInt, blobs copied. */
function storedValue(r: RowReader, i: number): FieldValue {
  switch (r.type(i)) {
    case SQLITE_INTEGER: {
      const v = r.number(i)
      return Number.isSafeInteger(v) ? v : BigInt(r.text(i))
    }
    case SQLITE_FLOAT: return r.number(i)
    case SQLITE_TEXT: return r.text(i)
    case SQLITE_BLOB: return r.blobView(i)!.slice()
    default: return null
  }
}

/** sqlite-wasm refuses an empty bind array on a statement without parameters. */
export const binding = (b: Bind[]) => (b.length ? b as never : undefined)

const COMPARE: Record<string, string> = { eq: '=', ne: '!=', gt: '>', ge: '>=', lt: '<', le: '<=' }

/**
 * A filter as SQL conditions on `f` (the feature table), ANDed, with their parameters. The
 * full-text search covers the `text_search` fields of `fields`. `indexed`: whether `f` is the
 * feature table itself, whose spatial index may narrow an `intersects` (not a past version).
 */
export function filterSql(filter: FeatureFilter | undefined, fields: readonly Field[], indexed = true): { where: string[]; bind: Bind[] } {
  const where: string[] = []
  const bind: Bind[] = []
  if (!filter) return { where, bind }
  for (const c of filter.conditions) condition(c, where, bind)
  const { search } = filter
  if (search) {
    const cols = fields.filter((f) => f.text_search).map((f) => `CAST(f.${columnOf(f.id)} AS TEXT)`)
    if (!cols.length) where.push('0')
    else if (search.caseSensitive) {
      // Case-sensitive: GLOB, since SQLite's LIKE ignores ASCII case.
      where.push(`(${cols.map((c) => `${c} GLOB ?`).join(' OR ')})`)
      for (const _ of cols) bind.push(`*${likeToGlob(search.pattern)}*`)
    } else {
      where.push(`(${cols.map((c) => `lower_u(${c}) LIKE lower_u(?)`).join(' OR ')})`)
      for (const _ of cols) bind.push(`%${search.pattern}%`)
    }
  }
  if (filter.intersects) {
    if (indexed) {
      const b = bboxOf(filter.intersects)
      where.push(`f.fid IN (SELECT id FROM ${RTREE_TABLE} WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?)`)
      bind.push(b[2], b[0], b[3], b[1])
    }
    where.push('outpost_intersects(f.geom)')
  }
  return { where, bind }
}

function condition(c: Condition, where: string[], bind: Bind[]): void {
  const target = c.field ? `f.${columnOf(c.field.id)}` : 'f.fid'
  switch (c.op) {
    case 'like':
      where.push(`CAST(${target} AS TEXT) GLOB ?`)
      bind.push(likeToGlob(String(c.value)))
      return
    case 'ilike':
      where.push(`lower_u(CAST(${target} AS TEXT)) LIKE lower_u(?)`)
      bind.push(String(c.value))
      return
    case 'startswith':
      where.push(`substr(CAST(${target} AS TEXT), 1, length(?)) = ?`)
      bind.push(String(c.value), String(c.value))
      return
    case 'isnull':
      where.push(`${target} IS ${c.value ? '' : 'NOT '}NULL`)
      return
    case 'in': case 'notin': {
      const values = c.value as FieldValue[]
      if (!values.length) { where.push(c.op === 'in' ? '0' : '1'); return }
      where.push(`${target} ${c.op === 'in' ? 'IN' : 'NOT IN'} (${values.map(() => '?').join(',')})`)
      bind.push(...values)
      return
    }
    default:
      where.push(`${target} ${COMPARE[c.op]} ?`)
      bind.push(c.value as FieldValue)
  }
}

/** Reads of one layer inside one of its transactions (its history included). */
export class LayerReader implements FeatureRead, FeatureHistory {
  constructor(readonly db: SqlDb, readonly layer: Layer, readonly meta: LayerMeta) {}

  get history(): FeatureHistory {
    return this
  }

  pastRequest(key: string): PastRequest | undefined {
    return pastRequest(this.db, key)
  }

  /** Runs `fn` with the filter's geometry visible to `outpost_intersects`. */
  protected filtered<T>(filter: FeatureFilter | undefined, fn: (where: string, bind: Bind[]) => T, indexed = true): T {
    const { where, bind } = filterSql(filter, this.meta.fields, indexed)
    this.layer.filter = filter?.intersects && flatten(filter.intersects)
    try {
      return fn(where.length ? `WHERE ${where.join(' AND ')}` : '', bind)
    } finally {
      this.layer.filter = undefined
    }
  }

  list(q: FeatureQuery, shape: RowShape): FeatureRow[] {
    const labelField = shape.label ? this.meta.fields.find((f) => f.label_field) : undefined
    const past = q.version !== undefined
    const versioned = !!this.meta.versioning
    const cols = ['f.fid', shape.geom ? 'f.geom' : 'NULL', ...shape.fields.map((f) => `f.${columnOf(f.id)}`)]
    if (labelField) cols.push(`f.${columnOf(labelField.id)}`)
    if (shape.description && !past) cols.push('(SELECT value FROM feature_description d WHERE d.fid = f.fid)')
    if (versioned) cols.push(past ? 'f.vid' : '(SELECT vid FROM feature_vstate s WHERE s.fid = f.fid)')
    const filter: FeatureFilter | undefined = q.fid === undefined ? q.filter
      : { conditions: [...(q.filter?.conditions ?? []), { field: null, op: 'eq', value: q.fid }], filtered: true,
        search: q.filter?.search, intersects: q.filter?.intersects }
    const order = [...(q.order ?? []).map((o) => `f.${columnOf(o.field.id)} ${o.desc ? 'DESC NULLS FIRST' : 'ASC NULLS LAST'}`), 'f.fid']
    const rows = this.filtered(filter, (where, bind) => {
      const source = past ? featuresAt(this.meta.fields) : FEATURE_TABLE
      let sql = `SELECT ${cols.join(', ')} FROM ${source} f ${where} ORDER BY ${order.join(', ')}`
      if (q.limit !== undefined && q.limit >= 0) { sql += ' LIMIT ? OFFSET ?'; bind.push(q.limit, q.offset ?? 0) }
      return this.db.selectArrays(sql, binding(past ? [q.version!, ...bind] : bind))
    }, !past)
    const n = shape.fields.length
    return rows.map((r) => {
      const row: FeatureRow = { fid: Number(r[0]), geom: r[1] instanceof Uint8Array ? decodeGpkg(r[1]) : null,
        values: r.slice(2, 2 + n) as FieldValue[] }
      let i = 2 + n
      if (shape.label) row.label = labelField ? r[i++] as FieldValue : null
      if (shape.description) row.description = past ? descriptionAt(this.db, row.fid, q.version!) : (r[i++] ?? null) as string | null
      if (versioned) row.vid = Number(r[i])
      return row
    })
  }

  /**
   * Read with SQLite's column functions straight (store/row-reader): a drawn tile reads every
   * feature in its padded box, and oo1's per-row arrays and double blob copies were a fifth
   * of a cold web map's drawing (issue 25).
   */
  inBox(box: Bbox, fields: readonly Field[]): BoxRow[] {
    const cols = fields.map((f) => `, f.${columnOf(f.id)}`).join('')
    const r = new RowReader(this.layer.db.sqlite, this.db, `SELECT f.fid, f.geom${cols} FROM ${RTREE_TABLE} r
      JOIN ${FEATURE_TABLE} f ON f.fid = r.id
      WHERE r.minx <= ? AND r.maxx >= ? AND r.miny <= ? AND r.maxy >= ? AND f.geom IS NOT NULL ORDER BY f.fid`,
    [box[2], box[0], box[3], box[1]])
    const out: BoxRow[] = []
    try {
      while (r.step()) {
        const values: FieldValue[] = []
        for (let i = 0; i < fields.length; i++) values.push(storedValue(r, i + 2))
        out.push({ fid: r.number(0), geom: r.blobView(1)?.slice() ?? new Uint8Array(0), values })
      }
    } finally {
      r.finalize()
    }
    return out
  }

  count(filter?: FeatureFilter): number {
    return this.filtered(filter, (where, bind) =>
      Number(this.db.selectValue(`SELECT count(*) FROM ${FEATURE_TABLE} f ${where}`, binding(bind))))
  }

  extent(filter?: FeatureFilter): Bbox | null {
    const r = this.filtered(filter, (where, bind) => this.db.selectArray(
      `SELECT min(ST_MinX(f.geom)), min(ST_MinY(f.geom)), max(ST_MaxX(f.geom)), max(ST_MaxY(f.geom)) FROM ${FEATURE_TABLE} f ${where}`,
      binding(bind)))
    if (!r || r[0] === null || r[0] === undefined) return null
    return r.map(Number) as Bbox
  }

  exists(fid: number): boolean {
    return this.db.selectValue(`SELECT 1 FROM ${FEATURE_TABLE} WHERE fid = ?`, [fid]) !== undefined
  }

  geometry(fid: number): Geometry | null | undefined {
    const row = this.db.selectArray(`SELECT geom FROM ${FEATURE_TABLE} WHERE fid = ?`, [fid])
    if (!row) return undefined
    return row[0] instanceof Uint8Array ? decodeGpkg(row[0]) : null
  }

  attachments(fids?: number[]): Map<number, AttachmentRow[]> {
    const out = new Map<number, AttachmentRow[]>()
    if (fids && !fids.length) return out
    // Beyond a few hundred fids one scan of the table is cheaper than a long IN list.
    const all = !fids || fids.length > 500
    const rows = (all ? this.db.selectObjects(`SELECT * FROM feature_attachment ORDER BY id`)
      : this.db.selectObjects(`SELECT * FROM feature_attachment WHERE fid IN (${fids.map(() => '?').join(',')}) ORDER BY id`, fids)
    ) as unknown as AttachmentRow[]
    for (const a of rows) {
      const list = out.get(a.fid)
      if (list) list.push(a)
      else out.set(a.fid, [a])
    }
    return out
  }

  attachment(fid: number, aid: number): AttachmentRow | undefined {
    return this.db.selectObject(`SELECT * FROM feature_attachment WHERE id = ? AND fid = ?`, [aid, fid]) as AttachmentRow | undefined
  }

  attachmentsAt(fids: number[], version: number): Map<number, AttachmentRow[]> {
    return this.meta.versioning ? attachmentsAt(this.db, fids, version) : this.attachments(fids)
  }

  // Versioning (reference §12): the class's history tables.

  versioning(): VersioningState | undefined {
    const v = this.meta.versioning
    return v && { epoch: v.epoch, latest: latestVersion(this.db) }
  }

  featureVersion(fid: number): ItemVersion | undefined {
    const r = this.db.selectArray(`SELECT vid, op FROM feature_vstate WHERE fid = ?`, [fid])
    return r && { vid: Number(r[0]), deleted: r[1] === 'D' }
  }

  attachmentVersion(fid: number, aid: number): ItemVersion | undefined {
    return this.#extVersion('attachment', aid, fid)
  }

  descriptionVersion(fid: number): ItemVersion | undefined {
    return this.#extVersion('description', fid, fid)
  }

  #extVersion(ext: string, eid: number, fid: number): ItemVersion | undefined {
    const r = this.db.selectArray(`SELECT vid, op FROM ext_vstate WHERE ext = ? AND eid = ? AND fid = ?`, [ext, eid, fid])
    return r && { vid: Number(r[0]), deleted: r[1] === 'D' }
  }

  changedFids(initial: number, target: number, after: number | null, limit: number): number[] {
    return changedFids(this.db, initial, target, after, limit)
  }

  changes(q: ChangesQuery): ChangeOp[] {
    return changes(this.db, this.meta.fields, q)
  }

  summary(initial: number, target: number): VersionSummary {
    return summary(this.db, this.meta.fields, initial, target)
  }

  versionRecord(vid: number): VersionRecord | undefined {
    return versionOf(this.db, vid)
  }

  versions(q: VersionListQuery): VersionRecord[] {
    return listVersions(this.db, q)
  }

  attachmentBlob(aid: number, fileobj: number): string | undefined {
    return this.db.selectValue(`SELECT blob_id FROM attachment_file WHERE id = ? AND aid = ?`, [fileobj, aid]) as string | undefined
  }

  transaction(tid: number): TransactionRecord | undefined {
    return getTransaction(this.db, tid)
  }

  transactionOps(tid: number): TransactionOp[] {
    return transactionOps(this.db, tid)
  }

  transactionResults(tid: number): [number, string][] {
    return transactionResults(this.db, tid)
  }
}
