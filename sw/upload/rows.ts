// port: legacy-sql (issue 22)
/**
 * @module upload/rows
 * The `upload` table and the blob names of uploads: rows in and out, expiry, the sweep and
 * the quota check that run inside the service's writes (upload/service.ts).
 */
import { uploadQuotaExceeded } from './errors.ts'
import type { Platform } from '../platform/platform.ts'
import type { SqlDb } from '../store/database.ts'
import { pendingIn } from './stream.ts'
import type { UploadInfo, UploadRecord, UploadRow } from './types.ts'

/** How long an upload lives: the original sweeps date folders older than yesterday. */
export const UPLOAD_TTL_MS = 2 * 24 * 3600 * 1000

/** At most this many expired uploads are swept per write, so a sweep never stalls a request. */
const SWEEP_BATCH = 100

export const dataBlob = (id: string) => `upload-${id}`

export function partBlob(id: string, offset: number): string {
  const r = crypto.getRandomValues(new Uint8Array(4))
  return `upload-${id}.${offset}-${Array.from(r, (b) => b.toString(16).padStart(2, '0')).join('')}`
}

export function toInfo(r: UploadRow): UploadInfo {
  const info: UploadInfo = { id: r.id, size: r.size, received: r.received, incomplete: r.received < r.size,
    parts: JSON.parse(r.parts) as string[] }
  if (r.name) info.name = r.name
  if (r.mime_type) info.mimeType = r.mime_type
  return info
}

/** The wire record, keys in the original's order. */
export function toRecord(info: UploadInfo): UploadRecord {
  const rec: UploadRecord = { id: info.id, size: info.size }
  if (info.name) rec.name = info.name
  if (info.mimeType) rec.mime_type = info.mimeType
  return rec
}

/** Uploads created before this ISO time have expired. */
export const uploadCutoff = (platform: Platform) => new Date(platform.now().getTime() - UPLOAD_TTL_MS).toISOString()
export const cutoff = uploadCutoff

export function selectRow(db: SqlDb, id: string, since: string): UploadRow | undefined {
  return db.selectObject('SELECT * FROM upload WHERE id = ? AND created >= ?', [id, since]) as UploadRow | undefined
}

/** Deletes a batch of expired records; returns their blobs, to delete once the write is saved. */
export function sweepExpired(db: SqlDb, since: string): string[] {
  const rows = db.selectObjects('SELECT id, parts FROM upload WHERE created < ? ORDER BY created LIMIT ?',
    [since, SWEEP_BATCH]) as Array<Pick<UploadRow, 'id' | 'parts'>>
  const blobs: string[] = []
  for (const r of rows) {
    db.exec({ sql: 'DELETE FROM upload WHERE id = ?', bind: [r.id] })
    blobs.push(dataBlob(r.id), ...(JSON.parse(r.parts) as string[]))
  }
  return blobs
}

/** Removes blobs nobody references any more; a failure only leaves garbage behind. */
export async function dropBlobs(platform: Platform, blobs: string[]): Promise<void> {
  for (const b of blobs) {
    try {
      await platform.store.deleteBlob(b)
    } catch (err) {
      platform.log(`Deleting upload blob ${b} failed`, err)
    }
  }
}

export function insertRow(db: SqlDb, i: UploadInfo, now: Date): void {
  db.exec({ sql: 'INSERT INTO upload (id, size, name, mime_type, received, created) VALUES (?, ?, ?, ?, ?, ?)',
    bind: [i.id, i.size, i.name ?? null, i.mimeType ?? null, i.received, now.toISOString()] })
}

/** 402 when `adding` more pending bytes would take the host past `quota` (checked inside the write). */
export function checkQuota(db: SqlDb, since: string, adding: number, quota: number | undefined): void {
  if (quota === undefined) return
  if (pendingIn(db, since) + adding > quota) throw uploadQuotaExceeded(quota)
}
