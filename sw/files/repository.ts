/**
 * @module files/repository
 * The intent records of stored files (issue 22, docs/architecture.md "Data port"): a file is
 * staged before the unit of work that adopts it, and released by the one that drops it, so a
 * crash in between leaves a record the start-up sweep acts on.
 */
import type { StoredFile } from './types.ts'

export interface FileRecordRead {
  /** Of `keys`, the files released (no longer used) and not yet deleted. */
  released(keys: readonly string[]): Promise<StoredFile[]>
  all(): Promise<StoredFile[]>
}
export interface FileRecordWrite extends FileRecordRead {
  stage(f: StoredFile, now: Date): Promise<void>
  adopt(keys: readonly string[]): Promise<void>
  release(f: readonly StoredFile[]): Promise<void>
  forget(keys: readonly string[]): Promise<void>
}
