/**
 * @module catalogue/repository
 * The catalogue's own store (issue 22, docs/architecture.md "Data port"), opened on first use
 * and replaced whole by an import.
 */
import type { CatalogueData, Detail } from './records.ts'

/** An icon without its bytes. */
export interface IconHead { id: number; guid: string; name: string }

export interface CatalogueStore {
  /** Where the content came from; `undefined` for a store not filled yet. */
  source(): Promise<'default' | 'import' | undefined>
  load(): Promise<{ services: Detail[]; statuses: Detail[]; icons: IconHead[] }>
  /** All or nothing. */
  replace(d: CatalogueData, source: 'default' | 'import'): Promise<void>
  icon(id: number | 'default'): Promise<Uint8Array | undefined>
}
