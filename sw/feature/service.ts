/**
 * @module feature/service
 * Features of a vector layer: parse write bodies (reference §5.5), apply them inside one
 * layer transaction (recorded in the change journal), and read features, counts and
 * extents through the listing's SQL selection.
 */
import { validationError } from '../core/error.ts'
import { expectKind, expectObject } from '../core/validate.ts'
import { isObject } from '../core/http.ts'
import type { SqlDb } from '../store/database.ts'
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { bboxOf, bboxProblem, invalidReason, layerTypeOf, type Bbox, type Geometry } from '../geo/geometry.ts'
import { decodeGpkg, encodeGpkg, gpkgBbox, gpkgSize, writeGpkg } from '../geo/gpkg.ts'
import { parseWkt, toWkt } from '../geo/wkt.ts'
import { rtreeBulkInsert, rtreeSize } from '../geo/rtree.ts'
import { bindValues, insertMany, type BlobSource, type BulkValue } from '../store/bulk.ts'
import { reproject, reprojectBbox, UnknownSrsError } from '../geo/reproject.ts'
import { areaOf, lengthOf } from '../geo/measure.ts'
import { columnOf, FEATURE_TABLE, RTREE_TABLE, type LayerMeta } from './schema.ts'
import { fromColumn, toColumn, ValueError, type SqlValue } from './values.ts'
import type { DumpOptions, Selection } from './query.ts'
import { badFieldValue, featureNotFound, geometryNotValid, geometryTypeMismatch, unknownSrs } from './errors.ts'
import type { Layer } from './layers.ts'
import { replaceAttachments } from './attachment-service.ts'

/** Fewest new boxes worth rebuilding the spatial index for. */
const BULK_INDEX_MIN = 256
/** Boxes beyond this stay with SQLite's own rounding at the float32 limits. */
const F32_SAFE = 1e38

/** A geometry as a GeoPackage blob written in place by `insertMany`. */
class GpkgSource implements BlobSource {
  readonly byteLength: number
  constructor(readonly g: Geometry, readonly srs: number) {
    this.byteLength = gpkgSize(g)
  }

  writeTo(view: DataView, at: number): void {
    writeGpkg(view, at, this.g, this.srs)
  }
}

const NO_COLUMNS: readonly string[] = []
/** Every column of a layer, in field order, made once per metadata object. */
const ALL_COLUMNS = new WeakMap<LayerMeta, string[]>()
function allColumns(meta: LayerMeta): string[] {
  let all = ALL_COLUMNS.get(meta)
  if (!all) ALL_COLUMNS.set(meta, all = meta.fields.map((f) => columnOf(f.id)))
  return all
}

function sameColumns(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** How write bodies are read (query parameters of the write request). */
export interface WriteOptions {
  /** SRS of the input geometry; `undefined` = the layer's. */
  srs: number | undefined
  geomFormat: 'wkt' | 'geojson'
  /** `geom: null` clears the geometry only with `geom_null=true`. */
  geomNull: boolean
}

/** One parsed feature body. `undefined` members are left as they are. */
export interface FeatureInput {
  geom?: Geometry | null
  bbox?: Bbox | null
  /** The columns given, in layer order; rows with every field share one array. */
  columns: readonly string[]
  /** Their values, as the columns store them. */
  values: SqlValue[]
  description?: string | null
  attachment?: Record<string, unknown>[] | null
}

const GEOJSON_TYPES = new Set(['Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon'])

/** `at` is the path of the feature body; errors name its `geom`. */
function parseGeom(v: unknown, meta: LayerMeta, opts: WriteOptions, at: string): Geometry {
  const path = () => `${at}.geom`
  let g: Geometry
  if (typeof v === 'string' && opts.geomFormat === 'wkt') {
    try {
      g = parseWkt(v)
    } catch (err) {
      throw geometryNotValid((err as Error).message, path())
    }
  } else if (isObject(v) && (opts.geomFormat === 'geojson' || typeof v.type === 'string')) {
    if (!GEOJSON_TYPES.has(v.type as string) || !Array.isArray(v.coordinates)) {
      throw geometryNotValid(`unsupported GeoJSON geometry`, path())
    }
    g = v as unknown as Geometry
    const reason = invalidReason(g)
    if (reason) throw geometryNotValid(reason, path())
  } else {
    throw geometryNotValid(`expected ${opts.geomFormat === 'wkt' ? 'a WKT string' : 'a GeoJSON geometry'}`, path())
  }
  const type = layerTypeOf(g)
  if (type !== meta.geometryType) throw geometryTypeMismatch(type, meta.geometryType, path())
  if (opts.srs !== undefined && opts.srs !== meta.srs) {
    try {
      g = reproject(g, opts.srs, meta.srs)
    } catch (err) {
      if (err instanceof UnknownSrsError) throw unknownSrs(err.srsId, 'srs')
      throw err
    }
    if (invalidReason(g)) throw geometryNotValid(`the geometry cannot be projected to EPSG:${meta.srs}`, path())
  }
  return g
}

/** Parses one feature body (`{geom, fields, extensions}`); throws 422 naming the problem. */
export function parseInput(raw: unknown, meta: LayerMeta, opts: WriteOptions, path: string): FeatureInput {
  const body = isObject(raw) ? raw : expectObject(raw, path)
  const input: FeatureInput = { columns: NO_COLUMNS, values: [] }
  if (body.geom !== undefined) {
    if (body.geom === null) {
      if (opts.geomNull) { input.geom = null; input.bbox = null }
    } else {
      const g = parseGeom(body.geom, meta, opts, path)
      input.geom = g
      input.bbox = bboxOf(g)
      const far = bboxProblem(input.bbox)
      if (far) throw geometryNotValid(far, `${path}.geom`)
    }
  }
  if (body.fields !== undefined && body.fields !== null) {
    const fields = isObject(body.fields) ? body.fields : expectObject(body.fields, `${path}.fields`)
    const all = allColumns(meta)
    let columns: string[] | undefined
    meta.fields.forEach((f, i) => {
      if (!(f.keyname in fields)) { // unknown keynames are ignored, as the original does
        columns ??= all.slice(0, i)
        return
      }
      try {
        input.values.push(toColumn(f.datatype, fields[f.keyname]))
      } catch (err) {
        if (err instanceof ValueError) throw badFieldValue(f.keyname, err.message, `${path}.fields.${f.keyname}`)
        throw err
      }
      columns?.push(all[i]!)
    })
    input.columns = columns ?? all
  }
  if (body.extensions !== undefined && body.extensions !== null) {
    const ext = expectObject(body.extensions, `${path}.extensions`)
    if (ext.description !== undefined) {
      input.description = expectKind<string | null>('str', ext.description, `${path}.extensions.description`, true)
    }
    if (ext.attachment !== undefined) {
      input.attachment = ext.attachment === null ? null
        : expectKind<unknown[]>('array', ext.attachment, `${path}.extensions.attachment`)
          .map((a, i) => expectObject(a, `${path}.extensions.attachment[${i}]`))
    }
  }
  return input
}

/**
 * Applies writes inside one layer transaction. Statements are prepared once per shape, so a
 * batch of thousands costs one parse per distinct column set.
 */
export class FeatureWriter {
  #stmts = new Map<string, ReturnType<SqlDb['prepare']>>()
  #pending: { fid: number; input: FeatureInput }[] = []
  #nextFid: number | undefined
  /** Store blobs of deleted attachments, to delete once the transaction has committed. */
  readonly orphanBlobs: string[] = []

  constructor(readonly db: SqlDb, readonly meta: LayerMeta, readonly time: string, readonly sqlite: Sqlite3Static) {}

  #run(sql: string, bind: SqlValue[]): void {
    let st = this.#stmts.get(sql)
    if (!st) {
      st = this.db.prepare(sql)
      this.#stmts.set(sql, st)
    }
    bindValues(this.sqlite, st, bind)
    st.stepReset()
  }

  #journal(fid: number, op: 'create' | 'update' | 'delete'): void {
    this.#run(`INSERT INTO feature_journal (fid, op, time) VALUES (?, ?, ?)`, [fid, op, this.time])
  }

  #exists(fid: number): boolean {
    return this.db.selectValue(`SELECT 1 FROM ${FEATURE_TABLE} WHERE fid = ?`, [fid]) !== undefined
  }

  #rtree(fid: number, bbox: Bbox | null): void {
    if (bbox) this.#run(`INSERT OR REPLACE INTO ${RTREE_TABLE} VALUES (?, ?, ?, ?, ?)`, [fid, bbox[0], bbox[2], bbox[1], bbox[3]])
    else this.#run(`DELETE FROM ${RTREE_TABLE} WHERE id = ?`, [fid])
  }

  /**
   * Queues a new feature and returns its fid. Creates are inserted in bulk (see `#flush`):
   * fids are assigned here, past every fid the table ever had (AUTOINCREMENT's sequence).
   */
  create(input: FeatureInput): number {
    this.#nextFid ??= Number(this.db.selectValue(`SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = '${FEATURE_TABLE}'), 0),
      coalesce((SELECT max(fid) FROM ${FEATURE_TABLE}), 0))`)) + 1
    const fid = this.#nextFid++
    this.#pending.push({ fid, input })
    return fid
  }

  /**
   * Inserts the queued creates with one prepared statement per column set, bound through
   * `insertMany` (texts and geometry blobs written once into the WASM heap).
   */
  #flush(): void {
    if (!this.#pending.length) return
    const pending = this.#pending
    this.#pending = []
    const groups = new Map<string, { fid: number; input: FeatureInput }[]>()
    let last: { columns: readonly string[]; group: { fid: number; input: FeatureInput }[] } | undefined
    for (const p of pending) {
      // Rows of a batch mostly share their columns: compare with the previous row first.
      if (last && sameColumns(last.columns, p.input.columns)) {
        last.group.push(p)
        continue
      }
      const key = p.input.columns.join(',')
      let g = groups.get(key)
      if (g) g.push(p)
      else groups.set(key, g = [p])
      last = { columns: p.input.columns, group: g }
    }
    const srs = this.meta.srs
    for (const [key, items] of groups) {
      const cols = key ? key.split(',') : []
      const rows = items.map(({ fid, input }) => {
        const row: BulkValue[] = [fid, input.geom ? new GpkgSource(input.geom, srs) : null]
        for (const v of input.values) row.push(v)
        return row
      })
      insertMany(this.sqlite, this.db, `INSERT INTO ${FEATURE_TABLE} (fid, geom${cols.map((c) => `, ${c}`).join('')})`, rows)
    }
    this.#indexCreated(pending)
    this.db.exec({ sql: `INSERT INTO feature_journal (fid, op, time) SELECT j.value, 'create', ? FROM json_each(?) j`,
      bind: [this.time, JSON.stringify(pending.map((p) => p.fid))] })
    for (const { fid, input } of pending) {
      if (input.description !== undefined || input.attachment !== undefined) this.#extensions(fid, input)
    }
  }

  /**
   * Adds the new features' boxes to the spatial index. A batch at least a quarter the size
   * of the index rebuilds it packed in one go (`rtreeBulkInsert`): SQLite's row-by-row
   * R*Tree insert would spend most of the batch's time there.
   */
  #indexCreated(pending: { fid: number; input: FeatureInput }[]): void {
    const ids: number[] = []
    const boxes: number[] = []
    let inRange = true
    for (const { fid, input } of pending) {
      const b = input.bbox
      if (!b) continue
      ids.push(fid)
      boxes.push(b[0], b[1], b[2], b[3])
      inRange &&= Math.abs(b[0]) < F32_SAFE && Math.abs(b[1]) < F32_SAFE && Math.abs(b[2]) < F32_SAFE && Math.abs(b[3]) < F32_SAFE
    }
    if (!ids.length) return
    if (inRange && ids.length >= BULK_INDEX_MIN && ids.length * 4 >= rtreeSize(this.db, RTREE_TABLE)) {
      rtreeBulkInsert(this.sqlite, this.db, RTREE_TABLE, ids, boxes)
      return
    }
    insertMany(this.sqlite, this.db, `INSERT INTO ${RTREE_TABLE}`,
      ids.map((id, i) => [id, boxes[4 * i]!, boxes[4 * i + 2]!, boxes[4 * i + 1]!, boxes[4 * i + 3]!]))
  }

  update(fid: number, input: FeatureInput): void {
    this.#flush()
    if (!this.#exists(fid)) throw featureNotFound(this.meta.resourceId, fid)
    const sets = input.columns.map((c) => `${c} = ?`)
    const bind: SqlValue[] = [...input.values]
    if (input.geom !== undefined) {
      sets.unshift('geom = ?')
      bind.unshift(input.geom && encodeGpkg(input.geom, this.meta.srs))
      this.#rtree(fid, input.bbox ?? null)
    }
    if (sets.length) this.#run(`UPDATE ${FEATURE_TABLE} SET ${sets.join(', ')} WHERE fid = ?`, [...bind, fid])
    this.#extensions(fid, input)
    this.#journal(fid, 'update')
  }

  delete(fid: number): void {
    this.#flush()
    if (!this.#exists(fid)) throw featureNotFound(this.meta.resourceId, fid)
    this.#collectBlobs(`fid = ?`, [fid])
    this.#run(`DELETE FROM ${FEATURE_TABLE} WHERE fid = ?`, [fid])
    this.#run(`DELETE FROM ${RTREE_TABLE} WHERE id = ?`, [fid])
    this.#journal(fid, 'delete')
  }

  deleteAll(): void {
    this.#flush()
    this.#collectBlobs('1', [])
    this.db.exec({ sql: `INSERT INTO feature_journal (fid, op, time) SELECT fid, 'delete', ? FROM ${FEATURE_TABLE}`, bind: [this.time] })
    this.db.exec(`DELETE FROM feature_description; DELETE FROM feature_attachment; DELETE FROM ${FEATURE_TABLE}; DELETE FROM ${RTREE_TABLE}`)
  }

  #collectBlobs(where: string, bind: SqlValue[]): void {
    for (const id of this.db.selectValues(`SELECT blob_id FROM feature_attachment WHERE ${where}`, binding(bind))) {
      this.orphanBlobs.push(String(id))
    }
  }

  #extensions(fid: number, input: FeatureInput): void {
    if (input.description !== undefined) {
      if (input.description === null || input.description === '') this.#run(`DELETE FROM feature_description WHERE fid = ?`, [fid])
      else this.#run(`INSERT OR REPLACE INTO feature_description (fid, value) VALUES (?, ?)`, [fid, input.description])
    }
    if (input.attachment !== undefined) this.#attachments(fid, input.attachment)
  }

  /** `extensions.attachment` replaces the list (files staged beforehand, see attachment-service). */
  #attachments(fid: number, items: Record<string, unknown>[] | null): void {
    replaceAttachments(this.db, fid, items, this.orphanBlobs)
  }

  /** Finalizes the prepared statements and marks the GeoPackage contents as changed. */
  finish(): void {
    this.#flush()
    for (const st of this.#stmts.values()) st.finalize()
    this.#stmts.clear()
    this.db.exec({ sql: `UPDATE gpkg_contents SET last_change = ? WHERE table_name = ?`, bind: [`${this.time}Z`, FEATURE_TABLE] })
  }

  abort(): void {
    for (const st of this.#stmts.values()) st.finalize()
    this.#stmts.clear()
  }
}

/** Runs `fn` with a writer inside one durable layer transaction; returns its result. */
export async function writeFeatures<T>(layer: Layer, meta: LayerMeta, now: Date, deleteBlob: (id: string) => Promise<void>,
  fn: (w: FeatureWriter) => T): Promise<T> {
  let orphans: string[] = []
  const result = await layer.db.write((db) => {
    const w = new FeatureWriter(db, meta, now.toISOString().slice(0, 19), layer.db.sqlite)
    try {
      const r = fn(w)
      w.finish()
      orphans = w.orphanBlobs
      return r
    } catch (err) {
      w.abort()
      throw err
    }
  })
  // Blobs go only after the commit: a rolled-back delete must still find its files.
  for (const id of orphans) await deleteBlob(id).catch(() => undefined)
  return result
}

// ---- reading ----

/** sqlite-wasm refuses an empty bind array on a statement without parameters. */
const binding = (b: SqlValue[]) => (b.length ? b as never : undefined)

function whereSql(sel: Selection | undefined): string {
  return sel && sel.where.length ? `WHERE ${sel.where.join(' AND ')}` : ''
}

/** Runs `fn` with the selection's intersects geometry visible to `outpost_intersects`. */
function withFilter<T>(layer: Layer, sel: Selection | undefined, fn: () => T): T {
  layer.filter = sel?.intersects
  try {
    return fn()
  } finally {
    layer.filter = undefined
  }
}

function outputGeom(blob: unknown, meta: LayerMeta, opts: DumpOptions): unknown {
  if (!(blob instanceof Uint8Array)) return null
  let g = decodeGpkg(blob)
  if (!g) return null
  if (opts.srs !== undefined && opts.srs !== meta.srs) g = reproject(g, meta.srs, opts.srs)
  return opts.geomFormat === 'geojson' ? g : toWkt(g)
}

interface AttachmentRow {
  id: number; fid: number; keyname: string | null; name: string | null; size: number; mime_type: string
  description: string | null; file_meta: string | null
}

/** The attachment object of the feature JSON (reference §6). */
export function attachmentJson(a: AttachmentRow): Record<string, unknown> {
  return { id: a.id, name: a.name, keyname: a.keyname, size: a.size, mime_type: a.mime_type, description: a.description,
    is_image: a.mime_type === 'image/jpeg' || a.mime_type === 'image/png',
    file_meta: a.file_meta === null ? {} : JSON.parse(a.file_meta) }
}

/** Features as JSON objects (reference §5.2), in the selection's order. */
export function listFeatures(db: SqlDb, layer: Layer, meta: LayerMeta, opts: DumpOptions,
  q: { sel?: Selection; order?: string; limit?: number; offset?: number; fid?: number }): Record<string, unknown>[] {
  const labelField = meta.fields.find((f) => f.label_field)
  const outFields = opts.fields
  const cols = ['f.fid', opts.geom ? 'f.geom' : 'NULL', ...outFields.map((f) => `f.${columnOf(f.id)}`)]
  if (opts.label && labelField) cols.push(`f.${columnOf(labelField.id)}`)
  const withDesc = opts.extensions && opts.description
  if (withDesc) cols.push('(SELECT value FROM feature_description d WHERE d.fid = f.fid)')
  const where = [...(q.sel?.where ?? [])]
  const bind: SqlValue[] = [...(q.sel?.bind ?? [])]
  if (q.fid !== undefined) { where.push('f.fid = ?'); bind.push(q.fid) }
  let sql = `SELECT ${cols.join(', ')} FROM ${FEATURE_TABLE} f ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${q.order ?? 'f.fid'}`
  if (q.limit !== undefined && q.limit >= 0) { sql += ' LIMIT ? OFFSET ?'; bind.push(q.limit, q.offset ?? 0) }
  const rows = withFilter(layer, q.sel, () => db.selectArrays(sql, binding(bind)))
  const withAtt = opts.extensions && opts.attachment &&
    db.selectValue(`SELECT 1 FROM feature_attachment LIMIT 1`) !== undefined
  const attachments = new Map<number, Record<string, unknown>[]>()
  if (withAtt && rows.length) {
    const fids = rows.map((r) => Number(r[0]))
    const list = fids.length > 500
      ? db.selectObjects(`SELECT * FROM feature_attachment ORDER BY id`)
      : db.selectObjects(`SELECT * FROM feature_attachment WHERE fid IN (${fids.map(() => '?').join(',')}) ORDER BY id`, fids)
    for (const a of list as unknown as AttachmentRow[]) {
      const arr = attachments.get(a.fid) ?? []
      arr.push(attachmentJson(a))
      attachments.set(a.fid, arr)
    }
  }
  return rows.map((r) => {
    const fid = Number(r[0])
    const out: Record<string, unknown> = { id: fid }
    let i = 2 + outFields.length
    if (opts.label) {
      const v = labelField ? r[i++] : null
      out.label = v === null || v === undefined ? `#${fid}` : String(v)
    }
    if (opts.geom) out.geom = outputGeom(r[1], meta, opts)
    const fields: Record<string, unknown> = {}
    outFields.forEach((f, k) => { fields[f.keyname] = fromColumn(f.datatype, r[2 + k], opts.dt, opts.bigint) })
    out.fields = fields
    if (opts.extensions) {
      const ext: Record<string, unknown> = {}
      if (opts.attachment) ext.attachment = attachments.get(fid) ?? null
      if (opts.description) ext.description = withDesc ? (r[i] ?? null) : null
      out.extensions = ext
    }
    return out
  })
}

export function countFeatures(db: SqlDb, layer: Layer, sel?: Selection): number {
  return withFilter(layer, sel, () =>
    Number(db.selectValue(`SELECT count(*) FROM ${FEATURE_TABLE} f ${whereSql(sel)}`, binding(sel?.bind ?? []))))
}

/** Bounds of the selected geometries in the layer's SRS, or `null` when there are none. */
export function extentOf(db: SqlDb, layer: Layer, sel?: Selection): Bbox | null {
  const r = withFilter(layer, sel, () => db.selectArray(
    `SELECT min(ST_MinX(f.geom)), min(ST_MinY(f.geom)), max(ST_MaxX(f.geom)), max(ST_MaxY(f.geom)) FROM ${FEATURE_TABLE} f ${whereSql(sel)}`,
    binding(sel?.bind ?? [])))
  if (!r || r[0] === null || r[0] === undefined) return null
  return r.map(Number) as Bbox
}

/** A box as the original's lon/lat extent object, in EPSG:4326. */
export function lonLatExtent(b: Bbox | null, srs: number): Record<string, number | null> {
  if (!b) return { minLon: null, minLat: null, maxLon: null, maxLat: null }
  let box: Bbox
  try {
    box = reprojectBbox(b, srs, 4326)
  } catch (err) {
    // Only data stored before coordinates were bounded gets here (proj4 throws on overflow).
    throw validationError(`The extent of the layer cannot be expressed in EPSG:4326: ${(err as Error).message}`)
  }
  // A projection's edge may map to infinity, which JSON has no number for.
  const [minLon, minLat, maxLon, maxLat] = box.map((v) => (Number.isFinite(v) ? v : null))
  return { minLon: minLon!, minLat: minLat!, maxLon: maxLon!, maxLat: maxLat! }
}

/** The geometry blob of feature `fid`; 404 when there is no such feature. */
export function geometryOf(db: SqlDb, meta: LayerMeta, fid: number): Uint8Array | null {
  const row = db.selectArray(`SELECT geom FROM ${FEATURE_TABLE} WHERE fid = ?`, [fid])
  if (!row) throw featureNotFound(meta.resourceId, fid)
  return row[0] instanceof Uint8Array ? row[0] : null
}

export function featureExtent(blob: Uint8Array | null, meta: LayerMeta): Record<string, number | null> | null {
  const b = blob && gpkgBbox(blob)
  return b ? lonLatExtent(b, meta.srs) : null
}

const TYPE_NAMES: Record<Geometry['type'], string> = {
  Point: 'Point', LineString: 'LineString', Polygon: 'Polygon',
  MultiPoint: 'MultiPoint', MultiLineString: 'MultiLineString', MultiPolygon: 'MultiPolygon',
}

/** `geometry_info`: type, planar area and length and bounds, in `srs` (default: the layer's). */
export function geometryInfo(blob: Uint8Array | null, meta: LayerMeta, srs: number | undefined): Record<string, unknown> | null {
  let g = blob && decodeGpkg(blob)
  if (!g) return null
  if (srs !== undefined && srs !== meta.srs) g = reproject(g, meta.srs, srs)
  const [minX, minY, maxX, maxY] = bboxOf(g)
  return { type: TYPE_NAMES[g.type], area: areaOf(g), length: lengthOf(g), extent: { minX, minY, maxX, maxY } }
}
