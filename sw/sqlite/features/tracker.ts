/**
 * @module sqlite/features/tracker
 * Records what one write does to a versioned layer (reference §12): the write gets one new
 * version at its first change; before a feature, attachment or description changes for the
 * first time in that version, its previous values go to the history with the range of
 * versions they were valid for. Statements run through the writer's prepared-statement cache,
 * and every step is one statement whatever the number of rows (`where` picks them).
 */
import type { SqlDb } from '../../store/database.ts'
import type { FieldValue } from '../../feature/types.ts'
import { ATTACHMENT_DATA, HISTORY_TABLE } from './history-schema.ts'

type Run = (sql: string, bind: FieldValue[]) => void

/** Rows of an extension as its history keeps them: `eid`, `fid`, `data` (JSON). */
const EXT_SOURCE: Record<string, string> = {
  attachment: `SELECT id AS eid, fid, ${ATTACHMENT_DATA} AS data FROM feature_attachment`,
  description: `SELECT fid AS eid, fid, json_object('value', value) AS data FROM feature_description`,
}

export type Ext = 'attachment' | 'description'

export class VersionTracker {
  #vid: number | undefined
  readonly #cols: string
  /** Features whose values before this version are kept already. */
  readonly #kept = new Set<number>()

  /** `columns`: the `fld_*` columns the feature table and its history share. */
  constructor(readonly db: SqlDb, readonly run: Run, columns: string[], readonly userId: number | null,
    readonly tstamp: string) {
    this.#cols = columns.map((c) => `, ${c}`).join('')
  }

  /** The version of this write, if it changed anything yet. */
  get version(): number | undefined {
    return this.#vid
  }

  /** The version of this write, created at its first change. */
  vid(): number {
    if (this.#vid === undefined) {
      const next = Number(this.db.selectValue('SELECT coalesce(max(id), 0) + 1 FROM feature_version'))
      this.run(`INSERT INTO feature_version (id, tstamp, user_id) VALUES (?, ?, ?)`, [next, this.tstamp, this.userId])
      this.#vid = next
    }
    return this.#vid
  }

  /** New features (fids as a JSON array, one statement for a whole batch). */
  created(fidsJson: string): void {
    this.run(`INSERT INTO feature_vstate (fid, vid, op) SELECT value, ?, 'C' FROM json_each(?)`, [this.vid(), fidsJson])
  }

  /** Keeps the current values of the features `where` picks (on `f`), unless this version already did. */
  #history(where: string, bind: FieldValue[], nop: string): number {
    const v = this.vid()
    this.run(`INSERT INTO ${HISTORY_TABLE} (fid, vid, nid, op, nop, geom${this.#cols})
      SELECT f.fid, s.vid, ?, s.op, ?, f.geom${this.#cols.replace(/, /g, ', f.')} FROM feature f
      JOIN feature_vstate s ON s.fid = f.fid WHERE ${where} AND s.vid != ?`, [v, nop, ...bind, v])
    return v
  }

  beforeUpdate(fid: number): void {
    if (this.#kept.has(fid)) return
    const v = this.#history('f.fid = ?', [fid], 'U')
    this.run(`UPDATE feature_vstate SET op = CASE WHEN vid = ? THEN op ELSE 'U' END, vid = ? WHERE fid = ?`, [v, v, fid])
    this.#kept.add(fid)
  }

  /** `beforeUpdate` of many features in two statements (a batch update, a transaction's commit); absent ones are skipped. */
  beforeUpdates(fids: number[]): void {
    const todo = fids.filter((f) => !this.#kept.has(f))
    if (!todo.length) return
    const picked = `f.fid IN (SELECT value FROM json_each(?))`
    const json = JSON.stringify(todo)
    const v = this.#history(picked, [json], 'U')
    this.run(`UPDATE feature_vstate SET op = CASE WHEN vid = ? THEN op ELSE 'U' END, vid = ?
      WHERE fid IN (SELECT f.fid FROM feature f WHERE ${picked})`, [v, v, json])
    for (const f of todo) this.#kept.add(f)
  }

  /** Before features are deleted: `where` on `f` (the feature table), e.g. `f.fid = ?` or `1`. */
  beforeDelete(where: string, bind: FieldValue[]): void {
    const v = this.#history(where, bind, 'D')
    for (const ext of ['attachment', 'description'] as const) this.extBefore(ext, `r.fid IN (SELECT f.fid FROM feature f WHERE ${where})`, bind, 'D')
    const sel = `SELECT f.fid FROM feature f WHERE ${where}`
    // A feature created in this very version leaves no trace at all.
    this.run(`DELETE FROM feature_vstate WHERE vid = ? AND op = 'C' AND fid IN (${sel})`, [v, ...bind])
    this.run(`UPDATE feature_vstate SET vid = ?, op = 'D' WHERE fid IN (${sel})`, [v, ...bind])
  }

  /**
   * A deleted feature comes back: its last values return to the feature table (the caller
   * re-indexes it), and the deleted period joins its history. `false` when `fid` is not a
   * feature deleted before this version.
   */
  restore(fid: number): boolean {
    const s = this.db.selectArray(`SELECT vid, op FROM feature_vstate WHERE fid = ?`, [fid])
    const v = this.vid()
    if (!s || s[1] !== 'D' || s[0] === v) return false
    const cols = this.#cols
    this.run(`INSERT INTO feature (fid, geom${cols}) SELECT fid, geom${cols} FROM ${HISTORY_TABLE} WHERE fid = ? AND nid = ?`, [fid, s[0] as number])
    this.run(`INSERT INTO ${HISTORY_TABLE} (fid, vid, nid, op, nop, geom${cols}) SELECT fid, ?, ?, 'D', 'R', geom${cols}
      FROM ${HISTORY_TABLE} WHERE fid = ? AND nid = ?`, [s[0] as number, v, fid, s[0] as number])
    this.run(`UPDATE feature_vstate SET vid = ?, op = 'R' WHERE fid = ?`, [v, fid])
    return true
  }

  /** Keeps the current values of extension rows (`where` on `r`: eid, fid) before they change or go. */
  extBefore(ext: Ext, where: string, bind: FieldValue[], nop: 'U' | 'D'): void {
    const v = this.vid()
    this.run(`INSERT INTO ext_history (ext, eid, fid, vid, nid, op, nop, data)
      SELECT s.ext, r.eid, r.fid, s.vid, ?, s.op, ?, r.data FROM (${EXT_SOURCE[ext]}) r
      JOIN ext_vstate s ON s.ext = ? AND s.eid = r.eid WHERE ${where} AND s.vid != ?`, [v, nop, ext, ...bind, v])
    if (nop === 'U') return
    const sel = `SELECT r.eid FROM (${EXT_SOURCE[ext]}) r WHERE ${where}`
    this.run(`DELETE FROM ext_vstate WHERE ext = ? AND vid = ? AND op = 'C' AND eid IN (${sel})`, [ext, v, ...bind])
    this.run(`UPDATE ext_vstate SET vid = ?, op = 'D' WHERE ext = ? AND eid IN (${sel})`, [v, ext, ...bind])
  }

  /** A new attachment. */
  attachmentAdded(aid: number, fid: number): void {
    this.run(`INSERT INTO ext_vstate (ext, eid, fid, vid, op) VALUES ('attachment', ?, ?, ?, 'C')`, [aid, fid, this.vid()])
  }

  attachmentChanged(aid: number): void {
    this.extBefore('attachment', 'r.eid = ?', [aid], 'U')
    const v = this.vid()
    this.run(`UPDATE ext_vstate SET op = CASE WHEN vid = ? THEN op ELSE 'U' END, vid = ? WHERE ext = 'attachment' AND eid = ?`, [v, v, aid])
  }

  /**
   * Before a feature's description is set or removed. A description that was removed and
   * comes back continues its record: the time without one is history with a null value.
   */
  beforeDescription(fid: number): void {
    const v = this.vid()
    this.run(`INSERT INTO ext_history (ext, eid, fid, vid, nid, op, nop, data)
      SELECT 'description', s.eid, s.fid, s.vid, ?, s.op, 'U', json_object('value', d.value) FROM ext_vstate s
      LEFT JOIN feature_description d ON d.fid = s.eid WHERE s.ext = 'description' AND s.eid = ? AND s.vid != ?`, [v, fid, v])
    this.run(`INSERT INTO ext_vstate (ext, eid, fid, vid, op) VALUES ('description', ?, ?, ?, 'C')
      ON CONFLICT (ext, eid) DO UPDATE SET op = CASE WHEN vid = excluded.vid THEN op ELSE 'U' END, vid = excluded.vid`, [fid, fid, v])
  }
}
