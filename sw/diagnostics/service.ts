/**
 * @module diagnostics/service
 * `inspect`: opens a file with GDAL and summarises it, exactly as a layer ingest reads it
 * (sw/ingest/), so the diagnostics route proves the ingest's path through GDAL.
 * `storageUse`: what the databases hold in memory, as the data port's SQLite capability says.
 */
import type { GdalEngine } from '../../wasm/gdal.ts'
import { inspectSource } from '../ingest/vector-convert.ts'
import type { SourceSummary } from '../ingest/vector-source.ts'
import type { SqliteCapability } from '../port/sqlite.ts'
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

/** A port without the SQLite capability holds none of this: zeros, the same shape. */
export function storageUse(sqlite: SqliteCapability | undefined): StorageUse {
  const s = sqlite?.stats() ?? { wasmMemory: 0, layersOpen: 0, layersResident: 0 }
  return { wasm_memory: s.wasmMemory, layers_open: s.layersOpen, layers_resident: s.layersResident }
}
