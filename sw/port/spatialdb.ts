/**
 * @module port/spatialdb
 * Tables of a team's own PostGIS database, published without copying (issue 24: the spec's
 * `spatialdb_connection` / `spatialdb_layer`, the original's `postgis_*`; reference
 * ngw-services.md §4). The classes (classes/spatialdb_*) keep the resources and their rules; an
 * implementation of this port (sw/postgres/external/, on the Node host) holds the pools and
 * speaks SQL. The service worker has none: it cannot open a database connection, so creating
 * such a resource there is a 422 that says so.
 *
 * Nothing here is built from user text: schema, table and column names are quoted identifiers,
 * values are bound parameters.
 */
import type { FeatureLayer, FieldType, LayerMeta } from '../feature/types.ts'

/** How to reach the database (`spatialdb_connection`), the password decrypted. */
export interface SpatialDbParams {
  hostname: string
  /** `null`: 5432. */
  port: number | null
  database: string
  username: string
  password: string
  /** libpq's `sslmode` (`disable`, `allow`, `prefer`, `require`, `verify-ca`, `verify-full`); `null`: `prefer`. */
  sslmode: string | null
}

/** A connection resource as the port sees it: pools are kept per `id` and rebuilt when `params` change. */
export interface SpatialDbSource {
  id: number
  params: SpatialDbParams
}

/** A published table (`spatialdb_layer`). */
export interface SpatialDbTable {
  schema: string
  table: string
  columnId: string
  columnGeom: string
  /** NGW's type of the layer (`POINT`, `MULTIPOLYGONZ`…). */
  geometryType: string
  /** The SRID of the stored geometries; the layer's `srs` (LayerMeta.srs) is what the API reads and writes. */
  geometrySrid: number
  /** Field id → its column (a field's keyname may be renamed; its column stays). */
  columns: ReadonlyMap<number, string>
}

/** What `fields: "update"` reads of a table (reference §4.3), checked against what was given. */
export interface TableDescription {
  geometryType: string
  geometrySrid: number
  /** The columns that become fields, in table order (id and geometry columns left out; unsupported types skipped). */
  fields: { column: string; datatype: FieldType | 'JSON' }[]
}

/** One check of `POST /api/component/postgis/check` (reference §4.4). */
export interface CheckGroup {
  status: 'success' | 'warning' | 'error'
  group: 'connection' | 'layer'
  title?: string
  messages: { status?: 'success' | 'warning' | 'error'; text?: string }[]
}

export interface SpatialDbPort {
  /** Schemas with their tables and views (`GET /api/resource/{conn}/inspect/`). */
  inspect(src: SpatialDbSource): Promise<{ schema: string; tables: string[]; views: string[] }[]>
  /** A table's columns and their PostgreSQL types (`…/inspect/{table}/?schema=`); a missing table is a 422. */
  columns(src: SpatialDbSource, schema: string, table: string): Promise<{ name: string; type: string }[]>
  /**
   * Reads the table for `fields: "update"`: its geometry from `geometry_columns` and its other
   * columns, with the 422s of reference §4.3 (missing table or column, non-integer id, SRID or
   * type mismatch) naming what is wrong.
   */
  describe(src: SpatialDbSource, t: { schema: string; table: string; columnId: string; columnGeom: string;
    geometryType: string | null; geometrySrid: number | null }): Promise<TableDescription>
  /** The diagnostics of `POST /api/component/postgis/check`. */
  check(params: SpatialDbParams, layer?: Omit<SpatialDbTable, 'columns' | 'geometryType' | 'geometrySrid'>
    & { geometryType: string | null; geometrySrid: number | null }): Promise<CheckGroup[]>
  /**
   * The features of a published table as a feature layer (filters, order, paging and
   * `intersects` in SQL on the remote table; geometries transformed between `geometrySrid` and
   * `meta.srs`). No `token`: another client may write the table at any time, so nothing caches it.
   */
  layer(src: SpatialDbSource, t: SpatialDbTable, meta: LayerMeta): FeatureLayer
  /** Closes the pool of connection `id` (its parameters changed, or it was deleted). */
  forget(id: number): Promise<void>
  /** Closes every pool (the app stops). */
  close(): Promise<void>
}
