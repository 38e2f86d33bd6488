/**
 * @module postgres/schema/fields
 * The feature layers' fields (`layer_field`) in PostgreSQL's dialect (sqlite/schema/fields.ts's
 * end state); ids from `outpost_reserve` (schema/resources.ts), as AUTOINCREMENT on SQLite.
 * Each step runs once, in order (`postgres/migrate.ts`); a released step is never edited.
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const fieldsSchema: ComponentSchema = { component: 'fields', steps: [
  `CREATE TABLE layer_field (
     id BIGINT PRIMARY KEY DEFAULT outpost_reserve('layer_field', 1),
     resource_id BIGINT NOT NULL REFERENCES resource(id) ON DELETE CASCADE,
     idx INTEGER NOT NULL,
     keyname TEXT NOT NULL,
     display_name TEXT NOT NULL,
     datatype TEXT NOT NULL,
     label_field BOOLEAN NOT NULL DEFAULT false,
     grid_visibility BOOLEAN NOT NULL DEFAULT true,
     text_search BOOLEAN NOT NULL DEFAULT true,
     lookup_table_id BIGINT);
   CREATE INDEX layer_field_resource ON layer_field(resource_id);`,
] }
