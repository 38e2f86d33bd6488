/**
 * @module upload/orphans
 * The sweep of upload blobs that no record will ever free: bytes streamed in by a process
 * stopped before it recorded them, a TUS part saved just before its record's update failed,
 * a stream abandoned half-way. An upload's id carries the time it was made (a ULID), the same
 * time its record gets, so a blob whose id is older than `UPLOAD_TTL_MS` belongs to an upload
 * that has expired whatever happened to its record: it is deleted by name, without a lookup.
 */
import type { Platform } from '../platform/platform.ts'
import type { UploadServices } from './env.ts'
import { UPLOAD_TTL_MS } from './rows.ts'
import { uploadIdTime } from './upload-id.ts'

/** How often a host looks for orphans (on the upload path, so it runs where uploads happen). */
const EVERY_MS = 3600 * 1000
/** Deletions per sweep: a sweep never holds an upload up for long; the next one goes on. */
const AT_MOST = 200

const lastSweep = new WeakMap<Platform, number>()

/** Deletes up to `AT_MOST` expired upload blobs; returns how many. */
export async function sweepOrphanBlobs({ platform, data }: UploadServices): Promise<number> {
  const before = platform.now().getTime() - UPLOAD_TTL_MS
  let deleted = 0
  for (const blob of await data.blobs.listBlobs('upload-')) {
    const m = /^upload-([0-9a-f]{32})/.exec(blob)
    if (!m || uploadIdTime(m[1]!) >= before) continue
    try {
      await data.blobs.deleteBlob(blob)
    } catch (err) {
      platform.log(`Deleting orphaned upload blob ${blob} failed`, err)
    }
    if (++deleted >= AT_MOST) break
  }
  return deleted
}

/** Runs the sweep if this host has not run one within `EVERY_MS` (the first upload after a start does). */
export async function sweepOrphansNow(services: UploadServices): Promise<void> {
  const { platform } = services
  const now = platform.now().getTime()
  const last = lastSweep.get(platform)
  if (last !== undefined && now - last < EVERY_MS) return
  lastSweep.set(platform, now)
  await sweepOrphanBlobs(services)
}
