/**
 * @module upload/repository
 * What uploads need from storage: their records (issue 22, docs/architecture.md "Data
 * port"). The bytes are blobs (`DataPort.blobs`), written before and deleted after the unit
 * of work that changes a record.
 */
import type { UploadInfo, UploadRow } from './types.ts'

export interface UploadRead {
  /** The upload `id` if it was made after `since` (ISO time), i.e. has not expired. */
  get(id: string, since: string): Promise<UploadRow | undefined>
  /** Bytes held by uploads made after `since` (the anonymous quota). */
  pendingBytes(since: string): Promise<number>
}
export interface UploadWrite extends UploadRead {
  insert(i: UploadInfo, now: Date): Promise<void>
  progress(id: string, received: number, parts: string[], mime?: string): Promise<void>
  delete(id: string): Promise<void>
  /** Removes up to `limit` uploads made before `since`; returns the blobs to delete after the commit. */
  sweepExpired(since: string, limit: number): Promise<string[]>
}
