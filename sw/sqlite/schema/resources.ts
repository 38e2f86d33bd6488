/**
 * @module sqlite/schema/resources
 * The main database's tables of the resource tree: resources, their metadata, the tree's invariants.
 * Each step runs once, in order (`sqlite/migrate.ts`); a released step is never edited, only followed by another.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const resourcesSchema: ComponentSchema = { component: 'resources', steps: [
  // 1: the resource tree and its metadata (part of main step 1 before the schema was split per component).
  `CREATE TABLE resource (
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
     PRIMARY KEY (resource_id, key));`,
  // 2 (was main step 4): the tree's invariants, held by the database itself and not only by the routes: the root
  // (id 0) never moves, changes its id or goes; every other resource has a parent; no move
  // makes a cycle (walking up from the new parent must not meet the moved resource; UNION, not
  // UNION ALL, so the walk ends even on a tree that is already broken). `guardTree`
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
  // 3 (was the second half of main step 7): the root's ACL as the original installs it (reference ngw-services §5.3):
  // administrators may do everything, signed-in users may read the root. A tree with no rules was the two-role
  // server's: its administrator keeps every right through the group (auth step 4).
  `UPDATE resource SET permissions = json_array(
       json_object('action', 'allow', 'principal', json_object('id', (SELECT id FROM principal WHERE keyname = 'administrators')),
         'identity', '', 'scope', '', 'permission', '', 'propagate', json('true')),
       json_object('action', 'allow', 'principal', json_object('id', (SELECT id FROM principal WHERE keyname = 'authenticated')),
         'identity', '', 'scope', 'resource', 'permission', 'read', 'propagate', json('false')))
     WHERE id = 0 AND permissions = '[]' AND EXISTS (SELECT 1 FROM principal WHERE keyname = 'administrators');`,
] }
