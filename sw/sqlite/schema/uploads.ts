/**
 * @module sqlite/schema/uploads
 * The main database's table of file uploads (sw/upload/).
 * Each step runs once, in order (`sqlite/migrate.ts`); a released step is never edited, only followed by another.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const uploadsSchema: ComponentSchema = { component: 'uploads', steps: [
  // 1 (was main step 2): file uploads (sw/upload/). `received` < `size` while a TUS upload is incomplete; `parts`
  // lists the blobs of its chunks (JSON array) until the last chunk joins them.
  `CREATE TABLE upload (
     id TEXT PRIMARY KEY,
     size INTEGER NOT NULL,
     name TEXT,
     mime_type TEXT,
     received INTEGER NOT NULL,
     parts TEXT NOT NULL DEFAULT '[]',
     created TEXT NOT NULL);
   CREATE INDEX upload_created ON upload(created);`,
] }
