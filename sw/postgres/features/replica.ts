/**
 * @module postgres/features/replica
 * The sync bookkeeping of a PostGIS layer linked to a remote layer (sync/types.ts `Replica`), in
 * tables beside `layer_<id>` with the meanings of SQLite's (sqlite/features/replica.ts), so both
 * answer alike:
 * - `_sync_meta`: the link's state (versions pulled up to, a pull or push in flight) and history,
 *   as JSON text (not jsonb, which would reorder the keys);
 * - `_sync_fid` / `_sync_aid`: which local feature/attachment is which remote one, and the local
 *   version each was at when both sides last matched (`base`);
 * - `_sync_conflict`: features changed on both sides, both versions kept;
 * - `_sync_problem`: remote features the pull could not take, and why.
 * Reads and writes run in the layer's own transactions (layer.ts: a write under the layer's
 * advisory lock), so a pulled change and its bookkeeping, or a push's results and the marks they
 * leave, are one commit, and the pending push recorded before a remote commit is what any
 * process's next round reads. Every statement is set-based and parameterised.
 */
import type { FeatureRead, FeatureWrite, LayerMeta, WriteActor } from '../../feature/types.ts'
import type {
  AttachmentMapping, Conflict, Link, LinkState, LocalAttachmentChange, LocalChange, LocalRecord, MapItem, Mapping, Problem, Replica,
  ReplicaRead, ReplicaWrite, SyncReport,
} from '../../sync/types.ts'
import type { PgConn } from '../conn.ts'
import type { PgFeatureLayer } from './layer.ts'
import type { ReplicaTables } from './replica-schema.ts'

/** How many sync reports a layer keeps (as SQLite's). */
const HISTORY_KEEP = 20

/** What the bookkeeping's statements name: its tables and the layer's own. */
type Tables = ReplicaTables & { vstate: string; extVstate: string; attachment: string }

type MappingRow = { fid: number; rfid: number; rvid: number | null; base: number; dbase: number; rhash: string | null }
type AttachmentMappingRow = { aid: number; raid: number; fid: number; base: number; lfileobj: number | null; rfileobj: number | null }
type ConflictRow = { id: number; fid: number; rfid: number; kind: Conflict['kind']; local: string | null; remote: string | null;
  rvid: number | null; created: string }

const MAPPING = `m.fid, m.rfid, m.rvid, m.base, m.dbase, m.rhash`
const asMapping = (r: MappingRow): Mapping => ({ fid: r.fid, rfid: r.rfid, rvid: r.rvid, base: r.base, dbase: r.dbase, rhash: r.rhash })
const ATTACHMENT = `aid, raid, fid, base, lfileobj, rfileobj`
const asAttachment = (r: AttachmentMappingRow): AttachmentMapping =>
  ({ aid: r.aid, raid: r.raid, fid: r.fid, base: r.base, lfileobj: r.lfileobj, rfileobj: r.rfileobj })
const CONFLICT = `id, fid, rfid, kind, local, remote, rvid, created`
const asConflict = (r: ConflictRow): Conflict => ({ id: r.id, fid: r.fid, rfid: r.rfid, kind: r.kind,
  local: r.local === null ? null : JSON.parse(r.local), remote: r.remote === null ? null : JSON.parse(r.remote), rvid: r.rvid,
  created: r.created })
const json = (v: unknown) => (v === null ? null : JSON.stringify(v))

/** The bookkeeping inside one transaction of the layer (a read's snapshot, or a write under its lock). */
export class PgReplicaTx implements ReplicaWrite {
  /**
   * Features with an open conflict wait for a person, and those whose remote state could not be
   * taken wait for it to be fixed there: nothing of them is pushed (SQLite's `NOT_HELD`).
   */
  readonly #notHeld: string

  /** `now`: the time conflicts and problems are stamped with, ISO to the second (the layer's clock). */
  constructor(readonly db: PgConn, readonly t: Tables, readonly now: () => string, readonly live: () => void = () => {}) {
    this.#notHeld = `s.fid NOT IN (SELECT fid FROM ${t.syncConflict})
      AND s.fid NOT IN (SELECT fid FROM ${t.syncProblem} WHERE fid IS NOT NULL)`
  }

  async #meta<T>(key: string): Promise<T | undefined> {
    this.live()
    const v = await this.db.value<string>(`SELECT value FROM ${this.t.syncMeta} WHERE key = $1`, [key])
    return v === undefined ? undefined : JSON.parse(v) as T
  }

  async #setMeta(key: string, value: unknown): Promise<void> {
    this.live()
    await this.db.exec(`INSERT INTO ${this.t.syncMeta} (key, value) VALUES ($1, $2)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [key, JSON.stringify(value)])
  }

  state(): Promise<LinkState | undefined> {
    return this.#meta<LinkState>('state')
  }

  async history(): Promise<SyncReport[]> {
    return await this.#meta<SyncReport[]>('history') ?? []
  }

  async #mapping(where: string, v: number): Promise<Mapping | undefined> {
    this.live()
    const r = await this.db.row<MappingRow>(`SELECT ${MAPPING} FROM ${this.t.syncFid} m WHERE ${where} = $1`, [v])
    return r && asMapping(r)
  }

  mapping(fid: number): Promise<Mapping | undefined> {
    return this.#mapping('m.fid', fid)
  }

  localOf(rfid: number): Promise<Mapping | undefined> {
    return this.#mapping('m.rfid', rfid)
  }

  async mappingsOf(fids: number[]): Promise<Map<number, Mapping>> {
    this.live()
    const rows = await this.db.rows<MappingRow>(`SELECT ${MAPPING} FROM unnest($1::bigint[]) AS j (fid) JOIN ${this.t.syncFid} m ON m.fid = j.fid`,
      [fids])
    return new Map(rows.map((r) => [r.fid, asMapping(r)]))
  }

  /** One query for all of `rfids`, in their order. */
  async localsOf(rfids: number[]): Promise<Map<number, LocalRecord>> {
    this.live()
    const out = new Map<number, LocalRecord>()
    const { t } = this
    const rows = await this.db.rows<MappingRow & { vid: number | null; op: string | null; dvid: number; conflicted: boolean }>(
      `SELECT ${MAPPING}, s.vid, s.op, coalesce(d.vid, 0) AS dvid, EXISTS (SELECT 1 FROM ${t.syncConflict} c WHERE c.fid = m.fid) AS conflicted
      FROM unnest($1::bigint[]) WITH ORDINALITY AS j (rfid, n) JOIN ${t.syncFid} m ON m.rfid = j.rfid
      LEFT JOIN ${t.vstate} s ON s.fid = m.fid LEFT JOIN ${t.extVstate} d ON d.ext = 'description' AND d.eid = m.fid ORDER BY j.n`,
      [rfids])
    for (const r of rows) {
      out.set(r.rfid, { mapping: asMapping(r), vid: r.vid ?? 0, deleted: r.op !== 'C' && r.op !== 'U' && r.op !== 'R', dvid: r.dvid,
        conflicted: r.conflicted })
    }
    return out
  }

  async mappings(): Promise<Mapping[]> {
    this.live()
    return (await this.db.rows<MappingRow>(`SELECT ${MAPPING} FROM ${this.t.syncFid} m ORDER BY m.fid`)).map(asMapping)
  }

  async #attachment(where: string, v: number): Promise<AttachmentMapping | undefined> {
    this.live()
    const r = await this.db.row<AttachmentMappingRow>(`SELECT ${ATTACHMENT} FROM ${this.t.syncAid} WHERE ${where} = $1`, [v])
    return r && asAttachment(r)
  }

  attachmentMapping(aid: number): Promise<AttachmentMapping | undefined> {
    return this.#attachment('aid', aid)
  }

  async attachmentMappings(): Promise<AttachmentMapping[]> {
    this.live()
    return (await this.db.rows<AttachmentMappingRow>(`SELECT ${ATTACHMENT} FROM ${this.t.syncAid} ORDER BY aid`)).map(asAttachment)
  }

  localAttachmentOf(raid: number): Promise<AttachmentMapping | undefined> {
    return this.#attachment('raid', raid)
  }

  async localAttachmentsOf(raids: number[]): Promise<Map<number, AttachmentMapping>> {
    this.live()
    const rows = await this.db.rows<AttachmentMappingRow>(`SELECT m.aid, m.raid, m.fid, m.base, m.lfileobj, m.rfileobj
      FROM unnest($1::bigint[]) WITH ORDINALITY AS j (raid, n) JOIN ${this.t.syncAid} m ON m.raid = j.raid ORDER BY j.n`, [raids])
    return new Map(rows.map((r) => [r.raid, asAttachment(r)]))
  }

  async descriptionVid(fid: number): Promise<number> {
    this.live()
    return await this.db.value<number>(`SELECT vid FROM ${this.t.extVstate} WHERE ext = 'description' AND eid = $1`, [fid]) ?? 0
  }

  async localChanges(): Promise<LocalChange[]> {
    this.live()
    const { t } = this
    const out: LocalChange[] = (await this.db.rows<{ fid: number; vid: number; dvid: number }>(`SELECT s.fid, s.vid,
        coalesce((SELECT d.vid FROM ${t.extVstate} d WHERE d.ext = 'description' AND d.eid = s.fid), 0) AS dvid
      FROM ${t.vstate} s LEFT JOIN ${t.syncFid} m ON m.fid = s.fid WHERE m.fid IS NULL AND s.op <> 'D' AND ${this.#notHeld} ORDER BY s.fid`))
      .map((r) => ({ fid: r.fid, kind: 'create', vid: r.vid, dvid: r.dvid }))
    const mapped = await this.db.rows<MappingRow & { vid: number; op: string; dvid: number }>(`SELECT ${MAPPING}, s.vid, s.op,
        coalesce((SELECT d.vid FROM ${t.extVstate} d WHERE d.ext = 'description' AND d.eid = m.fid), 0) AS dvid
      FROM ${t.syncFid} m JOIN ${t.vstate} s ON s.fid = m.fid WHERE ${this.#notHeld} ORDER BY m.fid`)
    for (const r of mapped) {
      const mapping = asMapping(r)
      if (r.vid !== mapping.base) out.push({ fid: mapping.fid, kind: r.op === 'D' ? 'delete' : 'update', vid: r.vid, dvid: r.dvid, mapping })
      else if (r.dvid !== mapping.dbase && r.op !== 'D') out.push({ fid: mapping.fid, kind: 'description', vid: r.dvid, dvid: r.dvid, mapping })
    }
    return out
  }

  async localAttachmentChanges(): Promise<LocalAttachmentChange[]> {
    this.live()
    const { t } = this
    const rows = await this.db.rows<{ eid: number; fid: number; vid: number; op: string; fileobj: number | null } & Partial<AttachmentMappingRow>>(
      `SELECT s.eid, s.fid, s.vid, s.op, a.fileobj, m.aid, m.raid, m.base, m.lfileobj, m.rfileobj
        FROM ${t.extVstate} s LEFT JOIN ${t.syncAid} m ON m.aid = s.eid LEFT JOIN ${t.attachment} a ON a.id = s.eid
        WHERE s.ext = 'attachment' AND ((m.aid IS NULL AND s.op <> 'D') OR s.vid <> m.base) AND ${this.#notHeld}
        ORDER BY s.eid`)
    return rows.map((r) => {
      const mapped = r.aid !== null
      const kind = !mapped ? 'create' : r.op === 'D' ? 'delete' : 'update'
      return { aid: r.eid, fid: r.fid, kind, vid: r.vid, fileChanged: !mapped || r.fileobj !== r.lfileobj,
        mapping: mapped ? asAttachment({ aid: r.aid!, raid: r.raid!, fid: r.fid, base: r.base!, lfileobj: r.lfileobj!, rfileobj: r.rfileobj! })
          : undefined } satisfies LocalAttachmentChange
    })
  }

  async conflicts(): Promise<Conflict[]> {
    this.live()
    return (await this.db.rows<ConflictRow>(`SELECT ${CONFLICT} FROM ${this.t.syncConflict} ORDER BY id`)).map(asConflict)
  }

  async conflict(id: number): Promise<Conflict | undefined> {
    this.live()
    const r = await this.db.row<ConflictRow>(`SELECT ${CONFLICT} FROM ${this.t.syncConflict} WHERE id = $1`, [id])
    return r && asConflict(r)
  }

  async problems(): Promise<Problem[]> {
    this.live()
    return this.db.rows<Problem>(`SELECT rfid, fid, reason, since FROM ${this.t.syncProblem} ORDER BY rfid`)
  }

  setState(state: LinkState): Promise<void> {
    return this.#setMeta('state', state)
  }

  async addHistory(report: SyncReport): Promise<void> {
    await this.#setMeta('history', [report, ...await this.history()].slice(0, HISTORY_KEEP))
  }

  map(fid: number, rfid: number, rvid: number | null, at?: { vid: number; dvid?: number }, rhash: string | null = null): Promise<void> {
    return this.mapMany([{ fid, rfid, rvid, rhash, at }])
  }

  /**
   * `map` of many features in two statements, whatever their number: the versions each was
   * matched at travel as arrays (NULL: the current one, read in the statement).
   */
  async mapMany(items: MapItem[]): Promise<void> {
    this.live()
    if (!items.length) return
    const { t } = this
    const arrays = [items.map((i) => i.fid), items.map((i) => i.rfid), items.map((i) => i.rvid), items.map((i) => i.rhash),
      items.map((i) => i.at?.vid ?? null), items.map((i) => i.at?.dvid ?? null)]
    await this.db.exec(`DELETE FROM ${t.syncFid} m USING unnest($1::bigint[], $2::bigint[]) AS u (fid, rfid)
      WHERE m.rfid = u.rfid AND m.fid <> u.fid`, arrays.slice(0, 2))
    await this.db.exec(`INSERT INTO ${t.syncFid} (fid, rfid, rvid, base, dbase, rhash)
      SELECT u.fid, u.rfid, u.rvid, coalesce(u.vid, (SELECT vid FROM ${t.vstate} WHERE fid = u.fid), 0),
        coalesce(u.dvid, (SELECT vid FROM ${t.extVstate} WHERE ext = 'description' AND eid = u.fid), 0), u.rhash
      FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::text[], $5::bigint[], $6::bigint[]) AS u (fid, rfid, rvid, rhash, vid, dvid)
      ON CONFLICT (fid) DO UPDATE SET rfid = excluded.rfid, rvid = excluded.rvid, base = excluded.base,
        dbase = excluded.dbase, rhash = coalesce(excluded.rhash, ${t.syncFid}.rhash)`, arrays)
  }

  async relock(fid: number, rvid: number | null, rhash: string | null = null): Promise<void> {
    await this.relockMany([{ fid, rvid, rhash }])
  }

  /** One UPDATE from arrays, whatever the number of features. */
  async relockMany(items: { fid: number; rvid: number | null; rhash: string | null }[]): Promise<void> {
    this.live()
    if (!items.length) return
    await this.db.exec(`UPDATE ${this.t.syncFid} m SET rvid = u.rvid, rhash = coalesce(u.rhash, m.rhash)
      FROM unnest($1::bigint[], $2::bigint[], $3::text[]) AS u (fid, rvid, rhash) WHERE m.fid = u.fid`,
    [items.map((i) => i.fid), items.map((i) => i.rvid), items.map((i) => i.rhash)])
  }

  /** The feature is no longer the remote one (deleted, or to be sent as new): its attachments neither. */
  unmap(fid: number): Promise<void> {
    return this.unmapMany([fid])
  }

  async unmapMany(fids: number[]): Promise<void> {
    this.live()
    if (!fids.length) return
    await this.db.exec(`DELETE FROM ${this.t.syncFid} WHERE fid = ANY($1::bigint[])`, [fids])
    await this.db.exec(`DELETE FROM ${this.t.syncAid} WHERE fid = ANY($1::bigint[])`, [fids])
  }

  async mapAttachment(aid: number, raid: number, fid: number, rfileobj: number | null, at?: { vid: number; fileobj: number | null }): Promise<void> {
    this.live()
    const { t } = this
    await this.db.exec(`DELETE FROM ${t.syncAid} WHERE raid = $1 AND aid <> $2`, [raid, aid])
    await this.db.exec(`INSERT INTO ${t.syncAid} (aid, raid, fid, base, lfileobj, rfileobj)
      VALUES ($1::bigint, $2::bigint, $3::bigint,
        coalesce($5::bigint, (SELECT vid FROM ${t.extVstate} WHERE ext = 'attachment' AND eid = $1::bigint), 0),
        CASE WHEN $5::bigint IS NULL THEN (SELECT fileobj FROM ${t.attachment} WHERE id = $1::bigint) ELSE $6::bigint END, $4::bigint)
      ON CONFLICT (aid) DO UPDATE SET raid = excluded.raid, fid = excluded.fid, base = excluded.base, lfileobj = excluded.lfileobj,
        rfileobj = excluded.rfileobj`,
    [aid, raid, fid, rfileobj, at?.vid ?? null, at?.fileobj ?? null])
  }

  async unmapAttachment(aid: number): Promise<void> {
    this.live()
    await this.db.exec(`DELETE FROM ${this.t.syncAid} WHERE aid = $1`, [aid])
  }

  async addConflict(c: Omit<Conflict, 'id' | 'created'>): Promise<void> {
    this.live()
    await this.db.exec(`INSERT INTO ${this.t.syncConflict} (fid, rfid, kind, local, remote, rvid, created) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [c.fid, c.rfid, c.kind, json(c.local), json(c.remote), c.rvid, this.now()])
  }

  async removeConflict(id: number): Promise<void> {
    this.live()
    await this.db.exec(`DELETE FROM ${this.t.syncConflict} WHERE id = $1`, [id])
  }

  async setProblem(p: Omit<Problem, 'since'>): Promise<void> {
    this.live()
    await this.db.exec(`INSERT INTO ${this.t.syncProblem} (rfid, fid, reason, since) VALUES ($1, $2, $3, $4)
      ON CONFLICT (rfid) DO UPDATE SET fid = excluded.fid, reason = excluded.reason`, [p.rfid, p.fid, p.reason, this.now()])
  }

  async clearProblem(rfid: number): Promise<void> {
    this.live()
    await this.db.exec(`DELETE FROM ${this.t.syncProblem} WHERE rfid = $1`, [rfid])
  }

  /** The PostGIS writer queues nothing: every write is in the table when its promise settles. */
  async flush(): Promise<void> {
    this.live()
  }
}

/** A PostGIS layer linked to a remote layer: its features and its sync bookkeeping in one transaction of the layer. */
export class PgReplica implements Replica {
  constructor(readonly layer: PgFeatureLayer, readonly link: Link) {}

  get meta(): LayerMeta {
    return this.layer.meta
  }

  read<T>(fn: (tx: FeatureRead, r: ReplicaRead) => Promise<T>): Promise<T> {
    return this.layer.readWith((tx, db, live) => fn(tx, new PgReplicaTx(db, tx.t, () => this.#now(), live)))
  }

  write<T>(fn: (tx: FeatureWrite, r: ReplicaWrite) => Promise<T>, actor?: WriteActor): Promise<T> {
    return this.layer.writeWith((tx, db, live) => fn(tx, new PgReplicaTx(db, tx.t, () => this.#now(), live)), actor)
  }

  #now(): string {
    return this.layer.now().toISOString().slice(0, 19)
  }
}
