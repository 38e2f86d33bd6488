/**
 * @module postgres/schema/resources
 * The resource tree in PostgreSQL's dialect (sqlite/schema/resources.ts's end state): resources,
 * their metadata, the id counters and the tree's invariants. Each step runs once, in order
 * (`postgres/migrate.ts`); a released step is never edited, only followed by another.
 *
 * Columns keep SQLite's meanings so the repositories answer alike: dates, rules (`permissions`),
 * class data and resmeta values are TEXT (JSON as the components wrote it, returned as written).
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const resourcesSchema: ComponentSchema = { component: 'resources', steps: [
  // Ids from `outpost_reserve` (schema/port.ts), as SQLite's AUTOINCREMENT hands them out.
  // The tree's invariants, held by the database itself: the root (id 0) never moves, changes its
  // id or goes; every other resource has a parent; no move makes a cycle (walking up from the new
  // parent must not meet the moved resource; UNION, so the walk ends even on a broken tree).
  // The messages are the tags resource/errors.ts `treeRefusal` turns into the original's 422s.
  `CREATE TABLE resource (
     id BIGINT PRIMARY KEY DEFAULT outpost_reserve('resource', 1),
     cls TEXT NOT NULL,
     parent_id BIGINT REFERENCES resource(id),
     keyname TEXT UNIQUE,
     display_name TEXT NOT NULL,
     description TEXT,
     owner_user_id BIGINT NOT NULL,
     creation_date TEXT NOT NULL,
     permissions TEXT NOT NULL DEFAULT '[]',
     data TEXT NOT NULL DEFAULT '{}');
   CREATE INDEX resource_parent ON resource(parent_id);
   CREATE TABLE resmeta (
     resource_id BIGINT NOT NULL REFERENCES resource(id) ON DELETE CASCADE,
     key TEXT NOT NULL,
     value TEXT NOT NULL,
     PRIMARY KEY (resource_id, key));
   CREATE FUNCTION resource_tree_guard() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'DELETE' THEN
       IF OLD.id = 0 THEN RAISE EXCEPTION 'outpost:tree:root_delete'; END IF;
       RETURN OLD;
     END IF;
     IF TG_OP = 'UPDATE' AND OLD.id = 0 AND (NEW.id IS DISTINCT FROM 0 OR NEW.parent_id IS NOT NULL) THEN
       RAISE EXCEPTION 'outpost:tree:root_move';
     END IF;
     IF NEW.parent_id IS NULL AND NEW.id IS DISTINCT FROM 0 THEN
       RAISE EXCEPTION 'outpost:tree:parent_required';
     END IF;
     IF TG_OP = 'UPDATE' AND NEW.parent_id IS NOT NULL AND NEW.parent_id IS DISTINCT FROM OLD.parent_id AND NEW.id IN (
         WITH RECURSIVE up(id) AS (
           SELECT NEW.parent_id
           UNION SELECT r.parent_id FROM resource r JOIN up ON r.id = up.id WHERE r.parent_id IS NOT NULL)
         SELECT id FROM up) THEN
       RAISE EXCEPTION 'outpost:tree:cycle';
     END IF;
     RETURN NEW;
   END $$;
   CREATE TRIGGER resource_tree BEFORE INSERT OR UPDATE OF id, parent_id OR DELETE ON resource
     FOR EACH ROW EXECUTE FUNCTION resource_tree_guard();`,
] }
