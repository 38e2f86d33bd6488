/**
 * @module sqlite/features/writer
 * The write side of a vector layer's feature-layer capability, inside one layer transaction
 * (one new version of a versioned layer: `tracker.ts`). Statements are prepared once per
 * shape and new features are inserted in bulk, so a batch of thousands costs one parse per
 * distinct field set.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { SqlDb } from '../../store/database.ts'
import type { Bbox, Geometry } from '../../geo/geometry.ts'
import { encodeGpkg, gpkgBbox, gpkgSize, writeGpkg } from '../../geo/gpkg.ts'
import { rtreeBulkInsert, rtreeSize } from '../rtree.ts'
import { bindValues, insertMany, type BlobSource, type BulkValue } from '../../store/bulk.ts'
import type {
  AttachmentFields, AttachmentFile, AttachmentRow, FeatureHistoryWriteSync as FeatureHistoryWrite, FeatureInput,
  FeatureWriteSync as FeatureWrite, Field, FieldValue, LayerMeta,
} from '../../feature/types.ts'
import type { TransactionRecord } from '../../feature/history-types.ts'
import { columnOf, FEATURE_TABLE, RTREE_TABLE } from './schema.ts'
import { binding, LayerReader } from './reader.ts'
import { VersionTracker } from './tracker.ts'
import * as txn from './transactions.ts'
import type { Layer } from './layer.ts'
import { recordRequest } from '../../store/request-log.ts'

/** Fewest new boxes worth rebuilding the spatial index for. */
const BULK_INDEX_MIN = 256
/** Boxes beyond this stay with SQLite's own rounding at the float32 limits. */
const F32_SAFE = 1e38

/** A geometry as a GeoPackage blob written in place by `insertMany`. */
class GpkgSource implements BlobSource {
  readonly byteLength: number
  constructor(readonly g: Geometry, readonly srs: number) {
    this.byteLength = gpkgSize(g)
  }

  writeTo(view: DataView, at: number): void {
    writeGpkg(view, at, this.g, this.srs)
  }
}

/** Column names of a field list, made once per list (inputs that set every field share one). */
const COLUMNS = new WeakMap<readonly Field[], string[]>()
function columnsOf(fields: readonly Field[]): string[] {
  let cols = COLUMNS.get(fields)
  if (!cols) COLUMNS.set(fields, cols = fields.map((f) => columnOf(f.id)))
  return cols
}

function sameFields(a: readonly Field[], b: readonly Field[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i]!.id !== b[i]!.id) return false
  return true
}

type Pending = { fid: number; input: FeatureInput }

export class LayerWriter extends LayerReader implements FeatureWrite, FeatureHistoryWrite {
  #stmts = new Map<string, ReturnType<SqlDb['prepare']>>()
  #pending: Pending[] = []
  #nextFid: number | undefined
  /** Records the write's version; absent when the layer keeps no versions. */
  readonly #tracker: VersionTracker | undefined
  readonly orphanBlobs: string[] = []
  /** A keyed write's answer, recorded by `finish` (when the version is known). */
  #request: { key: string; fingerprint: string; body: () => string } | undefined

  constructor(db: SqlDb, layer: Layer, meta: LayerMeta, readonly time: string, readonly sqlite: Sqlite3Static,
    userId: number | null = null) {
    super(db, layer, meta)
    this.#tracker = meta.versioning
      ? new VersionTracker(db, (sql, bind) => this.#run(sql, bind), columnsOf(meta.fields), userId, time) : undefined
  }

  get historyWrite(): FeatureHistoryWrite {
    return this
  }

  get version(): number | undefined {
    return this.#tracker?.version
  }

  #stmt(sql: string): ReturnType<SqlDb['prepare']> {
    let st = this.#stmts.get(sql)
    if (!st) {
      st = this.db.prepare(sql)
      this.#stmts.set(sql, st)
    }
    return st
  }

  #run(sql: string, bind: FieldValue[]): void {
    const st = this.#stmt(sql)
    bindValues(this.sqlite, st, bind)
    st.stepReset()
  }

  /** The first column of the first row (through the statement cache). */
  #stmtValue(sql: string, bind: FieldValue[]): unknown {
    const st = this.#stmt(sql)
    try {
      bindValues(this.sqlite, st, bind)
      return st.step() ? st.get(0) : undefined
    } finally {
      st.reset()
    }
  }

  #rtree(fid: number, bbox: Bbox | null): void {
    if (bbox) this.#run(`INSERT OR REPLACE INTO ${RTREE_TABLE} VALUES (?, ?, ?, ?, ?)`, [fid, bbox[0], bbox[2], bbox[1], bbox[3]])
    else this.#run(`DELETE FROM ${RTREE_TABLE} WHERE id = ?`, [fid])
  }

  /**
   * Queues a new feature and returns its fid. Creates are inserted in bulk (see `#flush`):
   * fids are assigned here, past every fid the table ever had (AUTOINCREMENT's sequence).
   */
  create(input: FeatureInput): number {
    this.#nextFid ??= Number(this.db.selectValue(`SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = '${FEATURE_TABLE}'), 0),
      coalesce((SELECT max(fid) FROM ${FEATURE_TABLE}), 0))`)) + 1
    const fid = this.#nextFid++
    this.#pending.push({ fid, input })
    return fid
  }

  /**
   * Inserts the queued creates with one prepared statement per field set, bound through
   * `insertMany` (texts and geometry blobs written once into the WASM heap).
   */
  #flush(): void {
    if (!this.#pending.length) return
    const pending = this.#pending
    this.#pending = []
    const groups: { fields: readonly Field[]; items: Pending[] }[] = []
    let last: { fields: readonly Field[]; items: Pending[] } | undefined
    for (const p of pending) {
      // Rows of a batch mostly share their fields: compare with the previous row first.
      if (!last || !sameFields(last.fields, p.input.fields)) {
        last = groups.find((g) => sameFields(g.fields, p.input.fields))
        if (!last) groups.push(last = { fields: p.input.fields, items: [] })
      }
      last.items.push(p)
    }
    const srs = this.meta.srs
    for (const { fields, items } of groups) {
      const cols = columnsOf(fields)
      const rows = items.map(({ fid, input }) => {
        const row: BulkValue[] = [fid, input.geom ? new GpkgSource(input.geom, srs) : null]
        for (const v of input.values) row.push(v)
        return row
      })
      insertMany(this.sqlite, this.db, `INSERT INTO ${FEATURE_TABLE} (fid, geom${cols.map((c) => `, ${c}`).join('')})`, rows)
    }
    this.#indexCreated(pending)
    this.#tracker?.created(JSON.stringify(pending.map((p) => p.fid)))
    for (const { fid, input } of pending) if (input.description) this.#description(fid, input)
  }

  /**
   * Adds the new features' boxes to the spatial index. A batch at least a quarter the size
   * of the index rebuilds it packed in one go (`rtreeBulkInsert`): SQLite's row-by-row
   * R*Tree insert would spend most of the batch's time there.
   */
  #indexCreated(pending: Pending[]): void {
    const ids: number[] = []
    const boxes: number[] = []
    let inRange = true
    for (const { fid, input } of pending) {
      const b = input.bbox
      if (!b) continue
      ids.push(fid)
      boxes.push(b[0], b[1], b[2], b[3])
      inRange &&= Math.abs(b[0]) < F32_SAFE && Math.abs(b[1]) < F32_SAFE && Math.abs(b[2]) < F32_SAFE && Math.abs(b[3]) < F32_SAFE
    }
    if (!ids.length) return
    if (inRange && ids.length >= BULK_INDEX_MIN && ids.length * 4 >= rtreeSize(this.db, RTREE_TABLE)) {
      rtreeBulkInsert(this.sqlite, this.db, RTREE_TABLE, ids, boxes)
      return
    }
    insertMany(this.sqlite, this.db, `INSERT INTO ${RTREE_TABLE}`,
      ids.map((id, i) => [id, boxes[4 * i]!, boxes[4 * i + 2]!, boxes[4 * i + 1]!, boxes[4 * i + 3]!]))
  }

  /** Inserts the queued creates now (the sync bookkeeping reads their versions). */
  flush(): void {
    this.#flush()
  }

  override exists(fid: number): boolean {
    this.#flush()
    // Through the statement cache: batch updates and transaction commits ask once per feature.
    return this.#stmtValue(`SELECT 1 FROM ${FEATURE_TABLE} WHERE fid = ?`, [fid]) !== undefined
  }

  update(fid: number, input: FeatureInput): boolean {
    if (!this.exists(fid)) return false
    // Only the extensions change: the feature itself keeps its version.
    if (input.geom !== undefined || input.fields.length) this.#tracker?.beforeUpdate(fid)
    const sets = columnsOf(input.fields).map((c) => `${c} = ?`)
    const bind: FieldValue[] = [...input.values]
    if (input.geom !== undefined) {
      sets.unshift('geom = ?')
      bind.unshift(input.geom && encodeGpkg(input.geom, this.meta.srs))
      this.#rtree(fid, input.bbox ?? null)
    }
    if (sets.length) this.#run(`UPDATE ${FEATURE_TABLE} SET ${sets.join(', ')} WHERE fid = ?`, [...bind, fid])
    this.#description(fid, input)
    return true
  }

  delete(fid: number): boolean {
    if (!this.exists(fid)) return false
    this.#tracker?.beforeDelete('f.fid = ?', [fid])
    this.#collectBlobs(`fid = ?`, [fid])
    this.#run(`DELETE FROM ${FEATURE_TABLE} WHERE fid = ?`, [fid])
    this.#run(`DELETE FROM ${RTREE_TABLE} WHERE id = ?`, [fid])
    return true
  }

  beforeUpdates(fids: number[]): void {
    this.#flush()
    this.#tracker?.beforeUpdates(fids)
  }

  restore(fid: number, input: FeatureInput): boolean {
    this.#flush()
    if (!this.#tracker?.restore(fid)) return false
    const blob = this.db.selectValue(`SELECT geom FROM ${FEATURE_TABLE} WHERE fid = ?`, [fid])
    const box = blob instanceof Uint8Array ? gpkgBbox(blob) : null
    if (box) this.#rtree(fid, box)
    return this.update(fid, input)
  }

  deleteAll(): void {
    this.#flush()
    this.#tracker?.beforeDelete('1', [])
    this.#collectBlobs('1', [])
    this.db.exec(`DELETE FROM feature_description; DELETE FROM feature_attachment; DELETE FROM ${FEATURE_TABLE}; DELETE FROM ${RTREE_TABLE}`)
  }

  /** Blobs of attachments that go: orphans once this commits, unless history keeps them. */
  #collectBlobs(where: string, bind: FieldValue[]): void {
    if (this.#tracker) return
    for (const id of this.db.selectValues(`SELECT blob_id FROM feature_attachment WHERE ${where}`, binding(bind))) {
      this.orphanBlobs.push(String(id))
    }
    this.db.exec({ sql: `DELETE FROM attachment_file WHERE aid IN (SELECT id FROM feature_attachment WHERE ${where})`, bind: binding(bind) })
  }

  #description(fid: number, input: FeatureInput): void {
    if (input.description === undefined) return
    // The same value again changes nothing, and makes no version of the description.
    const now = this.#stmtValue(`SELECT value FROM feature_description WHERE fid = ?`, [fid]) ?? null
    if (now === (input.description || null)) return
    this.#tracker?.beforeDescription(fid)
    if (input.description === null || input.description === '') this.#run(`DELETE FROM feature_description WHERE fid = ?`, [fid])
    else this.#run(`INSERT OR REPLACE INTO feature_description (fid, value) VALUES (?, ?)`, [fid, input.description])
  }

  override attachments(fids?: number[]): Map<number, AttachmentRow[]> {
    this.#flush()
    return super.attachments(fids)
  }

  override attachment(fid: number, aid: number): AttachmentRow | undefined {
    this.#flush()
    return super.attachment(fid, aid)
  }

  addAttachment(fid: number, f: AttachmentFields, file: AttachmentFile): number {
    this.#flush()
    this.db.exec({ sql: `INSERT INTO feature_attachment (fid, keyname, name, size, mime_type, description, file_meta, blob_id)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, bind: [fid, f.keyname ?? null, f.name ?? null, file.size, f.mime_type!,
      f.description ?? null, JSON.stringify(file.fileMeta), file.blobId] })
    const aid = Number(this.db.selectValue('SELECT last_insert_rowid()'))
    this.db.exec({ sql: `UPDATE feature_attachment SET fileobj = ? WHERE id = ?`, bind: [this.#fileobj(aid, file.blobId), aid] })
    this.#tracker?.attachmentAdded(aid, fid)
    return aid
  }

  /** Records a new file of attachment `aid`; returns its `fileobj`. */
  #fileobj(aid: number, blobId: string): number {
    this.db.exec({ sql: `INSERT INTO attachment_file (aid, blob_id) VALUES (?, ?)`, bind: [aid, blobId] })
    return Number(this.db.selectValue('SELECT last_insert_rowid()'))
  }

  changeAttachment(row: AttachmentRow, f: AttachmentFields, file?: AttachmentFile): void {
    this.#tracker?.attachmentChanged(row.id)
    const sets: string[] = []
    const bind: (string | number | null)[] = []
    for (const key of ['name', 'keyname', 'mime_type', 'description'] as const) {
      if (f[key] === undefined) continue
      sets.push(`${key} = ?`)
      bind.push(f[key]!)
    }
    if (file) {
      if (!this.#tracker) this.#orphanFiles(row.id)
      sets.push('size = ?', 'file_meta = ?', 'blob_id = ?', 'fileobj = ?')
      bind.push(file.size, JSON.stringify(file.fileMeta), file.blobId, this.#fileobj(row.id, file.blobId))
    }
    if (sets.length) this.db.exec({ sql: `UPDATE feature_attachment SET ${sets.join(', ')} WHERE id = ?`, bind: [...bind, row.id] })
  }

  removeAttachment(row: AttachmentRow): void {
    this.#tracker?.extBefore('attachment', 'r.eid = ?', [row.id], 'D')
    if (!this.#tracker) this.#orphanFiles(row.id)
    this.db.exec({ sql: `DELETE FROM feature_attachment WHERE id = ?`, bind: [row.id] })
  }

  /** Without history, an attachment's old files go once this commits. */
  #orphanFiles(aid: number): void {
    for (const b of this.db.selectValues(`SELECT blob_id FROM attachment_file WHERE aid = ?`, [aid])) this.orphanBlobs.push(String(b))
    this.db.exec({ sql: `DELETE FROM attachment_file WHERE aid = ?`, bind: [aid] })
  }

  // Stored transactions (reference §12): `transactions.ts`.

  startTransaction(userId: number, epoch: number | null, started: string): TransactionRecord {
    return txn.startTransaction(this.db, userId, epoch, started)
  }

  putTransactionOps(tid: number, items: { seqnum: number; payload: string | null }[]): number | undefined {
    return txn.putTransactionOps(this.db, tid, items)
  }

  setTransactionErrors(tid: number, errors: [number, string][]): void {
    txn.setTransactionErrors(this.db, tid, errors)
  }

  commitTransaction(tid: number, committed: string, results: [number, string][]): void {
    this.#flush()
    txn.commitTransaction(this.db, tid, committed, results)
  }

  disposeTransaction(tid: number): void {
    txn.disposeTransaction(this.db, tid)
  }

  recordRequest(key: string, fingerprint: string, body: () => string): void {
    this.#request = { key, fingerprint, body }
  }

  /** Finalizes the prepared statements, records a keyed write's answer, marks the GeoPackage contents as changed. */
  finish(): void {
    this.#flush()
    this.abort()
    const req = this.#request
    if (req) recordRequest(this.db, req.key, req.fingerprint, req.body(), Math.floor(Date.parse(`${this.time}Z`) / 1000))
    this.db.exec({ sql: `UPDATE gpkg_contents SET last_change = ? WHERE table_name = ?`, bind: [`${this.time}Z`, FEATURE_TABLE] })
  }

  abort(): void {
    for (const st of this.#stmts.values()) st.finalize()
    this.#stmts.clear()
  }
}
