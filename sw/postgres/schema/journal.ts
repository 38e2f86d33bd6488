/**
 * @module postgres/schema/journal
 * The change journal of the tree, and the answers of keyed writes (`Idempotency-Key`) made on
 * the main data. Each step runs once, in order (`postgres/migrate.ts`); a released step is never
 * edited, only followed by another.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const journalSchema: ComponentSchema = { component: 'journal', steps: [
  `CREATE TABLE journal (
     id BIGSERIAL PRIMARY KEY,
     tstamp TEXT NOT NULL,
     user_id BIGINT,
     resource_id BIGINT,
     action TEXT NOT NULL,
     payload TEXT);
   CREATE TABLE outpost_request_log (
     key TEXT PRIMARY KEY,
     fingerprint TEXT NOT NULL,
     tstamp BIGINT NOT NULL,
     body TEXT NOT NULL);
   CREATE INDEX outpost_request_log_tstamp ON outpost_request_log (tstamp);`,
] }
