/**
 * @module postgres/schema/port
 * The PostgreSQL implementation's own tables: the change counters (tokens.ts), the blobs
 * (blobs.ts), and the id counters of the tables whose ids clients see.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const portSchema: ComponentSchema = { component: 'port', steps: [
  // Ids as SQLite's AUTOINCREMENT hands them out (resources, fields, principals): after the
  // largest ever used or reserved (`outpost_sequence`, as `sqlite_sequence`). A counter row, not
  // a SEQUENCE: nextval/setval are not transactional, and a rolled-back (or replayed) unit of
  // work must leave no reservation (test/port/fields.contract.ts), so the ids clients see are
  // the same on both engines. Units of work run one at a time under the main lock, and the row
  // lock orders anything else. `outpost_reserve(t, n)` takes `n` ids of table `t` (an identifier
  // from our own schema) and returns the first; it is the id columns' default.
  `CREATE TABLE outpost_change (scope TEXT PRIMARY KEY, n BIGINT NOT NULL);
   CREATE TABLE outpost_blob (
     id TEXT NOT NULL,
     pending TEXT NOT NULL DEFAULT '',
     part INTEGER NOT NULL,
     data BYTEA NOT NULL,
     PRIMARY KEY (id, pending, part));
   CREATE TABLE outpost_sequence (name TEXT PRIMARY KEY, seq BIGINT NOT NULL);
   CREATE FUNCTION outpost_reserve(tbl TEXT, n INTEGER) RETURNS BIGINT LANGUAGE plpgsql AS $$
   DECLARE
     hi BIGINT;
     last BIGINT;
   BEGIN
     EXECUTE format('SELECT coalesce(max(id), 0) FROM %I', tbl) INTO hi;
     INSERT INTO outpost_sequence AS s (name, seq) VALUES (tbl, hi + n)
       ON CONFLICT (name) DO UPDATE SET seq = greatest(s.seq, hi) + n
       RETURNING seq INTO last;
     RETURN last - n + 1;
   END $$;`,
  // One change sequence (tokens.ts): the clock row `*` at the highest counter so far, so every
  // later move is past every value already handed out; a refresh reads the rows past a value.
  `INSERT INTO outpost_change (scope, n) SELECT '*', coalesce(max(n), 0) FROM outpost_change;
   CREATE INDEX outpost_change_n ON outpost_change (n);`,
] }
