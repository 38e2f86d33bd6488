/**
 * @module upload/rows
 * Upload records and the blob names of uploads: rows in and out, expiry, the sweep and the
 * quota check that run inside the service's units of work (upload/service.ts); the SQL is in
 * the data port's implementation (sw/sqlite/main/uploads.ts).
 */
import { uploadQuotaExceeded } from './errors.ts'
import type { Platform } from '../platform/platform.ts'
import type { UploadWrite } from './repository.ts'
import type { UploadInfo, UploadRecord, UploadRow } from './types.ts'
import type { UploadServices } from './env.ts'

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

/** Deletes a batch of expired records; returns their blobs, to delete once the unit of work is saved. */
export const sweepExpired = (uploads: UploadWrite, since: string) => uploads.sweepExpired(since, SWEEP_BATCH)

/** Removes blobs nobody references any more; a failure only leaves garbage behind. */
export async function dropBlobs({ data, platform }: UploadServices, blobs: string[]): Promise<void> {
  for (const b of blobs) {
    try {
      await data.blobs.deleteBlob(b)
    } catch (err) {
      platform.log(`Deleting upload blob ${b} failed`, err)
    }
  }
}

/** 402 when `adding` more pending bytes would take the host past `quota` (checked inside the write). */
export async function checkQuota(uploads: UploadWrite, since: string, adding: number, quota: number | undefined): Promise<void> {
  if (quota === undefined) return
  if (await uploads.pendingBytes(since) + adding > quota) throw uploadQuotaExceeded(quota)
}
