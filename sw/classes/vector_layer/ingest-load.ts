// Moved to sw/sqlite/features (issue 22 WP-C); this re-export keeps old imports compiling until the final step.
export * from '../../sqlite/features/ingest-load.ts'
