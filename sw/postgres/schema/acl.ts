/**
 * @module postgres/schema/acl
 * The permission evaluator's change token (`acl_state`) and its log (`acl_change`) in
 * PostgreSQL's dialect (sqlite/schema/acl.ts's end state), kept by row triggers as on SQLite, so
 * the token moves in the transaction of the change, whoever writes it. Each step runs once, in
 * order (`postgres/migrate.ts`); a released step is never edited, only followed by another.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const aclSchema: ComponentSchema = { component: 'acl', steps: [
  // One bump per changed row of what decides who may do what (the tree's shape, rules and
  // classes; principals; memberships), logged with the resource it names (NULL: principals or
  // memberships, the evaluator starts over). The last 1,000 are kept. An update writing back
  // the same rules, parent and class is no change.
  // The triggers on auth's tables need its schema, which runs first (schema/index.ts order).
  `CREATE TABLE acl_state (id INTEGER PRIMARY KEY CHECK (id = 0), version INTEGER NOT NULL);
   INSERT INTO acl_state VALUES (0, 0);
   CREATE TABLE acl_change (version INTEGER PRIMARY KEY, resource_id BIGINT);
   CREATE FUNCTION acl_changed() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     rid BIGINT;
     v INTEGER;
   BEGIN
     IF TG_TABLE_NAME = 'resource' THEN
       IF TG_OP = 'DELETE' THEN rid := OLD.id; ELSE rid := NEW.id; END IF;
     END IF;
     UPDATE acl_state SET version = version + 1 RETURNING version INTO v;
     INSERT INTO acl_change VALUES (v, rid);
     DELETE FROM acl_change WHERE version <= v - 1000;
     RETURN NULL;
   END $$;
   CREATE TRIGGER acl_resource_insert AFTER INSERT ON resource FOR EACH ROW EXECUTE FUNCTION acl_changed();
   CREATE TRIGGER acl_resource_update AFTER UPDATE OF parent_id, permissions, cls ON resource FOR EACH ROW
     WHEN (OLD.parent_id IS DISTINCT FROM NEW.parent_id OR OLD.permissions IS DISTINCT FROM NEW.permissions OR OLD.cls IS DISTINCT FROM NEW.cls)
     EXECUTE FUNCTION acl_changed();
   CREATE TRIGGER acl_resource_delete AFTER DELETE ON resource FOR EACH ROW EXECUTE FUNCTION acl_changed();
   CREATE TRIGGER acl_principal AFTER INSERT OR DELETE ON principal FOR EACH ROW EXECUTE FUNCTION acl_changed();
   CREATE TRIGGER acl_member AFTER INSERT OR DELETE ON principal_member FOR EACH ROW EXECUTE FUNCTION acl_changed();`,
] }
