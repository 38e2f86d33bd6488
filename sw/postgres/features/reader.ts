/**
 * @module postgres/features/reader
 * The read side of a layer's feature port on PostGIS (`FeatureRead`): the component's queries as
 * one statement each over the layer's tables, rows back in the canonical form, geometries as WKB
 * (`ST_AsBinary`, read by geo/wkb.ts). Answers as SQLite's reader (sqlite/features/reader.ts):
 * orders with NULLs last ascending and first descending and the fid breaking ties, attachments
 * in id order.
 */
import type { PastRequest } from '../../core/idempotency.ts'
import type { Bbox, Geometry } from '../../geo/geometry.ts'
import { readWkb } from '../../geo/wkb.ts'
import type {
  AttachmentRow, FeatureFilter, FeatureHistory, FeatureQuery, FeatureRead, FeatureRow, LayerMeta, RowShape,
} from '../../feature/types.ts'
import type {
  ChangeOp, ChangesQuery, ItemVersion, TransactionOp, TransactionRecord, VersionListQuery, VersionRecord, VersioningState,
  VersionSummary,
} from '../../feature/history-types.ts'
import type { PgConn } from '../conn.ts'
import { tablesOf, type LayerTables } from './schema.ts'
import { canonical, fromCanonical } from './values.ts'
import { listFilter, listSql, ownColumns, Params, whereSql, type TableColumns } from './filter.ts'
import { attachmentsAt, descriptionAt, featuresAt, itemVersion, latestVersion, listVersions, versionOf } from './versions.ts'
import { changedFids, changes, summary } from './changes.ts'
import { getTransaction, transactionOps, transactionResults } from './transactions.ts'

/** The columns of an attachment row, in `AttachmentRow`'s order (as SQLite's `SELECT *`). */
export const ATTACHMENT_COLUMNS = 'id, fid, keyname, name, size, mime_type, description, file_meta, blob_id, fileobj'

const geometryOf = (wkb: Uint8Array | null): Geometry | null => (wkb ? readWkb(wkb) : null)

/** Reads of one layer inside one of its transactions, its history (reference §12) included, as SQLite's `LayerReader`. */
export class PgLayerReader implements FeatureRead, FeatureHistory {
  readonly t: LayerTables
  readonly cols: TableColumns

  /** `live` throws once the read or write this belongs to has ended. */
  constructor(readonly db: PgConn, readonly meta: LayerMeta, readonly live: () => void) {
    this.t = tablesOf(meta.resourceId)
    this.cols = ownColumns(meta.srs)
  }

  get history(): FeatureHistory {
    return this
  }

  async pastRequest(key: string): Promise<PastRequest | undefined> {
    this.live()
    return this.db.row<PastRequest>(`SELECT fingerprint, body FROM ${this.t.request} WHERE key = $1`, [key])
  }

  async list(q: FeatureQuery, shape: RowShape): Promise<FeatureRow[]> {
    this.live()
    const labelField = shape.label ? this.meta.fields.find((f) => f.label_field) : undefined
    const versioned = !!this.meta.versioning
    const p = new Params()
    // A past version (`?version=`): the features as they were, from the history (its placeholder first).
    const v = q.version !== undefined ? p.add(q.version) : undefined
    const cols = ['f.fid AS fid', `${shape.geom ? 'ST_AsBinary(f.geom)' : 'NULL::bytea'} AS geom`,
      ...shape.fields.map((f, i) => `${canonical(this.cols.field(f), f.datatype)} AS v${i}`)]
    if (labelField) cols.push(`${canonical(this.cols.field(labelField), labelField.datatype)} AS label`)
    if (shape.description) {
      cols.push(`${v ? descriptionAt(this.t, v) : `(SELECT value FROM ${this.t.description} d WHERE d.fid = f.fid)`} AS description`)
    }
    if (versioned) cols.push(`${v ? 'f.vid' : `(SELECT vid FROM ${this.t.vstate} s WHERE s.fid = f.fid)`} AS vid`)
    const source = v ? featuresAt(this.t, this.meta.fields, v) : this.t.features
    const sql = listSql(cols.join(', '), `${source} f`, whereSql(listFilter(q), this.meta.fields, this.cols, p), q, this.cols, p)
    const rows = await this.db.rows<Record<string, unknown>>(sql, p.values)
    return rows.map((r) => {
      const row: FeatureRow = { fid: r.fid as number, geom: geometryOf(r.geom as Uint8Array | null),
        values: shape.fields.map((f, i) => fromCanonical(f.datatype, r[`v${i}`])) }
      if (shape.label) row.label = labelField ? fromCanonical(labelField.datatype, r.label) : null
      if (shape.description) row.description = (r.description ?? null) as string | null
      if (versioned) row.vid = r.vid as number
      return row
    })
  }

  async count(filter?: FeatureFilter): Promise<number> {
    this.live()
    const p = new Params()
    return (await this.db.value<number>(`SELECT count(*) FROM ${this.t.features} f ${whereSql(filter, this.meta.fields, this.cols, p)}`,
      p.values))!
  }

  async extent(filter?: FeatureFilter): Promise<Bbox | null> {
    this.live()
    const p = new Params()
    // Per geometry's own box (box3d: doubles), as SQLite's reader takes the GeoPackage envelopes.
    const r = await this.db.row<{ x0: number | null; y0: number; x1: number; y1: number }>(
      `SELECT min(ST_XMin(f.geom)) AS x0, min(ST_YMin(f.geom)) AS y0, max(ST_XMax(f.geom)) AS x1, max(ST_YMax(f.geom)) AS y1
       FROM ${this.t.features} f ${whereSql(filter, this.meta.fields, this.cols, p)}`, p.values)
    if (!r || r.x0 === null) return null
    return [r.x0, r.y0, r.x1, r.y1]
  }

  async exists(fid: number): Promise<boolean> {
    this.live()
    return (await this.db.value(`SELECT 1 FROM ${this.t.features} WHERE fid = $1`, [fid])) !== undefined
  }

  async geometry(fid: number): Promise<Geometry | null | undefined> {
    this.live()
    const row = await this.db.row<{ g: Uint8Array | null }>(`SELECT ST_AsBinary(geom) AS g FROM ${this.t.features} WHERE fid = $1`, [fid])
    return row && geometryOf(row.g)
  }

  async attachments(fids?: number[]): Promise<Map<number, AttachmentRow[]>> {
    this.live()
    const out = new Map<number, AttachmentRow[]>()
    if (fids && !fids.length) return out
    const rows = await this.db.rows<AttachmentRow>(`SELECT ${ATTACHMENT_COLUMNS} FROM ${this.t.attachment}
      ${fids ? 'WHERE fid = ANY($1::bigint[])' : ''} ORDER BY id`, fids ? [fids] : [])
    for (const a of rows) {
      const list = out.get(a.fid)
      if (list) list.push(a)
      else out.set(a.fid, [a])
    }
    return out
  }

  async attachment(fid: number, aid: number): Promise<AttachmentRow | undefined> {
    this.live()
    return this.db.row<AttachmentRow>(`SELECT ${ATTACHMENT_COLUMNS} FROM ${this.t.attachment} WHERE id = $1 AND fid = $2`, [aid, fid])
  }

  async attachmentsAt(fids: number[], version: number): Promise<Map<number, AttachmentRow[]>> {
    this.live()
    return this.meta.versioning ? attachmentsAt(this.db, this.t, fids, version) : this.attachments(fids)
  }

  // Versioning (reference §12): the layer's history tables (history-schema.ts).

  async versioning(): Promise<VersioningState | undefined> {
    this.live()
    const v = this.meta.versioning
    if (!v) return undefined
    return { epoch: v.epoch, latest: await latestVersion(this.db, this.t) }
  }

  async featureVersion(fid: number): Promise<ItemVersion | undefined> {
    this.live()
    return itemVersion(this.db, this.t, fid)
  }

  async attachmentVersion(fid: number, aid: number): Promise<ItemVersion | undefined> {
    this.live()
    return itemVersion(this.db, this.t, fid, { ext: 'attachment', eid: aid })
  }

  async descriptionVersion(fid: number): Promise<ItemVersion | undefined> {
    this.live()
    return itemVersion(this.db, this.t, fid, { ext: 'description', eid: fid })
  }

  async changedFids(initial: number, target: number, after: number | null, limit: number): Promise<number[]> {
    this.live()
    return changedFids(this.db, this.t, initial, target, after, limit)
  }

  async changes(q: ChangesQuery): Promise<ChangeOp[]> {
    this.live()
    return changes(this.db, this.t, this.meta.fields, q)
  }

  async summary(initial: number, target: number): Promise<VersionSummary> {
    this.live()
    return summary(this.db, this.t, this.meta.fields, initial, target)
  }

  async versionRecord(vid: number): Promise<VersionRecord | undefined> {
    this.live()
    return versionOf(this.db, this.t, vid)
  }

  async versions(q: VersionListQuery): Promise<VersionRecord[]> {
    this.live()
    return listVersions(this.db, this.t, q)
  }

  async attachmentBlob(aid: number, fileobj: number): Promise<string | undefined> {
    this.live()
    return this.db.value<string>(`SELECT blob_id FROM ${this.t.attachmentFile} WHERE id = $1 AND aid = $2`, [fileobj, aid])
  }

  async transaction(tid: number): Promise<TransactionRecord | undefined> {
    this.live()
    return getTransaction(this.db, this.t, tid)
  }

  async transactionOps(tid: number): Promise<TransactionOp[]> {
    this.live()
    return transactionOps(this.db, this.t, tid)
  }

  async transactionResults(tid: number): Promise<[number, string][]> {
    this.live()
    return transactionResults(this.db, this.t, tid)
  }
}
