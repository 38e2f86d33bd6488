/**
 * @module sqlite/features/schema
 * A vector layer's own database, shaped as a GeoPackage: the `gpkg_*` tables, the feature
 * table `feature` (`fid`, `geom` as GeoPackage blobs, one `fld_<field id>` column per field,
 * so renames touch nothing here), its R*Tree `rtree_feature_geom`, and the layer's
 * extension tables: descriptions and attachments. Versions, history and stored transactions
 * are in `history-schema.ts`, the sync bookkeeping in `replica.ts`.
 */
import type { SqlDb } from '../../store/database.ts'
import { projectionOf } from '../../geo/srs.ts'
import { gpkgBbox } from '../../geo/gpkg.ts'
import type { Field, FieldType, LayerMeta } from '../../feature/types.ts'
import { addHistoryTables, HISTORY_TABLE } from './history-schema.ts'
import { addProblemTable, addReplicaTables } from './replica.ts'

export const FEATURE_TABLE = 'feature'
export const RTREE_TABLE = 'rtree_feature_geom'
const SCHEMA_VERSION = '3'

/** SQLite column types of the field types, as GeoPackage names them. */
export const COLUMN_TYPES: Record<FieldType, string> = {
  INTEGER: 'INTEGER', BIGINT: 'INTEGER', REAL: 'REAL', STRING: 'TEXT', DATE: 'DATE', TIME: 'TEXT',
  DATETIME: 'DATETIME', BOOLEAN: 'BOOLEAN',
}

export const columnOf = (fieldId: number) => `fld_${fieldId}`

/** Creates the schema on a fresh image (runs inside the opening transaction). */
export function migrateLayer(db: SqlDb, meta: LayerMeta): void {
  const version = db.selectValue(`SELECT 1 FROM sqlite_master WHERE name = 'layer_meta'`)
    ? db.selectValue(`SELECT value FROM layer_meta WHERE key = 'schema'`) : undefined
  if (version === SCHEMA_VERSION) return
  if (version === '1' || version === '2') {
    if (version === '1') {
      // 2: the change journal became versions and history (reference §12); the sync tables came with it.
      const cols = db.selectObjects(`SELECT field_id, datatype FROM layer_column`) as { field_id: number; datatype: FieldType }[]
      addHistoryTables(db, cols.map((c) => `${columnOf(c.field_id)} ${COLUMN_TYPES[c.datatype]}`))
      addReplicaTables(db)
    } else {
      // 3: remote features a pull could not take (sync_problem).
      addProblemTable(db)
    }
    db.exec({ sql: `UPDATE layer_meta SET value = ? WHERE key = 'schema'`, bind: [SCHEMA_VERSION] })
    return
  }
  const geomType = meta.geometryType.replace(/Z$/, '')
  const z = meta.geometryType.endsWith('Z') ? 1 : 0
  const srs = projectionOf(meta.srs)
  db.exec(`
    PRAGMA application_id = 1196444487;
    PRAGMA user_version = 10400;
    CREATE TABLE gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER PRIMARY KEY,
      organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
    INSERT INTO gpkg_spatial_ref_sys VALUES ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', NULL),
      ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', NULL);
    CREATE TABLE gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL,
      identifier TEXT UNIQUE, description TEXT DEFAULT '',
      last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
      min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE,
      srs_id INTEGER REFERENCES gpkg_spatial_ref_sys(srs_id));
    CREATE TABLE gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
      geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
      PRIMARY KEY (table_name, column_name));
    CREATE TABLE gpkg_extensions (table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL,
      definition TEXT NOT NULL, scope TEXT NOT NULL, UNIQUE (table_name, column_name, extension_name));
    CREATE TABLE ${FEATURE_TABLE} (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom BLOB);
    CREATE VIRTUAL TABLE ${RTREE_TABLE} USING rtree(id, minx, maxx, miny, maxy);
    CREATE TABLE feature_description (fid INTEGER PRIMARY KEY REFERENCES ${FEATURE_TABLE}(fid) ON DELETE CASCADE,
      value TEXT NOT NULL);
    CREATE TABLE feature_attachment (id INTEGER PRIMARY KEY AUTOINCREMENT,
      fid INTEGER NOT NULL REFERENCES ${FEATURE_TABLE}(fid) ON DELETE CASCADE,
      keyname TEXT, name TEXT, size INTEGER NOT NULL, mime_type TEXT NOT NULL, description TEXT,
      file_meta TEXT, blob_id TEXT NOT NULL);
    CREATE INDEX feature_attachment_fid ON feature_attachment (fid);
    CREATE TABLE layer_column (field_id INTEGER PRIMARY KEY, column_name TEXT NOT NULL, datatype TEXT NOT NULL);
    CREATE TABLE layer_meta (key TEXT PRIMARY KEY, value TEXT);`)
  db.exec({ sql: `INSERT INTO gpkg_spatial_ref_sys VALUES (?, ?, 'EPSG', ?, 'undefined', ?)`,
    bind: [srs?.displayName ?? `EPSG:${meta.srs}`, meta.srs, meta.srs, srs?.proj4 ?? null] })
  db.exec({ sql: `INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, 'features', ?, ?)`,
    bind: [FEATURE_TABLE, `layer ${meta.resourceId}`, meta.srs] })
  db.exec({ sql: `INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', ?, ?, ?, 0)`, bind: [FEATURE_TABLE, geomType, meta.srs, z] })
  db.exec({ sql: `INSERT INTO gpkg_extensions VALUES (?, 'geom', 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')`,
    bind: [FEATURE_TABLE] })
  db.exec({ sql: `INSERT INTO layer_meta VALUES ('schema', ?), ('resource_id', ?)`, bind: [SCHEMA_VERSION, meta.resourceId] })
  addHistoryTables(db, [])
  addReplicaTables(db)
  syncColumns(db, meta.fields)
}

/** Adds and drops `fld_*` columns so the feature table matches the field list. */
export function syncColumns(db: SqlDb, fields: Field[]): void {
  const have = new Map((db.selectObjects(`SELECT field_id, datatype FROM layer_column`) as { field_id: number; datatype: string }[])
    .map((r) => [r.field_id, r.datatype]))
  const want = new Map(fields.map((f) => [f.id, f.datatype]))
  for (const [id] of have) {
    if (want.has(id)) continue
    db.exec(`ALTER TABLE ${FEATURE_TABLE} DROP COLUMN ${columnOf(id)}`)
    db.exec(`ALTER TABLE ${HISTORY_TABLE} DROP COLUMN ${columnOf(id)}`)
    db.exec({ sql: `DELETE FROM layer_column WHERE field_id = ?`, bind: [id] })
  }
  for (const [id, datatype] of want) {
    if (have.has(id)) continue
    db.exec(`ALTER TABLE ${FEATURE_TABLE} ADD COLUMN ${columnOf(id)} ${COLUMN_TYPES[datatype]}`)
    db.exec(`ALTER TABLE ${HISTORY_TABLE} ADD COLUMN ${columnOf(id)} ${COLUMN_TYPES[datatype]}`)
    db.exec({ sql: `INSERT INTO layer_column VALUES (?, ?, ?)`, bind: [id, columnOf(id), datatype] })
  }
}

/**
 * SQL functions the queries use: GeoPackage's `ST_MinX`… on geometry blobs, and a Unicode
 * `lower` for `ilike` (SQLite's own folds ASCII only).
 */
export function registerFunctions(db: SqlDb, intersects: (blob: Uint8Array) => boolean): void {
  const box = (i: number) => (_ctx: number, blob: unknown) => {
    if (!(blob instanceof Uint8Array)) return null
    return gpkgBbox(blob)?.[i] ?? null
  }
  const opts = { deterministic: true, innocuous: true } as const
  db.createFunction('ST_MinX', box(0), { ...opts, arity: 1 })
  db.createFunction('ST_MinY', box(1), { ...opts, arity: 1 })
  db.createFunction('ST_MaxX', box(2), { ...opts, arity: 1 })
  db.createFunction('ST_MaxY', box(3), { ...opts, arity: 1 })
  db.createFunction('lower_u', (_ctx: number, s: unknown) => (s === null ? null : String(s).toLowerCase()), { ...opts, arity: 1 })
  db.createFunction('outpost_intersects', (_ctx: number, blob: unknown) =>
    (blob instanceof Uint8Array && intersects(blob) ? 1 : 0), { arity: 1 })
}
