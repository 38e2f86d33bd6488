/**
 * @module sqlite/schema/auth
 * The main database's tables of the auth component: principals, sessions, login limits, memberships.
 * Each step runs once, in order (`sqlite/migrate.ts`); a released step is never edited, only followed by another.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const authSchema: ComponentSchema = { component: 'auth', steps: [
  // 1: principals and sessions (half of main step 1 before the schema was split per component).
  `CREATE TABLE principal (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     cls TEXT NOT NULL CHECK (cls IN ('U', 'G')),
     keyname TEXT NOT NULL UNIQUE COLLATE NOCASE,
     display_name TEXT NOT NULL,
     system INTEGER NOT NULL DEFAULT 0,
     disabled INTEGER NOT NULL DEFAULT 0,
     is_admin INTEGER NOT NULL DEFAULT 0,
     password_hash TEXT,
     must_change_password INTEGER NOT NULL DEFAULT 0,
     language TEXT);
   CREATE TABLE session (
     id TEXT PRIMARY KEY,
     user_id INTEGER NOT NULL REFERENCES principal(id) ON DELETE CASCADE,
     created TEXT NOT NULL,
     expires TEXT NOT NULL);`,
  // 2 (was main step 5): sessions are stored by the SHA-256 of their id (auth/service.ts); sessions stored by
  // the plain id are dropped (their users log in again).
  `DELETE FROM session;`,
  // 3 (was main step 6): the login limiter's state (now sqlite/main/login-limits.ts), so a restart (a stopped worker, above
  // all) does not give a password guesser fresh free attempts.
  `CREATE TABLE login_limit (
     key TEXT PRIMARY KEY,
     failures INTEGER NOT NULL,
     locked_until INTEGER NOT NULL,
     last INTEGER NOT NULL);`,
  // 4 (was the first half of main step 7): group membership (auth/principals.ts) and principals' descriptions;
  // the administrators of a two-role server join the group (the root's rules follow in resources step 3).
  `CREATE TABLE principal_member (
     group_id INTEGER NOT NULL REFERENCES principal(id) ON DELETE CASCADE,
     user_id INTEGER NOT NULL REFERENCES principal(id) ON DELETE CASCADE,
     PRIMARY KEY (group_id, user_id));
   CREATE INDEX principal_member_user ON principal_member(user_id);
   ALTER TABLE principal ADD COLUMN description TEXT;
   INSERT INTO principal_member (group_id, user_id)
     SELECT g.id, u.id FROM principal g, principal u WHERE g.keyname = 'administrators' AND u.cls = 'U' AND u.is_admin = 1;`,
] }
