/**
 * @module diagnostics/service
 * `inspect`: opens a file with GDAL and summarises it, exactly as a layer ingest reads it
 * (sw/ingest/), so the diagnostics route proves the ingest's path through GDAL.
 */
import type { GdalApi } from '../../wasm/gdal.ts'
import { inspectSource } from '../ingest/vector-convert.ts'
import type { SourceSummary } from '../ingest/vector-source.ts'
import { emptyBody } from './errors.ts'

export async function inspect(gdal: GdalApi, name: string, bytes: Uint8Array): Promise<SourceSummary> {
  if (!bytes.length) throw emptyBody()
  return inspectSource(gdal, { name, bytes })
}
