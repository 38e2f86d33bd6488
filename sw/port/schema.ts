/**
 * @module port/schema
 * One component's part of an implementation's main schema (sw/sqlite/migrate.ts and
 * sw/postgres/migrate.ts run them): each implementation writes its own steps in its dialect.
 */
export interface ComponentSchema {
  component: string
  /** SQL scripts, each run once, in order; a released step is never edited, only followed by another. */
  steps: readonly string[]
}
