// port: legacy-sql (issue 22)
/**
 * @module catalogue/schema
 * The catalogue's own database (`catalogue` in the store), apart from the main one: it is
 * replaced whole by an import, and the resource API never touches it. Records are stored as
 * the JSON the API serves (key order kept); the columns beside them are what the import and
 * the start-up load need.
 */
import type { SqlDb } from '../store/database.ts'

const MIGRATIONS: string[] = [
  `CREATE TABLE icon (
     id INTEGER PRIMARY KEY,
     guid TEXT NOT NULL,
     name TEXT NOT NULL,
     png BLOB NOT NULL);
   CREATE TABLE geoservice (
     id INTEGER PRIMARY KEY,
     record TEXT NOT NULL);
   CREATE TABLE geoservice_status (
     id INTEGER PRIMARY KEY,
     geoservice INTEGER NOT NULL REFERENCES geoservice(id),
     record TEXT NOT NULL);
   CREATE INDEX geoservice_status_geoservice ON geoservice_status(geoservice);
   -- 'default_icon' (PNG), 'source' (text: 'default' or 'import').
   CREATE TABLE meta (
     key TEXT PRIMARY KEY,
     value BLOB);`,
]

export function migrateCatalogue(db: SqlDb): void {
  const version = Number(db.selectValue('PRAGMA user_version'))
  for (let v = version; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]!)
  if (version !== MIGRATIONS.length) db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`)
}
