/**
 * @module postgres/external/inspect
 * What a connection's inspection endpoints read (reference ngw-services §4.4): the schemas
 * with their tables and views, and a table's columns with their types written as the
 * original's SQL dialect compiles them (`INTEGER`, `VARCHAR(50)`, `GEOMETRY(POINT, 3857)`).
 * Read from the catalog in one statement each; names are bound values, never SQL text.
 */
import type pg from 'pg'
import { validationError } from '../../core/error.ts'

/** PostGIS's own tables and views, left out as the original leaves them out. */
const POSTGIS_TABLES = ['spatial_ref_sys', 'geometry_columns', 'geography_columns', 'raster_columns', 'raster_overviews']

/** Schemas (but information_schema and pg_*) with their tables (plain, partitioned, foreign) and views (plain, materialized). */
export async function inspectSchemas(client: pg.ClientBase): Promise<{ schema: string; tables: string[]; views: string[] }[]> {
  const { rows } = await client.query<{ schema: string; name: string | null; kind: string | null }>(
    `SELECT n.nspname AS schema, c.relname AS name, c.relkind AS kind
       FROM pg_catalog.pg_namespace n
       LEFT JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'f', 'v', 'm')
        AND NOT (c.relname = ANY($1::text[])) AND NOT c.relispartition
      WHERE n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\\_%'
      ORDER BY n.nspname, c.relname`, [POSTGIS_TABLES])
  const out = new Map<string, { schema: string; tables: string[]; views: string[] }>()
  for (const r of rows) {
    let s = out.get(r.schema)
    if (!s) out.set(r.schema, s = { schema: r.schema, tables: [], views: [] })
    if (r.name === null) continue
    ;(r.kind === 'v' || r.kind === 'm' ? s.views : s.tables).push(r.name)
  }
  return [...out.values()]
}

/** One column of a table as the catalog describes it. */
export interface CatalogColumn {
  name: string
  /** `pg_type.typname` (`int4`, `varchar`, `geometry`…). */
  typname: string
  /** `format_type()`: `character varying(50)`, `geometry(Point,3857)`… */
  formatted: string
  notNull: boolean
}

/** The columns of `schema.table` in table order; `undefined` when there is no such table or view. */
export async function catalogColumns(client: pg.ClientBase, schema: string, table: string):
  Promise<{ kind: string; columns: CatalogColumn[] } | undefined> {
  const { rows } = await client.query<{ kind: string; name: string | null; typname: string | null; formatted: string | null; not_null: boolean | null }>(
    `SELECT c.relkind AS kind, a.attname AS name, t.typname, format_type(a.atttypid, a.atttypmod) AS formatted, a.attnotnull AS not_null
       FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
       LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
      WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'f', 'v', 'm')
      ORDER BY a.attnum`, [schema, table])
  if (!rows.length) return undefined
  return { kind: rows[0]!.kind, columns: rows.filter((r) => r.name !== null)
    .map((r) => ({ name: r.name!, typname: r.typname!, formatted: r.formatted!, notNull: !!r.not_null })) }
}

/** `format_type()`'s text as SQLAlchemy's PostgreSQL dialect compiles the type (reference §4.4). */
export function compiledType(formatted: string): string {
  const geom = /^(geometry|geography)(?:\((\w+),(\d+)\))?$/i.exec(formatted)
  if (geom) return `${geom[1]!.toUpperCase()}(${(geom[2] ?? 'GEOMETRY').toUpperCase()}, ${geom[3] ?? 0})`
  return formatted
    .replace(/^character varying/, 'varchar')
    .replace(/^character\b/, 'char')
    .replace(/\((\d+),(\d+)\)$/, '($1, $2)')
    .toUpperCase()
}

/** `GET /api/resource/{conn}/inspect/{table}/?schema=`: 422 when there is no such table (the original's words). */
export async function tableColumns(client: pg.ClientBase, schema: string, table: string): Promise<{ name: string; type: string }[]> {
  const found = await catalogColumns(client, schema, table)
  if (!found) throw validationError(`Table (${table}) not found in schema (${schema}).`)
  return found.columns.map((c) => ({ name: c.name, type: compiledType(c.formatted) }))
}
