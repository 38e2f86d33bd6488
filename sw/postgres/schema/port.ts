/**
 * @module postgres/schema/port
 * The PostgreSQL implementation's own tables: the change counters (tokens.ts) and the blobs
 * (blobs.ts).
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const portSchema: ComponentSchema = { component: 'port', steps: [
  `CREATE TABLE outpost_change (scope TEXT PRIMARY KEY, n BIGINT NOT NULL);
   CREATE TABLE outpost_blob (
     id TEXT NOT NULL,
     pending TEXT NOT NULL DEFAULT '',
     part INTEGER NOT NULL,
     data BYTEA NOT NULL,
     PRIMARY KEY (id, pending, part));`,
] }
