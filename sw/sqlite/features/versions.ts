/**
 * @module sqlite/features/versions
 * Reads of a layer's past: its versions, the features as they were at a version (the
 * source a point-in-time listing selects from), attachments at a version, old files.
 */
import type { SqlDb } from '../../store/database.ts'
import type { VersionListQuery, VersionRecord } from '../../feature/history-types.ts'
import type { AttachmentRow, Field } from '../../feature/types.ts'
import { HISTORY_TABLE } from './history-schema.ts'
import { columnOf } from './schema.ts'

const asVersion = (r: unknown[]): VersionRecord => ({ id: Number(r[0]), tstamp: String(r[1]), userId: r[2] === null ? null : Number(r[2]) })

export function latestVersion(db: SqlDb): number {
  return Number(db.selectValue(`SELECT coalesce(max(id), 0) FROM feature_version`))
}

export function versionOf(db: SqlDb, vid: number): VersionRecord | undefined {
  const r = db.selectArray(`SELECT id, tstamp, user_id FROM feature_version WHERE id = ?`, [vid])
  return r && asVersion(r)
}

export function listVersions(db: SqlDb, q: VersionListQuery): VersionRecord[] {
  const where: string[] = []
  const bind: (string | number)[] = []
  if (q.cursor !== undefined) { where.push(q.order === 'asc' ? 'id > ?' : 'id < ?'); bind.push(q.cursor) }
  if (q.tstampGe !== undefined) { where.push('tstamp >= ?'); bind.push(q.tstampGe) }
  if (q.tstampLt !== undefined) { where.push('tstamp < ?'); bind.push(q.tstampLt) }
  return db.selectArrays(`SELECT id, tstamp, user_id FROM feature_version ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY id ${q.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`, [...bind, q.limit]).map(asVersion)
}

/**
 * The features as they were at version `v`, as a relation with the feature table's columns
 * plus `vid`: current rows whose last change is not newer, and history rows valid at `v`.
 * It binds `v` as parameter 1 (`?1`): a query that selects from it binds `v` first.
 */
export function featuresAt(fields: readonly Field[]): string {
  const cols = fields.map((f) => `, ${columnOf(f.id)}`).join('')
  return `(SELECT f.fid, f.geom${cols.replace(/, /g, ', f.')}, s.vid FROM feature f JOIN feature_vstate s ON s.fid = f.fid
      WHERE s.vid <= ?1
    UNION ALL SELECT h.fid, h.geom${cols.replace(/, /g, ', h.')}, h.vid FROM ${HISTORY_TABLE} h
      WHERE h.vid <= ?1 AND h.nid > ?1 AND h.op != 'D')`
}

function attachmentFromData(aid: number, fid: number, data: string): AttachmentRow {
  const d = JSON.parse(data) as Omit<AttachmentRow, 'id' | 'fid'>
  return { id: aid, fid, keyname: d.keyname, name: d.name, size: d.size, mime_type: d.mime_type, description: d.description,
    file_meta: d.file_meta, blob_id: d.blob_id, fileobj: d.fileobj }
}

/** The attachments of `fids` as they were at version `v`, each list in id order. */
export function attachmentsAt(db: SqlDb, fids: number[], v: number): Map<number, AttachmentRow[]> {
  const out = new Map<number, AttachmentRow[]>()
  if (!fids.length) return out
  const ids = JSON.stringify(fids)
  const rows: AttachmentRow[] = [
    ...(db.selectObjects(`SELECT a.* FROM feature_attachment a JOIN ext_vstate s ON s.ext = 'attachment' AND s.eid = a.id
      WHERE a.fid IN (SELECT value FROM json_each(?)) AND s.vid <= ?`, [ids, v]) as unknown as AttachmentRow[]),
    ...db.selectArrays(`SELECT eid, fid, data FROM ext_history WHERE ext = 'attachment' AND fid IN (SELECT value FROM json_each(?))
      AND vid <= ? AND nid > ? AND op != 'D'`, [ids, v, v]).map((r) => attachmentFromData(Number(r[0]), Number(r[1]), String(r[2])))]
  rows.sort((a, b) => a.id - b.id)
  for (const a of rows) {
    const list = out.get(a.fid)
    if (list) list.push(a)
    else out.set(a.fid, [a])
  }
  return out
}

/** The description of `fid` at version `v`. */
export function descriptionAt(db: SqlDb, fid: number, v: number): string | null {
  const cur = db.selectArray(`SELECT d.value FROM ext_vstate s LEFT JOIN feature_description d ON d.fid = s.eid
    WHERE s.ext = 'description' AND s.eid = ? AND s.vid <= ?`, [fid, v])
  if (cur) return (cur[0] ?? null) as string | null
  const h = db.selectValue(`SELECT data FROM ext_history WHERE ext = 'description' AND eid = ? AND vid <= ? AND nid > ?`, [fid, v, v])
  return h === undefined ? null : (JSON.parse(String(h)) as { value: string | null }).value ?? null
}
