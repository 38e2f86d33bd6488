/**
 * @module postgres/features/versions
 * Reads of a layer's past on PostGIS, as SQLite's (sqlite/features/versions.ts): its versions,
 * the features as they were at a version (the source a point-in-time listing selects from, its
 * descriptions in the same statement), attachments at a version, the record of a feature or an
 * extension row.
 */
import type { ItemVersion, VersionListQuery, VersionRecord } from '../../feature/history-types.ts'
import type { AttachmentRow, Field } from '../../feature/types.ts'
import type { PgConn } from '../conn.ts'
import { Params } from './filter.ts'
import { columnOf, type LayerTables } from './schema.ts'

type VersionRow = { id: number; tstamp: string; user_id: number | null }
const asVersion = (r: VersionRow): VersionRecord => ({ id: r.id, tstamp: r.tstamp, userId: r.user_id })

export async function latestVersion(db: PgConn, t: LayerTables): Promise<number> {
  return (await db.value<number>(`SELECT coalesce(max(id), 0) FROM ${t.version}`))!
}

export async function versionOf(db: PgConn, t: LayerTables, vid: number): Promise<VersionRecord | undefined> {
  const r = await db.row<VersionRow>(`SELECT id, tstamp, user_id FROM ${t.version} WHERE id = $1`, [vid])
  return r && asVersion(r)
}

export async function listVersions(db: PgConn, t: LayerTables, q: VersionListQuery): Promise<VersionRecord[]> {
  const p = new Params()
  const where: string[] = []
  if (q.cursor !== undefined) where.push(`id ${q.order === 'asc' ? '>' : '<'} ${p.add(q.cursor)}`)
  // Naive ISO text, compared as SQLite does (by code point).
  if (q.tstampGe !== undefined) where.push(`tstamp COLLATE "C" >= ${p.add(q.tstampGe)}`)
  if (q.tstampLt !== undefined) where.push(`tstamp COLLATE "C" < ${p.add(q.tstampLt)}`)
  return (await db.rows<VersionRow>(`SELECT id, tstamp, user_id FROM ${t.version} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY id ${q.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ${p.add(q.limit)}`, p.values)).map(asVersion)
}

/** The record of a feature (`ext` absent) or of an extension row, deleted ones included. */
export async function itemVersion(db: PgConn, t: LayerTables, fid: number, ext?: { ext: string; eid: number }): Promise<ItemVersion | undefined> {
  const r = ext
    ? await db.row<{ vid: number; op: string }>(`SELECT vid, op FROM ${t.extVstate} WHERE ext = $1 AND eid = $2 AND fid = $3`,
      [ext.ext, ext.eid, fid])
    : await db.row<{ vid: number; op: string }>(`SELECT vid, op FROM ${t.vstate} WHERE fid = $1`, [fid])
  return r && { vid: r.vid, deleted: r.op === 'D' }
}

/**
 * The features as they were at version `v` (placeholder `v`), as a relation with the feature
 * table's columns plus `vid`: current rows whose last change is not newer, and history rows
 * valid at `v`.
 */
export function featuresAt(t: LayerTables, fields: readonly Field[], v: string): string {
  const cols = fields.map((f) => `, ${columnOf(f.id)}`).join('')
  return `(SELECT f.fid, f.geom${cols.replace(/, /g, ', f.')}, s.vid FROM ${t.features} f JOIN ${t.vstate} s ON s.fid = f.fid
      WHERE s.vid <= ${v}
    UNION ALL SELECT h.fid, h.geom${cols.replace(/, /g, ', h.')}, h.vid FROM ${t.history} h
      WHERE h.vid <= ${v} AND h.nid > ${v} AND h.op <> 'D')`
}

/** The description of feature `f.fid` at version `v` (placeholder), as an expression. */
export function descriptionAt(t: LayerTables, v: string): string {
  return `CASE WHEN EXISTS (SELECT 1 FROM ${t.extVstate} s WHERE s.ext = 'description' AND s.eid = f.fid AND s.vid <= ${v})
    THEN (SELECT d.value FROM ${t.description} d WHERE d.fid = f.fid)
    ELSE (SELECT h.data ->> 'value' FROM ${t.extHistory} h WHERE h.ext = 'description' AND h.eid = f.fid AND h.vid <= ${v}
      AND h.nid > ${v}) END`
}

/** The attachments of `fids` as they were at version `v`, each list in id order; one statement. */
export async function attachmentsAt(db: PgConn, t: LayerTables, fids: number[], v: number): Promise<Map<number, AttachmentRow[]>> {
  const out = new Map<number, AttachmentRow[]>()
  if (!fids.length) return out
  const rows = await db.rows<AttachmentRow>(`SELECT a.id, a.fid, a.keyname, a.name, a.size, a.mime_type, a.description, a.file_meta,
      a.blob_id, a.fileobj FROM ${t.attachment} a JOIN ${t.extVstate} s ON s.ext = 'attachment' AND s.eid = a.id
    WHERE a.fid = ANY($1::bigint[]) AND s.vid <= $2
    UNION ALL SELECT h.eid, h.fid, h.data ->> 'keyname', h.data ->> 'name', (h.data ->> 'size')::bigint, h.data ->> 'mime_type',
      h.data ->> 'description', h.data ->> 'file_meta', h.data ->> 'blob_id', (h.data ->> 'fileobj')::bigint FROM ${t.extHistory} h
    WHERE h.ext = 'attachment' AND h.fid = ANY($1::bigint[]) AND h.vid <= $2 AND h.nid > $2 AND h.op <> 'D'
    ORDER BY 1`, [fids, v])
  for (const a of rows) {
    const list = out.get(a.fid)
    if (list) list.push(a)
    else out.set(a.fid, [a])
  }
  return out
}
