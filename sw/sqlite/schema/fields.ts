/**
 * @module sqlite/schema/fields
 * The main database's table of feature-layer fields (`layer_field`).
 * Each step runs once, in order (`sqlite/migrate.ts`); a released step is never edited, only followed by another.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const fieldsSchema: ComponentSchema = { component: 'fields', steps: [
  // 1: the fields of feature layers (part of main step 1 before the schema was split per component).
  `CREATE TABLE layer_field (
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
   CREATE INDEX layer_field_resource ON layer_field(resource_id);`,
] }
