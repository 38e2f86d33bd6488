/**
 * @module sqlite/schema/journal
 * The main database's change journal.
 * Each step runs once, in order (`sqlite/migrate.ts`); a released step is never edited, only followed by another.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const journalSchema: ComponentSchema = { component: 'journal', steps: [
  // 1: the change journal (part of main step 1 before the schema was split per component).
  `CREATE TABLE journal (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     tstamp TEXT NOT NULL,
     user_id INTEGER,
     resource_id INTEGER,
     action TEXT NOT NULL,
     payload TEXT);`,
] }
