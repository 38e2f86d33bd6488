/**
 * @module sqlite/schema/types
 * One component's part of the main database's schema (`sqlite/migrate.ts` runs them).
 */
export interface ComponentSchema {
  component: string
  /** SQL scripts, each run once, in order; a released step is never edited, only followed by another. */
  steps: readonly string[]
}
