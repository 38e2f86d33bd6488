/**
 * @module postgres/external/describe
 * What `fields: "update"` reads of a published table (reference ngw-services §4.3): the
 * geometry's type and SRID from `geometry_columns`, checked against what the layer says, and
 * the other columns as fields. Every wrong input is a 422 naming what is wrong: a missing
 * table or column, an id column that is not an integer or not unique, an SRID or geometry
 * type that differs from the table's.
 */
import type pg from 'pg'
import { validationError } from '../../core/error.ts'
import { GEOMETRY_TYPES as GEOMETRY_TYPE_LIST, type FieldType } from '../../feature/types.ts'
import type { TableDescription } from '../../port/spatialdb.ts'
import { catalogColumns } from './inspect.ts'

/** The geometry types a layer may have. */
const GEOMETRY_TYPES = new Set<string>(GEOMETRY_TYPE_LIST)

/** Column types (`pg_type.typname`) and the field each becomes (reference §4.3); others are skipped. */
const FIELD_OF: Record<string, FieldType | 'JSON'> = {
  int8: 'BIGINT', int4: 'INTEGER', int2: 'INTEGER',
  numeric: 'REAL', float4: 'REAL', float8: 'REAL',
  varchar: 'STRING', bpchar: 'STRING', text: 'STRING', uuid: 'STRING',
  date: 'DATE', time: 'TIME', timestamp: 'DATETIME', timestamptz: 'DATETIME',
  bool: 'BOOLEAN', json: 'JSON', jsonb: 'JSON',
}

const ID_TYPES = new Set(['int2', 'int4', 'int8'])

export interface DescribeInput {
  schema: string; table: string; columnId: string; columnGeom: string
  geometryType: string | null; geometrySrid: number | null
}

export async function describeTable(client: pg.ClientBase, t: DescribeInput): Promise<TableDescription> {
  if (t.geometrySrid === 0) throw validationError('0 is an invalid SRID.')
  const found = await catalogColumns(client, t.schema, t.table)
  if (!found) throw validationError(`Table '${t.schema}.${t.table}' not found!`)
  const byName = new Map(found.columns.map((c) => [c.name, c]))
  const id = byName.get(t.columnId)
  if (!id) throw validationError(`Column '${t.columnId}' not found!`)
  if (!ID_TYPES.has(id.typname)) throw validationError('To use column as ID it should have integer type!')
  const geom = byName.get(t.columnGeom)
  if (!geom) throw validationError(`Column '${t.columnGeom}' not found!`)
  if (geom.typname !== 'geometry') throw validationError(`Column '${t.columnGeom}' is not a geometry column (its type is ${geom.formatted}).`)
  // A feature id must name one row: a table needs its id column to be the primary key or unique (a view cannot say).
  if (found.kind === 'r' || found.kind === 'p') {
    const { rows } = await client.query(
      `SELECT 1 FROM pg_catalog.pg_index i
         JOIN pg_catalog.pg_class c ON c.oid = i.indrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
        WHERE n.nspname = $1 AND c.relname = $2 AND a.attname = $3 AND i.indisunique AND i.indnatts = 1 AND i.indpred IS NULL
        LIMIT 1`, [t.schema, t.table, t.columnId])
    if (!rows.length) {
      throw validationError(`Column '${t.columnId}' of table '${t.schema}.${t.table}' is neither its primary key nor unique: feature ids must name one row each.`)
    }
  }
  let geometryType = t.geometryType
  let geometrySrid = t.geometrySrid
  const { rows: gc } = await client.query<{ type: string; coord_dimension: number; srid: number }>(
    'SELECT type, coord_dimension, srid FROM geometry_columns WHERE f_table_schema = $1 AND f_table_name = $2 AND f_geometry_column = $3',
    [t.schema, t.table, t.columnGeom])
  const row = gc[0]
  if (row) {
    if (row.srid === 0) {
      if (geometrySrid === null) throw validationError('SRID missing in geometry_columns table! You should specify it manually.')
    } else if (geometrySrid !== null && geometrySrid !== row.srid) {
      throw validationError(`SRID in geometry_columns table does not match specified! (the table's is ${row.srid}, the layer's ${geometrySrid})`)
    } else {
      geometrySrid = row.srid
    }
    if (row.type.toUpperCase() === 'GEOMETRY') {
      if (geometryType === null) throw validationError('Geometry type missing in geometry_columns table! You should specify it manually.')
    } else {
      const read = row.type.toUpperCase() + (row.coord_dimension === 3 && !/[ZM]$/i.test(row.type) ? 'Z' : '')
      if (!GEOMETRY_TYPES.has(read)) throw validationError(`Geometry type ${read} of column '${t.columnGeom}' is not supported.`)
      if (geometryType !== null && geometryType !== read) {
        throw validationError(`Geometry type in geometry_columns table does not match specified! (the table's is ${read}, the layer's ${geometryType})`)
      }
      geometryType = read
    }
  }
  if (geometryType === null) throw validationError(`Geometry type of column '${t.columnGeom}' is not known: specify geometry_type.`)
  if (geometrySrid === null) throw validationError(`SRID of column '${t.columnGeom}' is not known: specify geometry_srid.`)
  const fields = found.columns.filter((c) => c.name !== t.columnId && c.name !== t.columnGeom && FIELD_OF[c.typname])
    .map((c) => ({ column: c.name, datatype: FIELD_OF[c.typname]! }))
  return { geometryType, geometrySrid, fields }
}
