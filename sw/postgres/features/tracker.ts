/**
 * @module postgres/features/tracker
 * Records what one write does to a versioned layer on PostGIS, as SQLite's tracker
 * (sqlite/features/tracker.ts) does: the write gets one new version at its first change;
 * before a feature, attachment or description changes for the first time in that version, its
 * previous values go to the history (INSERT … SELECT) with the range of versions they were
 * valid for. Every step is one statement whatever the number of rows (`Where` picks them).
 * Versions are numbered `max + 1` under the layer's lock (writes to a layer run one at a time
 * across processes), never from a process's memory.
 */
import type { PgConn } from '../conn.ts'
import { Params } from './filter.ts'
import { ATTACHMENT_DATA, type VersionedTables } from './history-schema.ts'
import { arrayLiteral } from './columns.ts'

/** A condition on an alias (`f`: the feature table; `r`: an extension source), its values added to `p`. */
export type Where = (p: Params) => string

export type Ext = 'attachment' | 'description'

export class PgVersionTracker {
  #vid: Promise<number> | undefined
  #version: number | undefined
  /** Features whose values before this version are kept already. */
  readonly #kept = new Set<number>()
  readonly #ext: Record<Ext, string>

  /** `cols`: the `fld_*` columns the feature table and its history share (`, fld_1, fld_2`). */
  constructor(readonly db: PgConn, readonly t: VersionedTables, readonly cols: string, readonly userId: number | null,
    readonly tstamp: string) {
    this.#ext = {
      attachment: `SELECT id AS eid, fid, ${ATTACHMENT_DATA} AS data FROM ${t.attachment}`,
      description: `SELECT fid AS eid, fid, jsonb_build_object('value', value) AS data FROM ${t.description}`,
    }
  }

  /** The version of this write, if it changed anything yet. */
  get version(): number | undefined {
    return this.#version
  }

  /** The version of this write, created at its first change. */
  vid(): Promise<number> {
    this.#vid ??= this.db.value<number>(`INSERT INTO ${this.t.version} (id, tstamp, user_id)
      SELECT coalesce(max(id), 0) + 1, $1::text, $2::bigint FROM ${this.t.version} RETURNING id`, [this.tstamp, this.userId])
      .then((v) => (this.#version = v!))
    return this.#vid
  }

  /**
   * New features recorded in the statement that inserts them: `insert` (an INSERT … RETURNING
   * fid, its values in `p`) becomes a data-modifying CTE, and the same statement makes this
   * write's version (at its first change) and the features' `_vstate` rows from what it
   * returned. As separate statements the `_vstate` rows were 40–75 % of a batch's INSERT time
   * (10,000 fids sent back to the server as an array, parsed, and a round trip). Returns the
   * fids in the order `insert` returns them.
   */
  async insertCreated(insert: string, p: Params): Promise<number[]> {
    const known = this.#vid && await this.#vid
    const version = known !== undefined ? `SELECT ${p.add(known)}::bigint AS id`
      : `INSERT INTO ${this.t.version} (id, tstamp, user_id) SELECT coalesce(max(id), 0) + 1, ${p.add(this.tstamp)}::text,
        ${p.add(this.userId)}::bigint FROM ${this.t.version} RETURNING id`
    const rows = await this.db.rows<{ fid: number; vid: number }>(`WITH f AS (${insert}), v AS (${version}),
      s AS (INSERT INTO ${this.t.vstate} (fid, vid, op) SELECT f.fid, v.id, 'C' FROM f, v)
      SELECT fid, (SELECT id FROM v) AS vid FROM f`, p.values)
    if (known === undefined && rows.length) {
      this.#version = rows[0]!.vid
      this.#vid = Promise.resolve(this.#version)
    }
    return rows.map((r) => r.fid)
  }

  /**
   * Changes of features recorded in the statement that makes them: `update` (an UPDATE of the
   * feature table, its values in `p`) becomes a data-modifying CTE beside this write's version
   * (made at its first change, and only if one of `fids` is there), the previous values of the
   * features this version has not kept yet (`s.vid <> v.id`), and their `_vstate`. Every part
   * reads the rows as they were before the statement, so the history gets the old values. An
   * edit was five statements (which fids are there, the version, the history, `_vstate`, the
   * UPDATE). Returns the fids that are there.
   */
  async updateRecorded(fids: number[], update: string, p: Params): Promise<Set<number>> {
    const known = this.#vid && await this.#vid
    const { t, cols } = this
    const f = p.add(arrayLiteral(fids))
    const version = known !== undefined ? `SELECT ${p.add(known)}::bigint AS id`
      // (An aggregate gives its row even over no rows: the condition goes outside it.)
      : `INSERT INTO ${t.version} (id, tstamp, user_id) SELECT m.id, ${p.add(this.tstamp)}::text, ${p.add(this.userId)}::bigint
        FROM (SELECT coalesce(max(id), 0) + 1 AS id FROM ${t.version}) m WHERE EXISTS (SELECT 1 FROM there) RETURNING id`
    const rows = await this.db.rows<{ fid: number; vid: number | null }>(`WITH there AS (SELECT fid FROM ${t.features}
        WHERE fid = ANY(${f}::bigint[])),
      v AS (${version}),
      kept AS (INSERT INTO ${t.history} (fid, vid, nid, op, nop, geom${cols})
        SELECT f.fid, s.vid, v.id, s.op, 'U', f.geom${cols.replace(/, /g, ', f.')} FROM ${t.features} f JOIN ${t.vstate} s ON s.fid = f.fid, v
        WHERE f.fid = ANY(${f}::bigint[]) AND s.vid <> v.id),
      state AS (UPDATE ${t.vstate} s SET op = CASE WHEN s.vid = v.id THEN s.op ELSE 'U' END, vid = v.id FROM v
        WHERE s.fid IN (SELECT fid FROM there)),
      changed AS (${update})
      SELECT fid, (SELECT id FROM v) AS vid FROM there`, p.values)
    if (known === undefined && rows.length) {
      this.#version = rows[0]!.vid!
      this.#vid = Promise.resolve(this.#version)
    }
    for (const r of rows) this.#kept.add(r.fid)
    return new Set(rows.map((r) => r.fid))
  }

  /** The descriptions new features came with: one statement for a whole batch. */
  async described(fids: number[]): Promise<void> {
    if (!fids.length) return
    await this.db.exec(`INSERT INTO ${this.t.extVstate} (ext, eid, fid, vid, op) SELECT 'description', f, f, $2::bigint, 'C'
      FROM unnest($1::bigint[]) AS f`, [fids, await this.vid()])
  }

  /** Keeps the current values of the features `where` picks (on `f`), unless this version already did. */
  async #history(where: Where, nop: string): Promise<number> {
    const v = await this.vid()
    const p = new Params()
    const fcols = this.cols.replace(/, /g, ', f.')
    await this.db.exec(`INSERT INTO ${this.t.history} (fid, vid, nid, op, nop, geom${this.cols})
      SELECT f.fid, s.vid, ${p.add(v)}::bigint, s.op, ${p.add(nop)}::text, f.geom${fcols} FROM ${this.t.features} f
      JOIN ${this.t.vstate} s ON s.fid = f.fid WHERE ${where(p)} AND s.vid <> ${p.add(v)}`, p.values)
    return v
  }

  /** Before features change: their values go to the history, in two statements whatever their number; absent ones are skipped. */
  async beforeUpdates(fids: number[]): Promise<void> {
    const todo = fids.filter((f) => !this.#kept.has(f))
    if (!todo.length) return
    const v = await this.#history((p) => `f.fid = ANY(${p.add(todo)}::bigint[])`, 'U')
    await this.db.exec(`UPDATE ${this.t.vstate} SET op = CASE WHEN vid = $1 THEN op ELSE 'U' END, vid = $1
      WHERE fid IN (SELECT f.fid FROM ${this.t.features} f WHERE f.fid = ANY($2::bigint[]))`, [v, todo])
    for (const f of todo) this.#kept.add(f)
  }

  /** Before the features `where` picks (on `f`) are deleted, their attachments and descriptions with them. */
  async beforeDelete(where: Where): Promise<void> {
    const v = await this.#history(where, 'D')
    const sel = (p: Params) => `SELECT f.fid FROM ${this.t.features} f WHERE ${where(p)}`
    for (const ext of ['attachment', 'description'] as const) await this.extBefore(ext, (p) => `r.fid IN (${sel(p)})`, 'D')
    // A feature created in this very version leaves no trace at all.
    let p = new Params()
    await this.db.exec(`DELETE FROM ${this.t.vstate} WHERE vid = ${p.add(v)} AND op = 'C' AND fid IN (${sel(p)})`, p.values)
    p = new Params()
    await this.db.exec(`UPDATE ${this.t.vstate} SET vid = ${p.add(v)}, op = 'D' WHERE fid IN (${sel(p)})`, p.values)
  }

  /**
   * A deleted feature comes back: its last values return to the feature table, and the deleted
   * period joins its history. `false` when `fid` is not a feature deleted before this version.
   */
  async restore(fid: number): Promise<boolean> {
    const s = await this.db.row<{ vid: number; op: string }>(`SELECT vid, op FROM ${this.t.vstate} WHERE fid = $1`, [fid])
    const v = await this.vid()
    if (!s || s.op !== 'D' || s.vid === v) return false
    const { cols, t } = this
    await this.db.exec(`INSERT INTO ${t.features} (fid, geom${cols}) SELECT fid, geom${cols} FROM ${t.history}
      WHERE fid = $1 AND nid = $2`, [fid, s.vid])
    await this.db.exec(`INSERT INTO ${t.history} (fid, vid, nid, op, nop, geom${cols}) SELECT fid, $1::bigint, $2::bigint, 'D', 'R', geom${cols}
      FROM ${t.history} WHERE fid = $3 AND nid = $1`, [s.vid, v, fid])
    await this.db.exec(`UPDATE ${t.vstate} SET vid = $1, op = 'R' WHERE fid = $2`, [v, fid])
    return true
  }

  /** Keeps the current values of extension rows (`where` on `r`: eid, fid) before they change or go. */
  async extBefore(ext: Ext, where: Where, nop: 'U' | 'D'): Promise<void> {
    const v = await this.vid()
    let p = new Params()
    await this.db.exec(`INSERT INTO ${this.t.extHistory} (ext, eid, fid, vid, nid, op, nop, data)
      SELECT s.ext, r.eid, r.fid, s.vid, ${p.add(v)}::bigint, s.op, ${p.add(nop)}::text, r.data FROM (${this.#ext[ext]}) r
      JOIN ${this.t.extVstate} s ON s.ext = ${p.add(ext)} AND s.eid = r.eid WHERE ${where(p)} AND s.vid <> ${p.add(v)}`, p.values)
    if (nop === 'U') return
    const sel = (q: Params) => `SELECT r.eid FROM (${this.#ext[ext]}) r WHERE ${where(q)}`
    p = new Params()
    await this.db.exec(`DELETE FROM ${this.t.extVstate} WHERE ext = ${p.add(ext)} AND vid = ${p.add(v)} AND op = 'C'
      AND eid IN (${sel(p)})`, p.values)
    p = new Params()
    await this.db.exec(`UPDATE ${this.t.extVstate} SET vid = ${p.add(v)}, op = 'D' WHERE ext = ${p.add(ext)} AND eid IN (${sel(p)})`,
      p.values)
  }

  /** A new attachment. */
  async attachmentAdded(aid: number, fid: number): Promise<void> {
    await this.db.exec(`INSERT INTO ${this.t.extVstate} (ext, eid, fid, vid, op) VALUES ('attachment', $1, $2, $3, 'C')`,
      [aid, fid, await this.vid()])
  }

  async attachmentChanged(aid: number): Promise<void> {
    await this.extBefore('attachment', (p) => `r.eid = ${p.add(aid)}`, 'U')
    await this.db.exec(`UPDATE ${this.t.extVstate} SET op = CASE WHEN vid = $1 THEN op ELSE 'U' END, vid = $1
      WHERE ext = 'attachment' AND eid = $2`, [await this.vid(), aid])
  }

  /**
   * Before a feature's description is set or removed. A description that was removed and
   * comes back continues its record: the time without one is history with a null value.
   */
  async beforeDescription(fid: number): Promise<void> {
    const v = await this.vid()
    await this.db.exec(`INSERT INTO ${this.t.extHistory} (ext, eid, fid, vid, nid, op, nop, data)
      SELECT 'description', s.eid, s.fid, s.vid, $1::bigint, s.op, 'U', jsonb_build_object('value', d.value) FROM ${this.t.extVstate} s
      LEFT JOIN ${this.t.description} d ON d.fid = s.eid WHERE s.ext = 'description' AND s.eid = $2 AND s.vid <> $1`, [v, fid])
    await this.db.exec(`INSERT INTO ${this.t.extVstate} (ext, eid, fid, vid, op) VALUES ('description', $1, $1, $2, 'C')
      ON CONFLICT (ext, eid) DO UPDATE SET op = CASE WHEN ${this.t.extVstate}.vid = excluded.vid THEN ${this.t.extVstate}.op ELSE 'U' END,
      vid = excluded.vid`, [fid, v])
  }
}
