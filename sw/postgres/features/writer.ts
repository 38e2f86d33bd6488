/**
 * @module postgres/features/writer
 * The write side of a layer's feature port on PostGIS (`FeatureWrite`), inside one transaction
 * of the layer (layer.ts). Set-based: a batch of new features is one INSERT of arrays
 * (`unnest`) returning the fids in input order, a delete takes its attachments' rows and files in
 * one statement. Same answers as SQLite's writer (sqlite/features/writer.ts): fids past every
 * fid the table ever had, an attachment's replaced or removed files orphans once this commits
 * (kept instead on a versioned layer, whose history refers to them), a keyed write's answer
 * recorded in the same transaction. On a versioned layer the write is one version
 * (tracker.ts) and the stored transactions live beside it (transactions.ts).
 */
import { changesFeature } from '../../feature/input.ts'
import type {
  AttachmentFields, AttachmentFile, AttachmentRow, FeatureHistoryWrite, FeatureInput, FeatureUpdate, FeatureWrite, Field, LayerMeta,
} from '../../feature/types.ts'
import type { TransactionRecord } from '../../feature/history-types.ts'
import type { PgConn } from '../conn.ts'
import { PgLayerReader } from './reader.ts'
import { Params } from './filter.ts'
import { COLUMN_TYPES, columnOf } from './schema.ts'
import { arrayLiteral, geomOf, wkbColumn } from './columns.ts'
import { PgVersionTracker } from './tracker.ts'
import * as txn from './transactions.ts'

/** The fields any of `inputs` sets, in the order they first appear: the columns of their one INSERT. */
export function fieldsSet(inputs: readonly FeatureInput[]): Field[] {
  const fields: Field[] = []
  const seen = new Set<number>()
  let last: readonly Field[] | undefined
  for (const i of inputs) {
    // Inputs that set every field share one array: look at each distinct list once.
    if (i.fields === last) continue
    last = i.fields
    for (const f of i.fields) if (!seen.has(f.id)) { seen.add(f.id); fields.push(f) }
  }
  return fields
}

/** Which columns a change sets: changes of one shape share an UPDATE. */
const shapeOf = (input: FeatureInput) => `${input.geom !== undefined ? 'g' : ''}:${input.fields.map((f) => f.id).join(',')}`

/** How long a keyed write's answer is kept, in seconds (clients retry within minutes, not days). */
const KEEP = 24 * 3600

export class PgLayerWriter extends PgLayerReader implements FeatureWrite, FeatureHistoryWrite {
  readonly orphanBlobs: string[] = []
  #request: { key: string; fingerprint: string; body: () => string } | undefined
  /** Records the write's version; absent when the layer keeps no versions. */
  readonly #tracker: PgVersionTracker | undefined

  /** `time`: the write's time, ISO to the second (the request log's and the version's clock, as SQLite's writer). */
  constructor(db: PgConn, meta: LayerMeta, live: () => void, readonly time: string, userId: number | null = null) {
    super(db, meta, live)
    this.#tracker = meta.versioning
      ? new PgVersionTracker(db, this.t, meta.fields.map((f) => `, ${columnOf(f.id)}`).join(''), userId, time) : undefined
  }

  get historyWrite(): FeatureHistoryWrite {
    return this
  }

  /** The version this write records (allocated at its first change); `undefined` before that or without versioning. */
  get version(): number | undefined {
    return this.#tracker?.version
  }

  async create(input: FeatureInput): Promise<number> {
    return (await this.createMany([input]))[0]!
  }

  /**
   * One INSERT for the whole batch: a column array per field any input sets (a field an input
   * leaves out is NULL, as its own insert would leave it), the identity giving fids in order.
   */
  async createMany(inputs: readonly FeatureInput[]): Promise<number[]> {
    this.live()
    if (!inputs.length) return []
    const fields = fieldsSet(inputs)
    const at = new Map(fields.map((f, k) => [f.id, k]))
    const columns = fields.map(() => new Array<unknown>(inputs.length).fill(null))
    const geoms = inputs.map((input, row) => {
      input.fields.forEach((f, k) => { columns[at.get(f.id)!]![row] = input.values[k] ?? null })
      return input.geom
    })
    const p = new Params()
    const wkb = wkbColumn(geoms)
    const arrays = [`${p.add(wkb.offsets)}::int[]`, `${p.add(wkb.lengths)}::int[]`,
      ...fields.map((f, k) => `${p.add(arrayLiteral(columns[k]!))}::${COLUMN_TYPES[f.datatype]}[]`)]
    const names = fields.map((_, k) => `c${k}`)
    const insert = `INSERT INTO ${this.t.features} (geom${fields.map((f) => `, ${columnOf(f.id)}`).join('')})
      SELECT ${geomOf(p.add(wkb.bytes), 'u.o', 'u.l', p.add(this.meta.srs))}${names.map((n) => `, u.${n}`).join('')}
      FROM unnest(${arrays.join(', ')}) AS u(o, l${names.map((n) => `, ${n}`).join('')}) RETURNING fid`
    // On a versioned layer the version and the features' `_vstate` rows come in the same statement.
    const fids = this.#tracker ? await this.#tracker.insertCreated(insert, p)
      : (await this.db.rows<{ fid: number }>(insert, p.values)).map((r) => r.fid)
    const described = inputs.map((input, k) => [fids[k]!, input.description] as const).filter(([, d]) => !!d)
    if (described.length) {
      await this.db.exec(`INSERT INTO ${this.t.description} (fid, value) SELECT * FROM unnest($1::bigint[], $2::text[])`,
        [described.map(([fid]) => fid), described.map(([, d]) => d)])
    }
    await this.#tracker?.described(described.map(([fid]) => fid))
    return fids
  }

  async update(fid: number, input: FeatureInput): Promise<boolean> {
    return (await this.updateMany([{ fid, input }]))[0]!
  }

  /**
   * A batch of changes in a few statements, whatever its length: which features are there (one
   * query), their history (two, on a versioned layer), one UPDATE from arrays per run of changes
   * that set the same columns (a feature changed again starts a new run, so its later change wins
   * as it would one by one), the descriptions that change in two more. A pulled page of 10,000
   * updates was 4–6 statements per feature.
   */
  async updateMany(items: readonly FeatureUpdate[]): Promise<boolean[]> {
    this.live()
    if (!items.length) return []
    // One run of changes (an edit): which features are there, the history and the UPDATE in one statement.
    const one = shapeOf(items[0]!.input)
    if (new Set(items.map((i) => i.fid)).size === items.length && items.every((i) => changesFeature(i.input) && shapeOf(i.input) === one)) {
      const p = new Params()
      const update = this.#updateSql(items, p)
      const fids = items.map((i) => i.fid)
      const there = this.#tracker ? await this.#tracker.updateRecorded(fids, update, p)
        : new Set((await this.db.rows<{ fid: number }>(`WITH there AS (SELECT fid FROM ${this.t.features}
            WHERE fid = ANY(${p.add(arrayLiteral(fids))}::bigint[])), changed AS (${update}) SELECT fid FROM there`, p.values)).map((r) => r.fid))
      await this.#descriptions(items.filter((i) => there.has(i.fid) && i.input.description !== undefined))
      return items.map((i) => there.has(i.fid))
    }
    const there = new Set((await this.db.rows<{ fid: number }>(`SELECT fid FROM ${this.t.features} WHERE fid = ANY($1::bigint[])`,
      [[...new Set(items.map((i) => i.fid))]])).map((r) => r.fid))
    const todo = items.filter((i) => there.has(i.fid))
    // A feature whose extensions alone change keeps its own version.
    await this.#tracker?.beforeUpdates([...new Set(todo.filter((i) => changesFeature(i.input)).map((i) => i.fid))])
    let run: FeatureUpdate[] = []
    let inRun = new Set<number>()
    let shape = ''
    for (const item of todo) {
      const s = shapeOf(item.input)
      if (s !== shape || inRun.has(item.fid)) {
        await this.#updateRun(run)
        run = []
        inRun = new Set()
        shape = s
      }
      run.push(item)
      inRun.add(item.fid)
    }
    await this.#updateRun(run)
    await this.#descriptions(todo.filter((i) => i.input.description !== undefined))
    return items.map((i) => there.has(i.fid))
  }

  /** One UPDATE for changes that all set the same columns, each feature once: the values travel as arrays. */
  async #updateRun(run: readonly FeatureUpdate[]): Promise<void> {
    const first = run[0]?.input
    if (!first || !changesFeature(first)) return
    const p = new Params()
    await this.db.exec(this.#updateSql(run, p), p.values)
  }

  /** The UPDATE of `#updateRun`, its values added to `p`. */
  #updateSql(run: readonly FeatureUpdate[], p: Params): string {
    const first = run[0]!.input
    const arrays = [`${p.add(arrayLiteral(run.map((i) => i.fid)))}::bigint[]`]
    const names = ['fid']
    const sets: string[] = []
    if (first.geom !== undefined) {
      const wkb = wkbColumn(run.map((i) => i.input.geom))
      arrays.push(`${p.add(wkb.offsets)}::int[]`, `${p.add(wkb.lengths)}::int[]`)
      names.push('o', 'l')
      sets.push(`geom = ${geomOf(p.add(wkb.bytes), 'u.o', 'u.l', p.add(this.meta.srs))}`)
    }
    first.fields.forEach((f, k) => {
      arrays.push(`${p.add(arrayLiteral(run.map((i) => i.input.values[k] ?? null)))}::${COLUMN_TYPES[f.datatype]}[]`)
      names.push(`c${k}`)
      sets.push(`${columnOf(f.id)} = u.c${k}`)
    })
    return `UPDATE ${this.t.features} AS f SET ${sets.join(', ')} FROM unnest(${arrays.join(', ')}) AS u(${names.join(', ')})
      WHERE f.fid = u.fid`
  }

  /**
   * The descriptions a batch sets ('' or null: removes). On a versioned layer the same value
   * again changes nothing and makes no version of the description; a feature described twice in
   * one batch goes one by one, so each step is versioned as it would be alone.
   */
  async #descriptions(items: readonly FeatureUpdate[]): Promise<void> {
    if (!items.length) return
    const value = new Map(items.map((i) => [i.fid, i.input.description || null]))
    if (value.size < items.length) {
      for (const i of items) await this.#description(i.fid, i.input)
      return
    }
    let changed = [...value.keys()]
    if (this.#tracker) {
      const now = new Map((await this.db.rows<{ fid: number; value: string }>(`SELECT fid, value FROM ${this.t.description}
        WHERE fid = ANY($1::bigint[])`, [changed])).map((r) => [r.fid, r.value]))
      changed = changed.filter((fid) => (now.get(fid) ?? null) !== value.get(fid))
      for (const fid of changed) await this.#tracker.beforeDescription(fid)
    }
    const removed = changed.filter((fid) => value.get(fid) === null)
    const set = changed.filter((fid) => value.get(fid) !== null)
    if (removed.length) await this.db.exec(`DELETE FROM ${this.t.description} WHERE fid = ANY($1::bigint[])`, [removed])
    if (set.length) {
      await this.db.exec(`INSERT INTO ${this.t.description} (fid, value) SELECT * FROM unnest($1::bigint[], $2::text[])
        ON CONFLICT (fid) DO UPDATE SET value = excluded.value`, [set, set.map((fid) => value.get(fid))])
    }
  }

  /** One feature's description, as `#descriptions` does it for many. */
  async #description(fid: number, input: FeatureInput): Promise<void> {
    if (input.description === undefined) return
    if (this.#tracker) {
      // The same value again changes nothing, and makes no version of the description.
      const now = await this.db.value(`SELECT value FROM ${this.t.description} WHERE fid = $1`, [fid]) ?? null
      if (now === (input.description || null)) return
      await this.#tracker.beforeDescription(fid)
    }
    if (!input.description) await this.db.exec(`DELETE FROM ${this.t.description} WHERE fid = $1`, [fid])
    else {
      await this.db.exec(`INSERT INTO ${this.t.description} (fid, value) VALUES ($1, $2)
        ON CONFLICT (fid) DO UPDATE SET value = excluded.value`, [fid, input.description])
    }
  }

  async delete(fid: number): Promise<boolean> {
    this.live()
    if (this.#tracker) {
      if (!(await this.exists(fid))) return false
      // With history, the attachments keep their files (the history refers to them): their rows
      // go with the feature (ON DELETE CASCADE), nothing becomes an orphan.
      await this.#tracker.beforeDelete((p) => `f.fid = ${p.add(fid)}`)
    } else {
      await this.#dropAttachments('WHERE fid = $1', [fid])
    }
    return await this.db.exec(`DELETE FROM ${this.t.features} WHERE fid = $1`, [fid]) > 0
  }

  async deleteAll(): Promise<void> {
    this.live()
    if (this.#tracker) await this.#tracker.beforeDelete(() => 'true')
    else await this.#dropAttachments('', [])
    await this.db.exec(`DELETE FROM ${this.t.description}`)
    await this.db.exec(`DELETE FROM ${this.t.features}`)
  }

  async beforeUpdates(fids: number[]): Promise<void> {
    this.live()
    await this.#tracker?.beforeUpdates(fids)
  }

  async restore(fid: number, input: FeatureInput): Promise<boolean> {
    this.live()
    if (!(await this.#tracker?.restore(fid))) return false
    return this.update(fid, input)
  }

  /** Deletes the attachments `where` selects with their files; their blobs become orphans. */
  async #dropAttachments(where: string, params: unknown[]): Promise<void> {
    const rows = await this.db.rows<{ blob_id: string }>(`WITH a AS (DELETE FROM ${this.t.attachment} ${where} RETURNING id, blob_id),
      f AS (DELETE FROM ${this.t.attachmentFile} WHERE aid IN (SELECT id FROM a))
      SELECT blob_id FROM a ORDER BY id`, params)
    for (const r of rows) this.orphanBlobs.push(r.blob_id)
  }

  async addAttachment(fid: number, f: AttachmentFields, file: AttachmentFile): Promise<number> {
    this.live()
    // The file's id (`fileobj`) is taken first, so the attachment and its file row go in one statement.
    const aid = (await this.db.value<number>(`WITH o AS (SELECT nextval(pg_get_serial_sequence($9, 'id')) AS fileobj),
        a AS (INSERT INTO ${this.t.attachment} (fid, keyname, name, size, mime_type, description, file_meta, blob_id, fileobj)
          SELECT $1::bigint, $2::text, $3::text, $4::bigint, $5::text, $6::text, $7::text, $8::text, fileobj FROM o RETURNING id, fileobj, blob_id)
      INSERT INTO ${this.t.attachmentFile} (id, aid, blob_id) SELECT fileobj, id, blob_id FROM a RETURNING aid`,
    [fid, f.keyname ?? null, f.name ?? null, file.size, f.mime_type!, f.description ?? null, JSON.stringify(file.fileMeta),
      file.blobId, this.t.attachmentFile]))!
    await this.#tracker?.attachmentAdded(aid, fid)
    return aid
  }

  async changeAttachment(row: AttachmentRow, f: AttachmentFields, file?: AttachmentFile): Promise<void> {
    this.live()
    await this.#tracker?.attachmentChanged(row.id)
    const p = new Params()
    const sets: string[] = []
    for (const key of ['name', 'keyname', 'mime_type', 'description'] as const) {
      if (f[key] !== undefined) sets.push(`${key} = ${p.add(f[key])}`)
    }
    if (file) {
      if (!this.#tracker) await this.#orphanFiles(row.id)
      const fileobj = await this.db.value<number>(`INSERT INTO ${this.t.attachmentFile} (aid, blob_id) VALUES ($1, $2) RETURNING id`,
        [row.id, file.blobId])
      sets.push(`size = ${p.add(file.size)}`, `file_meta = ${p.add(JSON.stringify(file.fileMeta))}`, `blob_id = ${p.add(file.blobId)}`,
        `fileobj = ${p.add(fileobj)}`)
    }
    if (sets.length) await this.db.exec(`UPDATE ${this.t.attachment} SET ${sets.join(', ')} WHERE id = ${p.add(row.id)}`, p.values)
  }

  async removeAttachment(row: AttachmentRow): Promise<void> {
    this.live()
    if (this.#tracker) await this.#tracker.extBefore('attachment', (p) => `r.eid = ${p.add(row.id)}`, 'D')
    else await this.#orphanFiles(row.id)
    await this.db.exec(`DELETE FROM ${this.t.attachment} WHERE id = $1`, [row.id])
  }

  /** Without history, an attachment's files go once this commits. */
  async #orphanFiles(aid: number): Promise<void> {
    const rows = await this.db.rows<{ blob_id: string }>(`DELETE FROM ${this.t.attachmentFile} WHERE aid = $1 RETURNING blob_id`, [aid])
    for (const r of rows) this.orphanBlobs.push(r.blob_id)
  }

  // Stored transactions (reference §12): `transactions.ts`.

  async startTransaction(userId: number, epoch: number | null, started: string): Promise<TransactionRecord> {
    this.live()
    return txn.startTransaction(this.db, this.t, userId, epoch, started)
  }

  async putTransactionOps(tid: number, items: { seqnum: number; payload: string | null }[]): Promise<number | undefined> {
    this.live()
    return txn.putTransactionOps(this.db, this.t, tid, items)
  }

  async setTransactionErrors(tid: number, errors: [number, string][]): Promise<void> {
    this.live()
    await txn.setTransactionErrors(this.db, this.t, tid, errors)
  }

  async commitTransaction(tid: number, committed: string, results: [number, string][]): Promise<void> {
    this.live()
    await txn.commitTransaction(this.db, this.t, tid, committed, results)
  }

  async disposeTransaction(tid: number): Promise<void> {
    this.live()
    await txn.disposeTransaction(this.db, this.t, tid)
  }

  recordRequest(key: string, fingerprint: string, body: () => string): void {
    this.live()
    this.#request = { key, fingerprint, body }
  }

  /** Last statements before COMMIT: the keyed write's answer, now that the write has finished. */
  async finish(): Promise<void> {
    const req = this.#request
    if (!req) return
    const now = Math.floor(Date.parse(`${this.time}Z`) / 1000)
    await this.db.exec(`DELETE FROM ${this.t.request} WHERE tstamp < $1`, [now - KEEP])
    await this.db.exec(`INSERT INTO ${this.t.request} (key, fingerprint, tstamp, body) VALUES ($1, $2, $3, $4)`,
      [req.key, req.fingerprint, now, req.body()])
  }
}
