/**
 * @module sqlite/schema/files
 * The main database's table of stored files on their way in or out (sw/files/).
 * Each step runs once, in order (`sqlite/migrate.ts`); a released step is never edited, only followed by another.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const filesSchema: ComponentSchema = { component: 'files', steps: [
  // 1 (was main step 3): stored files (sw/files/) on their way into or out of a resource: `staged` until a
  // resource adopts them, `released` until their chunks are deleted.
  `CREATE TABLE file_pending (
     key TEXT PRIMARY KEY,
     size INTEGER NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('staged', 'released')),
     created TEXT NOT NULL);`,
] }
