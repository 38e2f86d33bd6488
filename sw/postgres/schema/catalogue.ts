/**
 * @module postgres/schema/catalogue
 * The geoservice catalogue's tables (postgres/catalogue.ts), apart from the main data's as
 * SQLite keeps them in a database of their own: replaced whole by an import, never touched by
 * the resource API. Records are the JSON the API serves, as TEXT (not jsonb, which would
 * reorder their keys). Each step runs once, in order (`postgres/migrate.ts`).
 */
import type { ComponentSchema } from '../../port/schema.ts'

export const catalogueSchema: ComponentSchema = { component: 'catalogue', steps: [
  `CREATE TABLE catalogue_icon (
     id BIGINT PRIMARY KEY,
     guid TEXT NOT NULL,
     name TEXT NOT NULL,
     png BYTEA NOT NULL);
   CREATE TABLE catalogue_geoservice (
     id BIGINT PRIMARY KEY,
     record TEXT NOT NULL);
   CREATE TABLE catalogue_geoservice_status (
     id BIGINT PRIMARY KEY,
     geoservice BIGINT NOT NULL REFERENCES catalogue_geoservice(id),
     record TEXT NOT NULL);
   CREATE INDEX catalogue_geoservice_status_geoservice ON catalogue_geoservice_status (geoservice);
   -- One row once filled: where the content came from ('default' or 'import') and the default icon (PNG).
   CREATE TABLE catalogue_meta (
     one BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (one),
     source TEXT NOT NULL,
     default_icon BYTEA);`,
] }
