/**
 * @module sqlite/features/replica
 * The sync bookkeeping of a layer linked to a remote layer (sync/types.ts `ReplicaRead` /
 * `ReplicaWrite`), in the layer's own database beside its features, so a pulled change and
 * its bookkeeping, or a push's results and the marks they leave, are one durable write:
 * - `sync_meta`: the link's state (versions pulled up to, a pull or push in flight) and history;
 * - `sync_fid` / `sync_aid`: which local feature/attachment is which remote one, and the local
 *   version each was at when both sides last matched (`base`): a later local version is a
 *   change waiting to be pushed;
 * - `sync_conflict`: features changed on both sides, both versions kept;
 * - `sync_problem`: remote features the pull could not take, and why.
 */
import type { SqlDb } from '../../store/database.ts'
import type {
  AttachmentMapping, Conflict, LinkState, LocalAttachmentChange, LocalChange, LocalRecord, MapItem, Mapping, Problem,
  ReplicaWriteSync as ReplicaWrite, SyncReport,
} from '../../sync/types.ts'

/** How many sync reports a layer keeps. */
const HISTORY_KEEP = 20

export function addReplicaTables(db: SqlDb): void {
  db.exec(`
    CREATE TABLE sync_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE sync_fid (fid INTEGER PRIMARY KEY, rfid INTEGER NOT NULL UNIQUE, rvid INTEGER, base INTEGER NOT NULL,
      dbase INTEGER NOT NULL, rhash TEXT);
    CREATE TABLE sync_aid (aid INTEGER PRIMARY KEY, raid INTEGER NOT NULL UNIQUE, fid INTEGER NOT NULL,
      base INTEGER NOT NULL, lfileobj INTEGER, rfileobj INTEGER);
    CREATE TABLE sync_conflict (id INTEGER PRIMARY KEY AUTOINCREMENT, fid INTEGER NOT NULL, rfid INTEGER NOT NULL,
      kind TEXT NOT NULL, local TEXT, remote TEXT, rvid INTEGER, created TEXT NOT NULL);
    CREATE INDEX sync_conflict_fid ON sync_conflict (fid);`)
  addProblemTable(db)
}

/** Schema 3: remote features a pull could not take are noted, not a failed round. */
export function addProblemTable(db: SqlDb): void {
  db.exec(`CREATE TABLE sync_problem (rfid INTEGER PRIMARY KEY, fid INTEGER, reason TEXT NOT NULL, since TEXT NOT NULL);
    CREATE INDEX sync_problem_fid ON sync_problem (fid);`)
}

const MAPPING = `m.fid, m.rfid, m.rvid, m.base, m.dbase, m.rhash`
const asMapping = (r: unknown[]): Mapping => ({ fid: Number(r[0]), rfid: Number(r[1]), rvid: r[2] === null ? null : Number(r[2]),
  base: Number(r[3]), dbase: Number(r[4]), rhash: r[5] === null ? null : String(r[5]) })
const asAttachment = (r: unknown[]): AttachmentMapping => ({ aid: Number(r[0]), raid: Number(r[1]), fid: Number(r[2]),
  base: Number(r[3]), lfileobj: r[4] === null ? null : Number(r[4]), rfileobj: r[5] === null ? null : Number(r[5]) })
const asConflict = (r: unknown[]): Conflict => ({ id: Number(r[0]), fid: Number(r[1]), rfid: Number(r[2]),
  kind: r[3] as Conflict['kind'], local: r[4] === null ? null : JSON.parse(String(r[4])),
  remote: r[5] === null ? null : JSON.parse(String(r[5])), rvid: r[6] === null ? null : Number(r[6]), created: String(r[7]) })

/**
 * Features with an open conflict wait for a person, and those whose remote state could not be
 * taken wait for it to be fixed there: nothing of them is pushed (a lock older than the
 * remote's would fail the whole transaction).
 */
const NOT_HELD = `s.fid NOT IN (SELECT fid FROM sync_conflict) AND s.fid NOT IN (SELECT fid FROM sync_problem WHERE fid IS NOT NULL)`

type Stmt = ReturnType<SqlDb['prepare']>
type Bind = (string | number | null)[]

export class ReplicaTx implements ReplicaWrite {
  /** Statements run once per feature are prepared once per transaction (`close` finalizes them). */
  #stmts = new Map<string, Stmt>()

  constructor(readonly db: SqlDb, readonly now: () => string, readonly flushWrites: () => void = () => {}) {}

  #stmt(sql: string): Stmt {
    let st = this.#stmts.get(sql)
    if (!st) this.#stmts.set(sql, st = this.db.prepare(sql))
    return st
  }

  #exec(sql: string, bind: Bind): void {
    const st = this.#stmt(sql)
    st.bind(bind as never)
    st.stepReset()
  }

  #row(sql: string, bind: Bind): unknown[] | undefined {
    const st = this.#stmt(sql)
    try {
      st.bind(bind as never)
      return st.step() ? st.get([]) as unknown[] : undefined
    } finally {
      st.reset()
    }
  }

  close(): void {
    for (const st of this.#stmts.values()) st.finalize()
    this.#stmts.clear()
  }

  #meta<T>(key: string): T | undefined {
    const v = this.db.selectValue(`SELECT value FROM sync_meta WHERE key = ?`, [key])
    return v === undefined ? undefined : JSON.parse(String(v)) as T
  }

  #setMeta(key: string, value: unknown): void {
    this.db.exec({ sql: `INSERT OR REPLACE INTO sync_meta (key, value) VALUES (?, ?)`, bind: [key, JSON.stringify(value)] })
  }

  state(): LinkState | undefined {
    return this.#meta<LinkState>('state')
  }

  history(): SyncReport[] {
    return this.#meta<SyncReport[]>('history') ?? []
  }

  mapping(fid: number): Mapping | undefined {
    const r = this.#row(`SELECT ${MAPPING} FROM sync_fid m WHERE m.fid = ?`, [fid])
    return r && asMapping(r)
  }

  /** One prepared statement per fid: in-process SQLite has no round trip to save. */
  mappingsOf(fids: number[]): Map<number, Mapping> {
    const out = new Map<number, Mapping>()
    for (const fid of fids) {
      const m = this.mapping(fid)
      if (m) out.set(fid, m)
    }
    return out
  }

  localOf(rfid: number): Mapping | undefined {
    const r = this.#row(`SELECT ${MAPPING} FROM sync_fid m WHERE m.rfid = ?`, [rfid])
    return r && asMapping(r)
  }

  localsOf(rfids: number[]): Map<number, LocalRecord> {
    const out = new Map<number, LocalRecord>()
    for (const r of this.db.selectArrays(`SELECT ${MAPPING}, s.vid, s.op, coalesce(d.vid, 0),
        EXISTS (SELECT 1 FROM sync_conflict c WHERE c.fid = m.fid)
      FROM json_each(?) j JOIN sync_fid m ON m.rfid = j.value LEFT JOIN feature_vstate s ON s.fid = m.fid
      LEFT JOIN ext_vstate d ON d.ext = 'description' AND d.eid = m.fid`, [JSON.stringify(rfids)])) {
      const mapping = asMapping(r)
      out.set(mapping.rfid, { mapping, vid: r[6] === null ? 0 : Number(r[6]), deleted: r[7] !== 'C' && r[7] !== 'U' && r[7] !== 'R',
        dvid: Number(r[8]), conflicted: !!r[9] })
    }
    return out
  }

  mappings(): Mapping[] {
    return this.db.selectArrays(`SELECT ${MAPPING} FROM sync_fid m ORDER BY m.fid`).map(asMapping)
  }

  attachmentMapping(aid: number): AttachmentMapping | undefined {
    const r = this.db.selectArray(`SELECT aid, raid, fid, base, lfileobj, rfileobj FROM sync_aid WHERE aid = ?`, [aid])
    return r && asAttachment(r)
  }

  attachmentMappings(): AttachmentMapping[] {
    return this.db.selectArrays(`SELECT aid, raid, fid, base, lfileobj, rfileobj FROM sync_aid ORDER BY aid`).map(asAttachment)
  }

  localAttachmentOf(raid: number): AttachmentMapping | undefined {
    const r = this.db.selectArray(`SELECT aid, raid, fid, base, lfileobj, rfileobj FROM sync_aid WHERE raid = ?`, [raid])
    return r && asAttachment(r)
  }

  localAttachmentsOf(raids: number[]): Map<number, AttachmentMapping> {
    return new Map(this.db.selectArrays(`SELECT m.aid, m.raid, m.fid, m.base, m.lfileobj, m.rfileobj
      FROM json_each(?) j JOIN sync_aid m ON m.raid = j.value ORDER BY j.key`, [JSON.stringify(raids)]).map((r) => [Number(r[1]), asAttachment(r)]))
  }

  descriptionVid(fid: number): number {
    return Number(this.#row(`SELECT vid FROM ext_vstate WHERE ext = 'description' AND eid = ?`, [fid])?.[0] ?? 0)
  }

  localChanges(): LocalChange[] {
    const out: LocalChange[] = []
    for (const r of this.db.selectArrays(`SELECT s.fid, s.vid,
          coalesce((SELECT d.vid FROM ext_vstate d WHERE d.ext = 'description' AND d.eid = s.fid), 0) AS dvid
        FROM feature_vstate s LEFT JOIN sync_fid m ON m.fid = s.fid
        WHERE m.fid IS NULL AND s.op != 'D' AND ${NOT_HELD} ORDER BY s.fid`)) {
      out.push({ fid: Number(r[0]), kind: 'create', vid: Number(r[1]), dvid: Number(r[2]) })
    }
    for (const r of this.db.selectArrays(`SELECT ${MAPPING}, s.vid, s.op,
          coalesce((SELECT d.vid FROM ext_vstate d WHERE d.ext = 'description' AND d.eid = m.fid), 0) AS dvid
        FROM sync_fid m JOIN feature_vstate s ON s.fid = m.fid WHERE ${NOT_HELD} ORDER BY m.fid`)) {
      const mapping = asMapping(r)
      const [vid, op, dvid] = [Number(r[6]), String(r[7]), Number(r[8])]
      if (vid !== mapping.base) out.push({ fid: mapping.fid, kind: op === 'D' ? 'delete' : 'update', vid, dvid, mapping })
      else if (dvid !== mapping.dbase && op !== 'D') out.push({ fid: mapping.fid, kind: 'description', vid: dvid, dvid, mapping })
    }
    return out
  }

  localAttachmentChanges(): LocalAttachmentChange[] {
    return this.db.selectArrays(`SELECT s.eid, s.fid, s.vid, s.op, a.fileobj, m.aid, m.raid, m.base, m.lfileobj, m.rfileobj
        FROM ext_vstate s LEFT JOIN sync_aid m ON m.aid = s.eid LEFT JOIN feature_attachment a ON a.id = s.eid
        WHERE s.ext = 'attachment' AND ((m.aid IS NULL AND s.op != 'D') OR s.vid != m.base) AND ${NOT_HELD}
        ORDER BY s.eid`).map((r) => {
      const mapped = r[5] !== null
      const kind = !mapped ? 'create' : r[3] === 'D' ? 'delete' : 'update'
      return { aid: Number(r[0]), fid: Number(r[1]), kind, vid: Number(r[2]), fileChanged: !mapped || r[4] !== r[8],
        mapping: mapped ? asAttachment([r[5], r[6], r[1], r[7], r[8], r[9]]) : undefined } satisfies LocalAttachmentChange
    })
  }

  conflicts(): Conflict[] {
    return this.db.selectArrays(`SELECT id, fid, rfid, kind, local, remote, rvid, created FROM sync_conflict ORDER BY id`).map(asConflict)
  }

  conflict(id: number): Conflict | undefined {
    const r = this.db.selectArray(`SELECT id, fid, rfid, kind, local, remote, rvid, created FROM sync_conflict WHERE id = ?`, [id])
    return r && asConflict(r)
  }

  problems(): Problem[] {
    return this.db.selectArrays(`SELECT rfid, fid, reason, since FROM sync_problem ORDER BY rfid`).map((r) => ({
      rfid: Number(r[0]), fid: r[1] === null ? null : Number(r[1]), reason: String(r[2]), since: String(r[3]) }))
  }

  setState(state: LinkState): void {
    this.#setMeta('state', state)
  }

  addHistory(report: SyncReport): void {
    this.#setMeta('history', [report, ...this.history()].slice(0, HISTORY_KEEP))
  }

  map(fid: number, rfid: number, rvid: number | null, at?: { vid: number; dvid?: number }, rhash: string | null = null): void {
    this.flushWrites()
    this.#exec(`DELETE FROM sync_fid WHERE rfid = ? AND fid != ?`, [rfid, fid])
    this.#exec(`INSERT INTO sync_fid (fid, rfid, rvid, base, dbase, rhash)
      VALUES (?1, ?2, ?3, coalesce(?5, (SELECT vid FROM feature_vstate WHERE fid = ?1), 0),
        coalesce(?6, (SELECT vid FROM ext_vstate WHERE ext = 'description' AND eid = ?1), 0), ?4)
      ON CONFLICT (fid) DO UPDATE SET rfid = excluded.rfid, rvid = excluded.rvid, base = excluded.base,
        dbase = excluded.dbase, rhash = coalesce(excluded.rhash, rhash)`,
    [fid, rfid, rvid, rhash, at?.vid ?? null, at?.dvid ?? null])
  }

  /** One prepared statement per row: in-process SQLite has no round trip to save. */
  mapMany(items: MapItem[]): void {
    for (const i of items) this.map(i.fid, i.rfid, i.rvid, i.at, i.rhash)
  }

  relock(fid: number, rvid: number | null, rhash: string | null = null): void {
    this.#exec(`UPDATE sync_fid SET rvid = ?, rhash = coalesce(?, rhash) WHERE fid = ?`, [rvid, rhash, fid])
  }

  relockMany(items: { fid: number; rvid: number | null; rhash: string | null }[]): void {
    for (const i of items) this.relock(i.fid, i.rvid, i.rhash)
  }

  unmapMany(fids: number[]): void {
    for (const fid of fids) this.unmap(fid)
  }

  /** The feature is no longer the remote one (deleted, or to be sent as new): its attachments neither. */
  unmap(fid: number): void {
    this.#exec(`DELETE FROM sync_fid WHERE fid = ?`, [fid])
    this.#exec(`DELETE FROM sync_aid WHERE fid = ?`, [fid])
  }

  mapAttachment(aid: number, raid: number, fid: number, rfileobj: number | null, at?: { vid: number; fileobj: number | null }): void {
    this.flushWrites()
    this.db.exec({ sql: `DELETE FROM sync_aid WHERE raid = ? AND aid != ?`, bind: [raid, aid] })
    this.db.exec({ sql: `INSERT OR REPLACE INTO sync_aid (aid, raid, fid, base, lfileobj, rfileobj)
      VALUES (?1, ?2, ?3, coalesce(?5, (SELECT vid FROM ext_vstate WHERE ext = 'attachment' AND eid = ?1), 0),
        CASE WHEN ?5 IS NULL THEN (SELECT fileobj FROM feature_attachment WHERE id = ?1) ELSE ?6 END, ?4)`,
    bind: [aid, raid, fid, rfileobj, at?.vid ?? null, at?.fileobj ?? null] })
  }

  unmapAttachment(aid: number): void {
    this.db.exec({ sql: `DELETE FROM sync_aid WHERE aid = ?`, bind: [aid] })
  }

  addConflict(c: Omit<Conflict, 'id' | 'created'>): void {
    this.db.exec({ sql: `INSERT INTO sync_conflict (fid, rfid, kind, local, remote, rvid, created) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      bind: [c.fid, c.rfid, c.kind, c.local === null ? null : JSON.stringify(c.local),
        c.remote === null ? null : JSON.stringify(c.remote), c.rvid, this.now()] })
  }

  removeConflict(id: number): void {
    this.db.exec({ sql: `DELETE FROM sync_conflict WHERE id = ?`, bind: [id] })
  }

  setProblem(p: Omit<Problem, 'since'>): void {
    this.#exec(`INSERT INTO sync_problem (rfid, fid, reason, since) VALUES (?, ?, ?, ?)
      ON CONFLICT (rfid) DO UPDATE SET fid = excluded.fid, reason = excluded.reason`, [p.rfid, p.fid, p.reason, this.now()])
  }

  clearProblem(rfid: number): void {
    this.#exec(`DELETE FROM sync_problem WHERE rfid = ?`, [rfid])
  }

  flush(): void {
    this.flushWrites()
  }
}
