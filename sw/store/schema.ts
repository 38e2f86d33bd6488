/**
 * @module store/schema
 * The main database's schema and its migrations. Each migration runs once, in order, in the
 * transaction that opens the database; `PRAGMA user_version` counts the ones applied.
 */
import type { SqlDb } from './database.ts'

const MIGRATIONS: string[] = [
  // 1: principals, sessions, the resource tree, metadata, fields, the change journal.
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
     expires TEXT NOT NULL);
   CREATE TABLE resource (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     cls TEXT NOT NULL,
     parent_id INTEGER REFERENCES resource(id),
     keyname TEXT UNIQUE,
     display_name TEXT NOT NULL,
     description TEXT,
     owner_user_id INTEGER NOT NULL,
     creation_date TEXT NOT NULL,
     permissions TEXT NOT NULL DEFAULT '[]',
     data TEXT NOT NULL DEFAULT '{}');
   CREATE INDEX resource_parent ON resource(parent_id);
   CREATE TABLE resmeta (
     resource_id INTEGER NOT NULL REFERENCES resource(id) ON DELETE CASCADE,
     key TEXT NOT NULL,
     value TEXT NOT NULL,
     PRIMARY KEY (resource_id, key));
   CREATE TABLE layer_field (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     resource_id INTEGER NOT NULL REFERENCES resource(id) ON DELETE CASCADE,
     idx INTEGER NOT NULL,
     keyname TEXT NOT NULL,
     display_name TEXT NOT NULL,
     datatype TEXT NOT NULL,
     label_field INTEGER NOT NULL DEFAULT 0,
     grid_visibility INTEGER NOT NULL DEFAULT 1,
     text_search INTEGER NOT NULL DEFAULT 1,
     lookup_table_id INTEGER);
   CREATE INDEX layer_field_resource ON layer_field(resource_id);
   CREATE TABLE journal (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     tstamp TEXT NOT NULL,
     user_id INTEGER,
     resource_id INTEGER,
     action TEXT NOT NULL,
     payload TEXT);`,
  // 2: file uploads (sw/upload/). `received` < `size` while a TUS upload is incomplete; `parts`
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
  // 3: stored files (sw/files/) on their way into or out of a resource: `staged` until a
  // resource adopts them, `released` until their chunks are deleted.
  `CREATE TABLE file_pending (
     key TEXT PRIMARY KEY,
     size INTEGER NOT NULL,
     state TEXT NOT NULL CHECK (state IN ('staged', 'released')),
     created TEXT NOT NULL);`,
  // 4: the tree's invariants, held by the database itself and not only by the routes: the root
  // (id 0) never moves, changes its id or goes; every other resource has a parent; no move
  // makes a cycle (walking up from the new parent must not meet the moved resource; UNION, not
  // UNION ALL, so the walk ends even on a tree that is already broken). `resource/tree-guard.ts`
  // turns the messages into the original's 422s.
  `CREATE TRIGGER resource_root_delete BEFORE DELETE ON resource WHEN OLD.id = 0
     BEGIN SELECT RAISE(ABORT, 'outpost:tree:root_delete'); END;
   CREATE TRIGGER resource_root_update BEFORE UPDATE OF id, parent_id ON resource
     WHEN OLD.id = 0 AND (NEW.id IS NOT 0 OR NEW.parent_id IS NOT NULL)
     BEGIN SELECT RAISE(ABORT, 'outpost:tree:root_move'); END;
   CREATE TRIGGER resource_parent_insert BEFORE INSERT ON resource
     WHEN NEW.parent_id IS NULL AND NEW.id IS NOT 0
     BEGIN SELECT RAISE(ABORT, 'outpost:tree:parent_required'); END;
   CREATE TRIGGER resource_parent_update BEFORE UPDATE OF parent_id ON resource
     WHEN NEW.parent_id IS NULL AND OLD.id IS NOT 0
     BEGIN SELECT RAISE(ABORT, 'outpost:tree:parent_required'); END;
   CREATE TRIGGER resource_cycle BEFORE UPDATE OF parent_id ON resource
     WHEN NEW.parent_id IS NOT NULL AND NEW.id IN (
       WITH RECURSIVE up(id) AS (
         SELECT NEW.parent_id
         UNION SELECT r.parent_id FROM resource r JOIN up ON r.id = up.id WHERE r.parent_id IS NOT NULL)
       SELECT id FROM up)
     BEGIN SELECT RAISE(ABORT, 'outpost:tree:cycle'); END;`,
  // 5: sessions are stored by the SHA-256 of their id (auth/service.ts); sessions stored by
  // the plain id are dropped (their users log in again).
  `DELETE FROM session;`,
  // 6: the login limiter's state (now sqlite/main/login-limits.ts), so a restart (a stopped worker, above
  // all) does not give a password guesser fresh free attempts.
  `CREATE TABLE login_limit (
     key TEXT PRIMARY KEY,
     failures INTEGER NOT NULL,
     locked_until INTEGER NOT NULL,
     last INTEGER NOT NULL);`,
  // 7: group membership (auth/principals.ts), principals' descriptions, and the root's ACL as the
  // original installs it (reference ngw-services §5.3): administrators may do everything, signed-in
  // users may read the root. A tree with no rules was the two-role server's: its administrator
  // keeps every right through the group.
  `CREATE TABLE principal_member (
     group_id INTEGER NOT NULL REFERENCES principal(id) ON DELETE CASCADE,
     user_id INTEGER NOT NULL REFERENCES principal(id) ON DELETE CASCADE,
     PRIMARY KEY (group_id, user_id));
   CREATE INDEX principal_member_user ON principal_member(user_id);
   ALTER TABLE principal ADD COLUMN description TEXT;
   INSERT INTO principal_member (group_id, user_id)
     SELECT g.id, u.id FROM principal g, principal u WHERE g.keyname = 'administrators' AND u.cls = 'U' AND u.is_admin = 1;
   UPDATE resource SET permissions = json_array(
       json_object('action', 'allow', 'principal', json_object('id', (SELECT id FROM principal WHERE keyname = 'administrators')),
         'identity', '', 'scope', '', 'permission', '', 'propagate', json('true')),
       json_object('action', 'allow', 'principal', json_object('id', (SELECT id FROM principal WHERE keyname = 'authenticated')),
         'identity', '', 'scope', 'resource', 'permission', 'read', 'propagate', json('false')))
     WHERE id = 0 AND permissions = '[]' AND EXISTS (SELECT 1 FROM principal WHERE keyname = 'administrators');`,
  // 8: the permission evaluator's change token (auth/acl.ts): bumped by what can change who may
  // do what (the tree's shape and rules, principals, membership), so that its caches outlive
  // the writes that cannot (sessions, uploads, the journal, a layer's change log).
  `CREATE TABLE acl_state (id INTEGER PRIMARY KEY CHECK (id = 0), version INTEGER NOT NULL);
   INSERT INTO acl_state VALUES (0, 0);
   CREATE TRIGGER acl_resource_insert AFTER INSERT ON resource BEGIN UPDATE acl_state SET version = version + 1; END;
   CREATE TRIGGER acl_resource_update AFTER UPDATE OF parent_id, permissions, cls ON resource BEGIN UPDATE acl_state SET version = version + 1; END;
   CREATE TRIGGER acl_resource_delete AFTER DELETE ON resource BEGIN UPDATE acl_state SET version = version + 1; END;
   CREATE TRIGGER acl_principal_insert AFTER INSERT ON principal BEGIN UPDATE acl_state SET version = version + 1; END;
   CREATE TRIGGER acl_principal_delete AFTER DELETE ON principal BEGIN UPDATE acl_state SET version = version + 1; END;
   CREATE TRIGGER acl_member_insert AFTER INSERT ON principal_member BEGIN UPDATE acl_state SET version = version + 1; END;
   CREATE TRIGGER acl_member_delete AFTER DELETE ON principal_member BEGIN UPDATE acl_state SET version = version + 1; END;`,
  // 9: what each bump of the ACL change token changed (auth/acl.ts), so the evaluator re-reads
  // only that resource's rules instead of everything: one row per bump, `resource_id` NULL for
  // a principal or membership change (the evaluator then starts over). The last 1,000 are kept;
  // an evaluator further behind starts over too. An update that writes back the same rules (a
  // client putting back the list it read) no longer counts as a change.
  `CREATE TABLE acl_change (version INTEGER PRIMARY KEY, resource_id INTEGER);
   DROP TRIGGER acl_resource_insert; DROP TRIGGER acl_resource_update; DROP TRIGGER acl_resource_delete;
   DROP TRIGGER acl_principal_insert; DROP TRIGGER acl_principal_delete; DROP TRIGGER acl_member_insert; DROP TRIGGER acl_member_delete;
${[['resource_insert', 'INSERT ON resource', 'NEW.id'], ['resource_update', `UPDATE OF parent_id, permissions, cls ON resource
     WHEN OLD.parent_id IS NOT NEW.parent_id OR OLD.permissions IS NOT NEW.permissions OR OLD.cls IS NOT NEW.cls`, 'NEW.id'],
    ['resource_delete', 'DELETE ON resource', 'OLD.id'], ['principal_insert', 'INSERT ON principal', 'NULL'],
    ['principal_delete', 'DELETE ON principal', 'NULL'], ['member_insert', 'INSERT ON principal_member', 'NULL'],
    ['member_delete', 'DELETE ON principal_member', 'NULL']].map(([name, on, id]) => `   CREATE TRIGGER acl_${name} AFTER ${on} BEGIN
     UPDATE acl_state SET version = version + 1;
     INSERT INTO acl_change VALUES ((SELECT version FROM acl_state), ${id});
     DELETE FROM acl_change WHERE version <= (SELECT version FROM acl_state) - 1000;
   END;`).join('\n')}`,
]

export const SCHEMA_VERSION = MIGRATIONS.length

export function migrateMain(db: SqlDb): void {
  const version = Number(db.selectValue('PRAGMA user_version'))
  for (let v = version; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]!)
  if (version !== MIGRATIONS.length) db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`)
}
