/**
 * @module sqlite/schema/acl
 * The main database's ACL change token and change list (auth/acl.ts), moved by triggers on the tree and principals.
 * Each step runs once, in order (`sqlite/migrate.ts`); a released step is never edited, only followed by another.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const aclSchema: ComponentSchema = { component: 'acl', steps: [
  // 1 (was main step 8): the permission evaluator's change token (auth/acl.ts): bumped by what can change who may
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
  // 2 (was main step 9): what each bump of the ACL change token changed (auth/acl.ts), so the evaluator re-reads
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
] }
