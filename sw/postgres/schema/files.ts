/**
 * @module postgres/schema/files
 * The intent records of stored files (sw/files/), as sqlite/schema/files.ts: `staged` until a
 * resource adopts the file, `released` until its chunks are deleted. Each step runs once, in
 * order (`postgres/migrate.ts`).
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const filesSchema: ComponentSchema = { component: 'files', steps: [
  `CREATE TABLE file_pending (
     key TEXT PRIMARY KEY,
     size BIGINT NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('staged', 'released')),
     created TEXT NOT NULL);`,
] }
