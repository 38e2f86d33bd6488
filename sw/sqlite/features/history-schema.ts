/**
 * @module sqlite/features/history-schema
 * The tables behind a layer's versions (reference §12), after the original's design:
 * - `feature_version`: one row per version (a write transaction that changed something);
 * - `feature_vstate`: per feature, deleted ones included, the version that last changed it
 *   and how (`C`reated, `U`pdated, `D`eleted, `R`estored);
 * - `feature_history`: the values a feature had from version `vid` (op) until `nid` (nop),
 *   with the same `fld_*` columns as the feature table;
 * - `ext_vstate` / `ext_history`: the same for the extensions (`attachment` rows, keyed by
 *   their id, and `description`, keyed by the fid), values as JSON;
 * - `attachment_file`: every file an attachment ever had (the feed's `fileobj`);
 * - `feature_transaction*`: transactions that clients fill and commit.
 * `layer_meta.epoch` says which epoch the history belongs to (0: versioning off).
 */
import type { SqlDb } from '../../store/database.ts'

export const HISTORY_TABLE = 'feature_history'

/** JSON of an attachment row as its history keeps it. */
export const ATTACHMENT_DATA = `json_object('keyname', keyname, 'name', name, 'size', size, 'mime_type', mime_type,
  'description', description, 'file_meta', file_meta, 'blob_id', blob_id, 'fileobj', fileobj)`

/** Adds the history tables (schema 2); `columns` define the feature table's `fld_*` columns (`fld_3 TEXT`). */
export function addHistoryTables(db: SqlDb, columns: string[]): void {
  db.exec(`
    DROP TABLE IF EXISTS feature_journal;
    CREATE TABLE feature_version (id INTEGER PRIMARY KEY, tstamp TEXT NOT NULL, user_id INTEGER);
    CREATE TABLE feature_vstate (fid INTEGER PRIMARY KEY, vid INTEGER NOT NULL, op TEXT NOT NULL);
    CREATE INDEX feature_vstate_vid ON feature_vstate (vid);
    CREATE TABLE ${HISTORY_TABLE} (fid INTEGER NOT NULL, vid INTEGER NOT NULL, nid INTEGER NOT NULL, op TEXT NOT NULL,
      nop TEXT NOT NULL, geom BLOB, PRIMARY KEY (fid, vid)) WITHOUT ROWID;
    CREATE INDEX feature_history_vid ON ${HISTORY_TABLE} (vid);
    CREATE TABLE ext_vstate (ext TEXT NOT NULL, eid INTEGER NOT NULL, fid INTEGER NOT NULL, vid INTEGER NOT NULL,
      op TEXT NOT NULL, PRIMARY KEY (ext, eid)) WITHOUT ROWID;
    CREATE INDEX ext_vstate_vid ON ext_vstate (vid);
    CREATE INDEX ext_vstate_fid ON ext_vstate (fid);
    CREATE TABLE ext_history (ext TEXT NOT NULL, eid INTEGER NOT NULL, fid INTEGER NOT NULL, vid INTEGER NOT NULL,
      nid INTEGER NOT NULL, op TEXT NOT NULL, nop TEXT NOT NULL, data TEXT, PRIMARY KEY (ext, eid, vid)) WITHOUT ROWID;
    CREATE INDEX ext_history_vid ON ext_history (vid);
    CREATE INDEX ext_history_fid ON ext_history (fid);
    CREATE TABLE attachment_file (id INTEGER PRIMARY KEY AUTOINCREMENT, aid INTEGER NOT NULL, blob_id TEXT NOT NULL);
    CREATE INDEX attachment_file_aid ON attachment_file (aid);
    ALTER TABLE feature_attachment ADD COLUMN fileobj INTEGER;
    INSERT INTO attachment_file (aid, blob_id) SELECT id, blob_id FROM feature_attachment ORDER BY id;
    UPDATE feature_attachment SET fileobj = (SELECT max(id) FROM attachment_file f WHERE f.aid = feature_attachment.id);
    CREATE TABLE feature_transaction (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER NOT NULL, epoch INTEGER,
      started TEXT NOT NULL, committed TEXT);
    CREATE TABLE feature_transaction_op (tid INTEGER NOT NULL, seqnum INTEGER NOT NULL, payload TEXT NOT NULL,
      error TEXT, PRIMARY KEY (tid, seqnum)) WITHOUT ROWID;
    CREATE TABLE feature_transaction_result (tid INTEGER NOT NULL, seqnum INTEGER NOT NULL, value TEXT NOT NULL,
      PRIMARY KEY (tid, seqnum)) WITHOUT ROWID;
    INSERT OR REPLACE INTO layer_meta VALUES ('epoch', '0');`)
  for (const c of columns) db.exec(`ALTER TABLE ${HISTORY_TABLE} ADD COLUMN ${c}`)
}

/** The epoch the layer's history belongs to; 0 when versioning is off. */
export function historyEpoch(db: SqlDb): number {
  return Number(db.selectValue(`SELECT value FROM layer_meta WHERE key = 'epoch'`) ?? 0)
}

/**
 * Starts the history anew for `epoch` (0 turns versioning off): old versions are dropped;
 * with an epoch, version 1 holds every feature, attachment and description as created.
 * Version 1 is `userId`'s, who turned versioning on. Returns the blobs only old history
 * referred to (deleted once this commits).
 */
export function resetHistory(db: SqlDb, epoch: number, tstamp: string, userId: number | null = null): string[] {
  const orphans = db.selectValues(`SELECT blob_id FROM attachment_file
    WHERE blob_id NOT IN (SELECT blob_id FROM feature_attachment)`) as string[]
  db.exec(`DELETE FROM feature_version; DELETE FROM feature_vstate; DELETE FROM ${HISTORY_TABLE};
    DELETE FROM ext_vstate; DELETE FROM ext_history;
    DELETE FROM attachment_file WHERE id NOT IN (SELECT fileobj FROM feature_attachment WHERE fileobj IS NOT NULL)`)
  if (epoch) {
    db.exec({ sql: `INSERT INTO feature_version (id, tstamp, user_id) VALUES (1, ?, ?)`, bind: [tstamp, userId] })
    db.exec(`INSERT INTO feature_vstate (fid, vid, op) SELECT fid, 1, 'C' FROM feature;
      INSERT INTO ext_vstate (ext, eid, fid, vid, op) SELECT 'attachment', id, fid, 1, 'C' FROM feature_attachment;
      INSERT INTO ext_vstate (ext, eid, fid, vid, op) SELECT 'description', fid, fid, 1, 'C' FROM feature_description;`)
  }
  db.exec({ sql: `UPDATE layer_meta SET value = ? WHERE key = 'epoch'`, bind: [String(epoch)] })
  return orphans
}
