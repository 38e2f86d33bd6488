/**
 * @module port/sqlite
 * The optional SQLite capability of a data port (issue 22): what only the SQLite
 * implementation offers. Never assumed: a component using it has a generic path for a port
 * without it. The GeoPackage fast paths (`GpkgStorage`, today in feature/types.ts) move here
 * with WP-E.
 */

/** What the SQLite databases hold in memory (the diagnostics route). */
export interface SqliteStats {
  /** Bytes of SQLite's WASM heap (page caches, statements); it grows, never shrinks. */
  wasmMemory: number
  /** Layer databases open now, and the bytes they hold outside the WASM heap. */
  layersOpen: number
  layersResident: number
}

export interface SqliteCapability {
  stats(): SqliteStats
}
