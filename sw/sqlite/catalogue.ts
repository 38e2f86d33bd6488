/**
 * @module sqlite/catalogue
 * The catalogue's store (`CatalogueStore`): its own database (`catalogue` in the store),
 * apart from the main one: it is replaced whole by an import, and the resource API never
 * touches it. Records are stored as the JSON the API serves (key order kept); the columns
 * beside them are what the import and the start-up load need.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { Database, type SqlDb } from '../store/database.ts'
import type { Store } from '../store/store.ts'
import type { CatalogueStore, IconHead } from '../catalogue/repository.ts'
import type { Detail } from '../catalogue/records.ts'

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

function migrateCatalogue(db: SqlDb): void {
  const version = Number(db.selectValue('PRAGMA user_version'))
  for (let v = version; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]!)
  if (version !== MIGRATIONS.length) db.exec(`PRAGMA user_version = ${MIGRATIONS.length}`)
}

/** Opens (and migrates) the catalogue's database; `opened` hears of it, for its change token. */
export async function openSqliteCatalogue(sqlite: Sqlite3Static, store: Store, opened: (db: Database) => void): Promise<CatalogueStore> {
  const db = await Database.open(sqlite, store, 'catalogue', migrateCatalogue)
  opened(db)
  return {
    source: () => db.read((d) => d.selectValue(`SELECT value FROM meta WHERE key = 'source'`) as 'default' | 'import' | undefined),
    load: () => db.read((d) => {
      const rows = (sql: string) => d.selectValues(sql).map((v) => JSON.parse(String(v)) as Detail)
      return { services: rows('SELECT record FROM geoservice'), statuses: rows('SELECT record FROM geoservice_status'),
        icons: d.selectObjects('SELECT id, guid, name FROM icon') as unknown as IconHead[] }
    }),
    replace: (data, source) => db.write((d) => {
      d.exec('DELETE FROM geoservice_status; DELETE FROM geoservice; DELETE FROM icon;')
      for (const i of data.icons) d.exec('INSERT INTO icon (id, guid, name, png) VALUES (?, ?, ?, ?)', { bind: [i.id, i.guid, i.name, i.png] })
      for (const s of data.services) d.exec('INSERT INTO geoservice (id, record) VALUES (?, ?)', { bind: [s.id as number, JSON.stringify(s)] })
      for (const s of data.statuses) {
        d.exec('INSERT INTO geoservice_status (id, geoservice, record) VALUES (?, ?, ?)', { bind: [s.id as number, s.geoservice as number, JSON.stringify(s)] })
      }
      d.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('source', ?)`, { bind: [source] })
      if (data.defaultIcon) d.exec(`INSERT OR REPLACE INTO meta (key, value) VALUES ('default_icon', ?)`, { bind: [data.defaultIcon] })
      else if (source === 'default') d.exec(`DELETE FROM meta WHERE key = 'default_icon'`)
    }),
    icon: (id) => db.read((d) => (id === 'default'
      ? d.selectValue(`SELECT value FROM meta WHERE key = 'default_icon'`)
      : d.selectValue('SELECT png FROM icon WHERE id = ?', [id])) as Uint8Array | undefined),
  }
}
