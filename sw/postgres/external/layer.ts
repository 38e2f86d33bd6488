/**
 * @module postgres/external/layer
 * A table of a team's own PostGIS database as a feature layer (`spatialdb_layer`, issue 24;
 * reference ngw-services.md §4.2). Nothing is copied and nothing cached: every read and write
 * is SQL on the remote table, through the filters, orders and pages of our own vector layers
 * (features/filter.ts) over the table's own columns (`remoteColumns`):
 * - the id column is the feature id, each field's column is quoted (`escapeIdentifier`), values
 *   are always bound;
 * - geometries are stored in `geometrySrid` and read and written in the layer's SRS: read out
 *   through `ST_Transform`, a filter's geometry transformed the other way on the constant side,
 *   so the table's GiST index answers `intersects` and `inBox`; Z is kept;
 * - a read is one REPEATABLE READ READ ONLY transaction (one snapshot); a write one transaction
 *   at the server's default level, its rows inserted by one statement whatever their number,
 *   canonical values converted to the columns' own types by PostgreSQL (`json_populate_record`
 *   and parameters typed by their column), the ids given by the table's default;
 * - a vector tile is one `ST_AsMVT` statement on the table (features/tile.ts), as a layer's own;
 * - no attachments, descriptions or history here: reads answer none, an attachment write is a
 *   422, a description is ignored; the class keeps attachments and descriptions in our own
 *   storage around this layer (classes/spatialdb_layer/extras.ts), as the original keeps them in its own.
 * Errors (`remoteError`): what the database says about the client's values is a 422 naming it,
 * a table or column that is gone a 422 naming it, a refused privilege (or a table that cannot be
 * written: a view, a read-only server) a 403, anything else of the database — or the database
 * unreachable — a 503 `externalDatabaseError` with the SQLSTATE in `detail`. Never a 500.
 */
import pg from 'pg'
import { ApiError, externalDatabaseError, forbidden, validationError } from '../../core/error.ts'
import type { Bbox, Geometry } from '../../geo/geometry.ts'
import { gpkgOfWkb } from '../../geo/gpkg.ts'
import { readWkb, toWkb } from '../../geo/wkb.ts'
import type {
  AttachmentRow, BoxRow, FeatureFilter, FeatureInput, FeatureLayer, FeatureQuery, FeatureRead, FeatureRow, FeatureUpdate, FeatureWrite, Field,
  FieldType, FieldValue, LayerMeta, RowShape,
} from '../../feature/types.ts'
import type { SpatialDbTable } from '../../port/spatialdb.ts'
import { liveness, type Frame } from '../../port/frames.ts'
import { connOf, type PgConn } from '../conn.ts'
import { bindableId } from '../params.ts'
import { rollback } from '../uow.ts'
import { listFilter, listSql, Params, whereSql, type TableColumns } from '../features/filter.ts'
import { canonical, fromCanonical } from '../features/values.ts'
import { fieldsSet } from '../features/writer.ts'
import { engineTile, type EngineTileOptions, type TileAt } from '../features/tile.ts'

const q = pg.escapeIdentifier

/** `schema.table` as messages name it. */
const nameOf = (t: SpatialDbTable) => `${t.schema}.${t.table}`

function srid(n: number): number {
  if (!Number.isSafeInteger(n) || n <= 0) throw validationError(`${n} is an invalid SRID.`)
  return n
}

/** The column of field `f`, or the 422 of a layer whose field list does not match its table. */
function columnOf(t: SpatialDbTable, f: Field): string {
  const c = t.columns.get(f.id)
  if (c === undefined) throw validationError(`Field '${f.keyname}' has no column in table '${nameOf(t)}'.`)
  return c
}

/**
 * The remote table's parts as SQL for the shared filters: string fields compared as text (a
 * `uuid`, `char` or `json` column read as STRING compares and matches as its text; a `varchar`'s
 * `::text` is free and keeps its index), SRIDs checked integers.
 */
export function remoteColumns(t: SpatialDbTable, srs: number): TableColumns {
  const [from, to] = [srid(t.geometrySrid), srid(srs)]
  const geom = `f.${q(t.columnGeom)}`
  return {
    id: `f.${q(t.columnId)}`,
    field: (f) => {
      const col = `f.${q(columnOf(t, f))}`
      return f.datatype === 'STRING' || !KNOWN.has(f.datatype) ? `${col}::text` : col
    },
    geom,
    // ST_SetSRID: a column that declares no SRID (0) holds geometries in the one given for the layer.
    geomOut: from === to ? geom : `ST_Transform(ST_SetSRID(${geom}, ${from}), ${to})`,
    geomIn: (wkb) => (from === to ? `ST_GeomFromWKB(${wkb}, ${to})` : `ST_Transform(ST_GeomFromWKB(${wkb}, ${to}), ${from})`),
  }
}

const KNOWN = new Set<string>(['INTEGER', 'BIGINT', 'REAL', 'STRING', 'DATE', 'TIME', 'DATETIME', 'BOOLEAN'])

/** The message's column name (`column f.x does not exist`, `column "x" of relation "t" does not exist`). */
function missingColumn(message: string): string {
  const m = /column (?:"([^"]+)"|\w+\.(?:"([^"]+)"|(\S+))|(\S+))/.exec(message)
  return m?.[1] ?? m?.[2] ?? m?.[3] ?? m?.[4] ?? '?'
}

/** Write refusals of the database itself: a privilege, a read-only server, a view that takes no writes. */
const REFUSED_WRITE = new Set(['42501', '25006', '0A000', '55000'])

/** `err` of a statement on table `t` (or of reaching its database) as the answer a client gets. */
export function remoteError(err: unknown, t: SpatialDbTable, writing: boolean): ApiError {
  if (err instanceof ApiError) return err
  const e = err as { code?: unknown; message?: unknown }
  const code = typeof e.code === 'string' ? e.code : undefined
  const message = typeof e.message === 'string' ? e.message : String(err)
  if (!(err instanceof pg.DatabaseError) || !code) {
    // No answer from the server: refused, reset, timed out, the socket or host not found.
    return externalDatabaseError(`Cannot reach the database${code ? ` (${code})` : ''}: ${message}.`, err)
  }
  if (code === '42P01') return validationError(`Table '${nameOf(t)}' not found!`)
  if (code === '42703') return validationError(`Column '${missingColumn(message)}' not found in table '${nameOf(t)}'!`)
  if (code === '42501' || (writing && REFUSED_WRITE.has(code))) {
    return forbidden(`The database refuses to ${writing ? 'write' : 'read'} table '${nameOf(t)}': ${message}.`)
  }
  // Class 23 (a constraint: NOT NULL, unique, check, foreign key) and 22 (a value the column's
  // type does not take): the client's values, refused by the table.
  if (code.startsWith('23') || code.startsWith('22')) return validationError(`Table '${nameOf(t)}' refuses the values: ${message}.`)
  return externalDatabaseError(`PostgreSQL error code: ${code}.`, err)
}

/** `conn` with every failure translated by `remoteError`. */
function guarded(conn: PgConn, t: SpatialDbTable, writing: boolean): PgConn {
  const guard = async <R>(run: () => Promise<R>): Promise<R> => {
    try {
      return await run()
    } catch (err) {
      throw remoteError(err, t, writing)
    }
  }
  return {
    rows: <T>(text: string, params?: readonly unknown[]) => guard(() => conn.rows<T>(text, params)),
    row: <T>(text: string, params?: readonly unknown[]) => guard(() => conn.row<T>(text, params)),
    value: <T>(text: string, params?: readonly unknown[]) => guard(() => conn.value<T>(text, params)),
    exec: (text, params) => guard(() => conn.exec(text, params)),
  }
}

/** `fn` in one transaction on a connection of `pool`: committed when it resolves, rolled back when it throws. */
async function session<T>(pool: pg.Pool, t: SpatialDbTable, writing: boolean, fn: (db: PgConn, live: () => void) => Promise<T>): Promise<T> {
  let client: pg.PoolClient
  try {
    client = await pool.connect()
  } catch (err) {
    throw remoteError(err, t, writing)
  }
  const frame: Frame = { owner: pool, name: nameOf(t), open: true }
  let broken: Error | undefined
  try {
    await client.query(writing ? 'BEGIN' : 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY').catch((err) => { throw remoteError(err, t, writing) })
    let out: T
    try {
      out = await fn(guarded(connOf(client), t, writing), liveness(frame))
    } finally {
      frame.open = false
    }
    await client.query('COMMIT').catch((err) => { throw remoteError(err, t, writing) })
    return out
  } catch (err) {
    broken = await rollback(client, err)
    throw err
  } finally {
    client.release(broken)
  }
}

/** A value of the pool's parsers in canonical form: numbers as numbers whatever parses them (`numeric`, `int8` as text). */
function canonicalOf(type: FieldType, v: unknown): FieldValue {
  if ((type === 'REAL' || type === 'INTEGER') && typeof v === 'string') return Number(v)
  return fromCanonical(type, v)
}

const geometryOf = (wkb: Uint8Array | null): Geometry | null => (wkb ? readWkb(wkb) : null)

/** Reads of the remote table inside one of its transactions. */
class RemoteReader implements FeatureRead {
  readonly cols: TableColumns
  /** The table, quoted. */
  readonly table: string

  constructor(readonly db: PgConn, readonly t: SpatialDbTable, readonly meta: LayerMeta, readonly live: () => void) {
    this.cols = remoteColumns(t, meta.srs)
    this.table = `${q(t.schema)}.${q(t.table)}`
  }

  async list(query: FeatureQuery, shape: RowShape): Promise<FeatureRow[]> {
    this.live()
    const labelField = shape.label ? this.meta.fields.find((f) => f.label_field) : undefined
    const p = new Params()
    const cols = [`${this.cols.id} AS fid`, `${shape.geom ? `ST_AsBinary(${this.cols.geomOut})` : 'NULL::bytea'} AS geom`,
      ...shape.fields.map((f, i) => `${canonical(this.cols.field(f), f.datatype)} AS v${i}`)]
    if (labelField) cols.push(`${canonical(this.cols.field(labelField), labelField.datatype)} AS label`)
    // A feature id past the id column's range (or 2^53) is no feature of it.
    if (query.fid !== undefined && !bindableId(query.fid)) return []
    const rows = await this.db.rows<Record<string, unknown>>(listSql(cols.join(', '), `${this.table} f`,
      whereSql(listFilter(query), this.meta.fields, this.cols, p), query, this.cols, p), p.values)
    return rows.map((r) => {
      const row: FeatureRow = { fid: Number(r.fid), geom: geometryOf(r.geom as Uint8Array | null),
        values: shape.fields.map((f, i) => canonicalOf(f.datatype, r[`v${i}`])) }
      if (shape.label) row.label = labelField ? canonicalOf(labelField.datatype, r.label) : null
      if (shape.description) row.description = null
      return row
    })
  }

  /** The index's answer for `box` (bounding boxes meet), geometries as GeoPackage blobs in the layer's SRS. */
  async inBox(box: Bbox, fields: readonly Field[]): Promise<BoxRow[]> {
    this.live()
    const p = new Params()
    const area: Geometry = { type: 'Polygon', coordinates: [[[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]], [box[0], box[1]]]] }
    const rows = await this.db.rows<Record<string, unknown>>(`SELECT ${this.cols.id} AS fid, ST_AsBinary(${this.cols.geomOut}) AS geom
      ${fields.map((f, i) => `, ${canonical(this.cols.field(f), f.datatype)} AS v${i}`).join('')}
      FROM ${this.table} f WHERE ${this.cols.geom} && ${this.cols.geomIn(p.add(toWkb(area)), p)} ORDER BY ${this.cols.id}`, p.values)
    return rows.map((r) => ({ fid: Number(r.fid), geom: gpkgOfWkb(r.geom as Uint8Array, this.meta.srs),
      values: fields.map((f, i) => canonicalOf(f.datatype, r[`v${i}`])) }))
  }

  async count(filter?: FeatureFilter): Promise<number> {
    this.live()
    const p = new Params()
    return Number(await this.db.value(`SELECT count(*) FROM ${this.table} f ${whereSql(filter, this.meta.fields, this.cols, p)}`, p.values))
  }

  async extent(filter?: FeatureFilter): Promise<Bbox | null> {
    this.live()
    const p = new Params()
    // Each geometry's own box in the layer's SRS (a transformed box of the stored ones would be larger).
    const r = await this.db.row<{ x0: number | null; y0: number; x1: number; y1: number }>(`SELECT min(ST_XMin(g)) AS x0,
      min(ST_YMin(g)) AS y0, max(ST_XMax(g)) AS x1, max(ST_YMax(g)) AS y1
      FROM ${this.table} f CROSS JOIN LATERAL (SELECT ${this.cols.geomOut} AS g) o ${whereSql(filter, this.meta.fields, this.cols, p)}`,
    p.values)
    if (!r || r.x0 === null) return null
    return [r.x0, r.y0, r.x1, r.y1].map(Number) as Bbox
  }

  async exists(fid: number): Promise<boolean> {
    this.live()
    if (!bindableId(fid)) return false
    return (await this.db.value(`SELECT 1 FROM ${this.table} f WHERE ${this.cols.id} = $1::bigint`, [fid])) !== undefined
  }

  async geometry(fid: number): Promise<Geometry | null | undefined> {
    this.live()
    if (!bindableId(fid)) return undefined
    const row = await this.db.row<{ g: Uint8Array | null }>(`SELECT ST_AsBinary(${this.cols.geomOut}) AS g FROM ${this.table} f
      WHERE ${this.cols.id} = $1::bigint`, [fid])
    return row && geometryOf(row.g)
  }

  async attachments(): Promise<Map<number, AttachmentRow[]>> {
    this.live()
    return new Map()
  }

  async attachment(): Promise<AttachmentRow | undefined> {
    this.live()
    return undefined
  }
}

const noAttachments = () => validationError('Attachments are not supported on a spatial database layer.')

/** Writes of the remote table inside one of its transactions. */
class RemoteWriter extends RemoteReader implements FeatureWrite {
  readonly orphanBlobs: readonly string[] = []

  async create(input: FeatureInput): Promise<number> {
    return (await this.createMany([input]))[0]!
  }

  /**
   * One INSERT for the whole batch: each row's values as a JSON object by column name, turned
   * into the table's row type by `json_populate_record` (PostgreSQL's input of each column's own
   * type: 0/1 for a boolean, ISO text for dates, digits for a big integer), the geometries as WKB
   * beside them; the ids from the table's default, in input order.
   */
  async createMany(inputs: readonly FeatureInput[]): Promise<number[]> {
    this.live()
    if (!inputs.length) return []
    const columns = fieldsSet(inputs).map((f) => q(columnOf(this.t, f)))
    const json = inputs.map((input) =>
      `{${input.fields.map((f, k) => `${JSON.stringify(columnOf(this.t, f))}:${jsonValue(f, input.values[k])}`).join(',')}}`)
    const p = new Params()
    const geoms = p.add(inputs.map((input) => (input.geom ? toWkb(input.geom) : null)))
    const sql = `INSERT INTO ${this.table} (${[q(this.t.columnGeom), ...columns].join(', ')})
      SELECT ${this.cols.geomIn('u.g', p)}${columns.map((c) => `, r.${c}`).join('')}
      FROM unnest(${geoms}::bytea[], ${p.add(json)}::json[]) WITH ORDINALITY AS u(g, j, n)
      CROSS JOIN LATERAL json_populate_record(NULL::${this.table}, u.j) AS r
      ORDER BY u.n RETURNING ${q(this.t.columnId)} AS fid`
    return (await this.db.rows<{ fid: unknown }>(sql, p.values)).map((r) => Number(r.fid))
  }

  /** One UPDATE; each parameter takes its column's type, so PostgreSQL converts the canonical value. */
  async update(fid: number, input: FeatureInput): Promise<boolean> {
    this.live()
    if (!bindableId(fid)) return false
    const p = new Params()
    const sets = input.fields.map((f, k) => `${q(columnOf(this.t, f))} = ${p.add(input.values[k] ?? null)}`)
    if (input.geom !== undefined) sets.unshift(`${q(this.t.columnGeom)} = ${this.cols.geomIn(p.add(input.geom && toWkb(input.geom)), p)}`)
    if (!sets.length) return this.exists(fid)
    return await this.db.exec(`UPDATE ${this.table} AS f SET ${sets.join(', ')} WHERE ${this.cols.id} = ${p.add(fid)}::bigint`, p.values) > 0
  }

  /** One UPDATE per feature: each may set other columns. */
  async updateMany(items: readonly FeatureUpdate[]): Promise<boolean[]> {
    const out: boolean[] = []
    for (const { fid, input } of items) out.push(await this.update(fid, input))
    return out
  }

  async delete(fid: number): Promise<boolean> {
    this.live()
    if (!bindableId(fid)) return false
    return await this.db.exec(`DELETE FROM ${this.table} AS f WHERE ${this.cols.id} = $1::bigint`, [fid]) > 0
  }

  async deleteAll(): Promise<void> {
    this.live()
    // DELETE, not TRUNCATE: the table's triggers run and only the DELETE privilege is needed.
    await this.db.exec(`DELETE FROM ${this.table}`)
  }

  async addAttachment(): Promise<number> {
    this.live()
    throw noAttachments()
  }

  async changeAttachment(): Promise<void> {
    this.live()
    throw noAttachments()
  }

  async removeAttachment(): Promise<void> {
    this.live()
    throw noAttachments()
  }
}

/**
 * A canonical value as JSON text in a row: a bigint as its digits in a string (JSON numbers past
 * 2^53 round), the text of a `json`/`jsonb` column's field as it is (checked: a string would be
 * stored as a JSON string, and a `json` column keeps the text it was given).
 */
function jsonValue(f: Field, v: FieldValue | undefined): string {
  if (typeof v === 'bigint') return `"${v}"`
  if ((f.datatype as string) === 'JSON' && typeof v === 'string') {
    try {
      JSON.parse(v)
    } catch {
      throw validationError(`The value of field '${f.keyname}' is not JSON.`)
    }
    return v
  }
  return JSON.stringify(v ?? null)
}

/**
 * Tile `at` of the table in one `ST_AsMVT` statement (features/tile.ts), outside a transaction
 * (a statement is its own snapshot), its failures as `remoteError` says.
 */
async function remoteTile(pool: pg.Pool, t: SpatialDbTable, meta: LayerMeta, at: TileAt, opts: EngineTileOptions): Promise<Uint8Array> {
  let client: pg.PoolClient
  try {
    client = await pool.connect()
  } catch (err) {
    throw remoteError(err, t, false)
  }
  let broken: Error | undefined
  try {
    return await engineTile(client, { from: `${q(t.schema)}.${q(t.table)} f`, cols: remoteColumns(t, meta.srs),
      srid: srid(t.geometrySrid), meta }, at, opts)
  } catch (err) {
    // Only an answer of the server leaves the connection usable.
    if (!(err instanceof pg.DatabaseError)) broken = err instanceof Error ? err : new Error(String(err))
    throw remoteError(err, t, false)
  } finally {
    client.release(broken)
  }
}

/**
 * The features of table `t` of the database behind `pool`, as layer `meta`. Cheap: the pool is
 * the connection's (external/pools.ts); nothing is read until a read or write runs.
 */
export function remoteLayer(pool: pg.Pool, t: SpatialDbTable, meta: LayerMeta): FeatureLayer {
  remoteColumns(t, meta.srs) // the SRIDs' 422 before any use
  return {
    meta,
    read: (fn) => session(pool, t, false, (db, live) => fn(new RemoteReader(db, t, meta, live))),
    write: (fn) => session(pool, t, true, (db, live) => fn(new RemoteWriter(db, t, meta, live))),
    tile: (at, opts) => remoteTile(pool, t, meta, at, opts),
  }
}
