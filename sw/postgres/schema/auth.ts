/**
 * @module postgres/schema/auth
 * The auth component's tables (as sqlite/schema/auth.ts's end state): principals, group
 * membership, sessions, login limits. Each step runs once, in order (`postgres/migrate.ts`); a
 * released step is never edited, only followed by another.
 *
 * Keynames are unique and compared case-insensitively as SQLite's `COLLATE NOCASE` does: by
 * `lower(keyname COLLATE "C")`, which folds ASCII letters only whatever the database's locale
 * (the repositories compare with the same expression, so the index serves them). Flags stay
 * 0/1 integers and dates ISO text (`COLLATE "C"`: compared byte by byte, as SQLite does), so
 * the rows read back as SQLite's. Ids are BIGINT, as SQLite's 64-bit INTEGER, so any id a
 * request can name is just not found rather than out of range. SQLite's unused `is_admin` column is not carried over: being an
 * administrator is membership of `administrators`.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const authSchema: ComponentSchema = { component: 'auth', steps: [
  `CREATE TABLE principal (
     id BIGINT PRIMARY KEY DEFAULT outpost_reserve('principal', 1),
     cls TEXT NOT NULL CHECK (cls IN ('U', 'G')),
     keyname TEXT NOT NULL,
     display_name TEXT NOT NULL,
     system INTEGER NOT NULL DEFAULT 0,
     disabled INTEGER NOT NULL DEFAULT 0,
     password_hash TEXT,
     must_change_password INTEGER NOT NULL DEFAULT 0,
     language TEXT,
     description TEXT);
   CREATE UNIQUE INDEX principal_keyname ON principal (lower(keyname COLLATE "C"));
   CREATE TABLE principal_member (
     group_id BIGINT NOT NULL REFERENCES principal(id) ON DELETE CASCADE,
     user_id BIGINT NOT NULL REFERENCES principal(id) ON DELETE CASCADE,
     PRIMARY KEY (group_id, user_id));
   CREATE INDEX principal_member_user ON principal_member (user_id);
   CREATE TABLE session (
     id TEXT PRIMARY KEY,
     user_id BIGINT NOT NULL REFERENCES principal(id) ON DELETE CASCADE,
     created TEXT COLLATE "C" NOT NULL,
     expires TEXT COLLATE "C" NOT NULL);
   CREATE INDEX session_by_user ON session (user_id);
   CREATE INDEX session_by_expires ON session (expires);
   CREATE TABLE login_limit (
     key TEXT PRIMARY KEY,
     failures INTEGER NOT NULL,
     locked_until BIGINT NOT NULL,
     last BIGINT NOT NULL);`,
] }
