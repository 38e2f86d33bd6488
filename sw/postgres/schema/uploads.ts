/**
 * @module postgres/schema/uploads
 * The upload records (sw/upload/), as sqlite/schema/uploads.ts. `received` < `size` while a TUS
 * upload is incomplete; `parts` is the JSON text of its chunks' blobs, kept as the text written
 * (the records read back as SQLite's). Sizes are BIGINT: a file may pass 2 GiB. `created` is ISO
 * text compared byte by byte. Each step runs once, in order (`postgres/migrate.ts`).
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const uploadsSchema: ComponentSchema = { component: 'uploads', steps: [
  `CREATE TABLE upload (
     id TEXT PRIMARY KEY,
     size BIGINT NOT NULL,
     name TEXT,
     mime_type TEXT,
     received BIGINT NOT NULL,
     parts TEXT NOT NULL DEFAULT '[]',
     created TEXT COLLATE "C" NOT NULL);
   CREATE INDEX upload_created ON upload (created);`,
] }
