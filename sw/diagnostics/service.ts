// port: legacy-sql (issue 22)
/**
 * @module diagnostics/service
 * `inspect`: opens a file with GDAL and summarises it, exactly as a layer ingest reads it
 * (sw/ingest/), so the diagnostics route proves the ingest's path through GDAL.
 * `storageUse`: what the databases hold in memory.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { GdalEngine } from '../../wasm/gdal.ts'
import { inspectSource } from '../ingest/vector-convert.ts'
import type { SourceSummary } from '../ingest/vector-source.ts'
import type { Store } from '../store/store.ts'
import { residencyOf } from '../store/residency.ts'
import { emptyBody } from './errors.ts'

export async function inspect(gdal: GdalEngine, name: string, bytes: Uint8Array): Promise<SourceSummary> {
  if (!bytes.length) throw emptyBody()
  return inspectSource(gdal, { name, bytes })
}

export interface StorageUse {
  /** Bytes of SQLite's WASM heap (page caches, statements); it grows, never shrinks. */
  wasm_memory: number
  /** Layer databases open now, and the bytes they hold outside the WASM heap (pages). */
  layers_open: number
  layers_resident: number
}

export function storageUse(store: Store, sqlite: Sqlite3Static): StorageUse {
  const { count, bytes } = residencyOf(store).stats()
  return { wasm_memory: sqlite.wasm.heap8u().byteLength, layers_open: count, layers_resident: bytes }
}
