// port: legacy-sql (issue 22)
/**
 * @module export/gpkg
 * A GeoPackage of one layer's selection, made by SQLite itself: the output is a shared
 * in-memory database (`memdb` VFS) that the layer's connection attaches for one read and
 * fills with `INSERT … SELECT` in C. When nothing is filtered or reprojected, the spatial
 * index is a copy of the layer's own R*Tree pages (the layer database is a GeoPackage
 * already); otherwise it is bulk-loaded. The file then streams out page by page
 * (`sqlite_dbpage`), so it exists once in memory, never as a second copy.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { SqlDb } from '../store/database.ts'
import { RowReader } from '../store/row-reader.ts'
import { insertMany, type BulkValue } from '../store/bulk.ts'
import { decodeGpkg, encodeGpkg, gpkgBbox } from '../geo/gpkg.ts'
import { reproject } from '../geo/reproject.ts'
import { rtreeBulkInsert } from '../geo/rtree.ts'
import type { FieldType } from '../feature/types.ts'
import type { GpkgTables } from '../feature/types.ts'
import { srsDefinition } from './srs-wkt.ts'
import { exportRows, type ExportSource } from './source.ts'

const OUT = 'outpost_export'
/** Pages per streamed chunk (4 MB at 4 KiB pages, 8 MB at 8 KiB). */
const PAGES_PER_CHUNK = 1024

const GPKG_TYPES: Record<FieldType, string> = {
  INTEGER: 'MEDIUMINT', BIGINT: 'INTEGER', REAL: 'REAL', STRING: 'TEXT', DATE: 'DATE', TIME: 'TEXT',
  DATETIME: 'DATETIME', BOOLEAN: 'BOOLEAN',
}

export const quoteId = (s: string) => `"${s.replace(/"/g, '""')}"`

/** A name not among `taken` (case-insensitive): `base`, else `base_1`, `base_2`… */
export function uniqueName(base: string, taken: string[]): string {
  const lower = new Set(taken.map((t) => t.toLowerCase()))
  if (!lower.has(base.toLowerCase())) return base
  for (let i = 1; ; i++) if (!lower.has(`${base}_${i}`.toLowerCase())) return `${base}_${i}`
}

/** The original's GeoPackage layer name: a leading `_` where GDAL would refuse the name. */
export function gpkgLayerName(name: string): string {
  return /^[`~!@#$%^&*()+\-={}|[\]\\:";'<>?,./]/.test(name) || name.slice(0, 4).toLowerCase() === 'gpkg' ? `_${name}` : name
}

/** A finished GeoPackage held in memory until it is streamed or closed. */
export class GpkgFile {
  #holder: InstanceType<Sqlite3Static['oo1']['DB']> | undefined
  readonly size: number

  constructor(private readonly sqlite: Sqlite3Static, holder: InstanceType<Sqlite3Static['oo1']['DB']>) {
    this.#holder = holder
    this.size = Number(holder.selectValue('PRAGMA page_count')) * Number(holder.selectValue('PRAGMA page_size'))
  }

  /** The file's bytes as a stream of chunks; the memory is freed once it ends or is cancelled. */
  stream(): ReadableStream<Uint8Array> {
    let next = 1
    const pageSize = this.size / Number(this.#holder!.selectValue('PRAGMA page_count'))
    const pages = this.size / pageSize
    return new ReadableStream<Uint8Array>({
      pull: (controller) => {
        const holder = this.#holder
        if (!holder || next > pages) { this.close(); controller.close(); return }
        const end = Math.min(pages + 1, next + PAGES_PER_CHUNK)
        const chunk = new Uint8Array((end - next) * pageSize)
        const r = new RowReader(this.sqlite, holder, `SELECT data FROM sqlite_dbpage WHERE pgno >= ? AND pgno < ? ORDER BY pgno`, [next, end])
        try {
          for (let at = 0; r.step(); at += pageSize) chunk.set(r.blobView(0)!, at)
        } finally {
          r.finalize()
        }
        next = end
        controller.enqueue(chunk)
      },
      cancel: () => this.close(),
    })
  }

  close(): void {
    this.#holder?.close()
    this.#holder = undefined
  }
}

let serial = 0

/** The output table's columns: the id, the geometry, the fields, the optional id field. */
interface Layout { schema: string; table: string; fidCol: string; geomCol: string; rtree: string }

/**
 * Builds the GeoPackage of `src` with its features in table `table`. Without `fidField`
 * the features keep their ids (the original's `-preserve_fid`); with it they are numbered
 * anew and the field carries the original id. A layer with GeoPackage storage is copied by
 * SQLite (the output attached to its connection for one read); any other is written from
 * its features, page by page.
 */
export async function buildGpkg(src: ExportSource, table: string): Promise<GpkgFile> {
  const sqlite = await src.sqlite()
  const uri = `file:/outpost-export-${++serial}-${Date.now().toString(36)}?vfs=memdb`
  // The holder keeps the shared in-memory database alive once the layer detaches it.
  const holder = new sqlite.oo1.DB(uri, 'c')
  try {
    const { gpkg } = src.layer
    if (gpkg) {
      await gpkg.read((t) => {
        t.db.exec({ sql: `ATTACH ? AS ${OUT}`, bind: [uri] })
        try {
          const out = layout(src, OUT, table)
          createSchema(t.db, src, out)
          copyFeatures(t, src, out)
          finish(sqlite, t.db, src, out, !src.fidField && !src.filter.filtered && src.srs === src.meta.srs ? t : undefined)
        } finally {
          t.db.exec(`DETACH ${OUT}`)
        }
      }, src.filter)
    } else {
      const out = layout(src, 'main', table)
      createSchema(holder, src, out)
      await writeFeatures(sqlite, holder, src, out)
      finish(sqlite, holder, src, out, undefined)
    }
    return new GpkgFile(sqlite, holder)
  } catch (err) {
    holder.close()
    throw err
  }
}

function layout(src: ExportSource, schema: string, table: string): Layout {
  const names = src.columns.map((c) => c.name).concat(src.fidField ? [src.fidField] : [])
  const geomCol = uniqueName('geom', names)
  return { schema, table, fidCol: uniqueName('fid', names), geomCol, rtree: `rtree_${table}_${geomCol}` }
}

const q = (o: Layout, name: string) => `"${o.schema}".${quoteId(name)}`

function createSchema(db: SqlDb, src: ExportSource, o: Layout): void {
  const S = `"${o.schema}"`
  db.exec(`PRAGMA ${S}.application_id = 1196444487; PRAGMA ${S}.user_version = 10200;
    CREATE TABLE ${S}.gpkg_spatial_ref_sys (srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY,
      organization TEXT NOT NULL, organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
    CREATE TABLE ${S}.gpkg_contents (table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
      description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
      min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
      CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
    CREATE TABLE ${S}.gpkg_geometry_columns (table_name TEXT NOT NULL, column_name TEXT NOT NULL,
      geometry_type_name TEXT NOT NULL, srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
      CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name), CONSTRAINT uk_gc_table_name UNIQUE (table_name),
      CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
      CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));
    CREATE TABLE ${S}.gpkg_extensions (table_name TEXT, column_name TEXT, extension_name TEXT NOT NULL,
      definition TEXT NOT NULL, scope TEXT NOT NULL, CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name));
    CREATE TABLE ${S}.gpkg_ogr_contents (table_name TEXT NOT NULL PRIMARY KEY, feature_count INTEGER DEFAULT NULL);`)
  for (const id of new Set([-1, 0, 4326, src.srs])) {
    const d = srsDefinition(id)
    db.exec({ sql: `INSERT INTO ${S}.gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)`,
      bind: [d.name, id, d.organization, d.organizationId, d.definition, d.description] })
  }
  const columns = [`${quoteId(o.fidCol)} INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL`,
    `${quoteId(o.geomCol)} ${src.meta.geometryType.replace(/Z$/, '')}`,
    ...src.columns.map((c) => `${quoteId(c.name)} ${GPKG_TYPES[c.field.datatype]}`),
    // MEDIUMINT: GDAL reads it as a 32-bit Integer, as the original's (GDAL-written) file has it.
    ...(src.fidField ? [`${quoteId(src.fidField)} MEDIUMINT`] : [])]
  db.exec(`CREATE TABLE ${q(o, o.table)} (${columns.join(', ')})`)
}

/** The copy by SQL from the layer's own tables (the output attached as `OUT`). */
function copyFeatures(t: GpkgTables, src: ExportSource, o: Layout): void {
  const { meta } = src
  // Same SRS: the stored blobs are GeoPackage blobs of that SRS already.
  const reprojected = src.srs !== meta.srs
  if (reprojected) {
    t.db.createFunction('outpost_export_geom', (_ctx: number, blob: unknown) => {
      const g = blob instanceof Uint8Array ? decodeGpkg(blob) : null
      return g ? encodeGpkg(reproject(g, meta.srs, src.srs), src.srs) : null
    }, { arity: 1, deterministic: true })
  }
  const values = [src.fidField ? 'NULL' : 'f.fid', reprojected ? 'outpost_export_geom(f.geom)' : 'f.geom',
    ...src.columns.map((c) => {
      const col = `f.${t.column(c.field)}`
      // Field values are naive datetimes: written as GDAL writes one without a zone (as the
      // original's file has them), so desktop GIS does not read them as UTC.
      return c.field.datatype === 'DATETIME' ? `${col} || '.000'` : col
    }), ...(src.fidField ? ['f.fid'] : [])]
  const { where, bind } = t.where(src.filter)
  t.db.exec({ sql: `INSERT INTO ${q(o, o.table)} SELECT ${values.join(', ')} FROM main."${t.featureTable}" f
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY f.fid`, bind: bind.length ? bind as never : undefined })
}

/** Features written row by row from the generic reads (classes without GeoPackage storage). */
async function writeFeatures(sqlite: Sqlite3Static, db: SqlDb, src: ExportSource, o: Layout): Promise<void> {
  const head = `INSERT INTO ${q(o, o.table)} (${[o.fidCol, o.geomCol, ...src.columns.map((c) => c.name),
    ...(src.fidField ? [src.fidField] : [])].map(quoteId).join(', ')})`
  const types = src.columns.map((c) => c.field.datatype)
  for await (const page of exportRows(src)) {
    db.exec('BEGIN')
    insertMany(sqlite, db, head, page.map((r) => {
      const row: BulkValue[] = [src.fidField ? null : r.fid, r.geom ? encodeGpkg(r.geom, src.srs) : null]
      r.values.forEach((v, i) => row.push(v === null ? null : typeof v === 'boolean' ? (v ? 1 : 0)
        : types[i] === 'DATETIME' ? `${v}.000` : v))
      if (src.fidField) row.push(r.fid)
      return row
    }))
    db.exec('COMMIT')
  }
}

/**
 * The spatial index, its triggers and the metadata rows. `copyFrom` is the layer's tables
 * when the output has exactly its features, ids and boxes: its R*Tree pages are copied.
 */
function finish(sqlite: Sqlite3Static, db: SqlDb, src: ExportSource, o: Layout, copyFrom: GpkgTables | undefined): void {
  const S = `"${o.schema}"`
  db.exec(`CREATE VIRTUAL TABLE ${q(o, o.rtree)} USING rtree(id, minx, maxx, miny, maxy)`)
  if (copyFrom && nodeSize(db, 'main', copyFrom.rtreeTable) === nodeSize(db, o.schema, o.rtree)) copyIndex(db, o, copyFrom.rtreeTable)
  else bulkIndex(sqlite, db, o)
  rtreeTriggers(db, o)
  const count = Number(db.selectValue(`SELECT count(*) FROM ${q(o, o.table)}`))
  const box = db.selectArray(`SELECT min(minx), min(miny), max(maxx), max(maxy) FROM ${q(o, o.rtree)}`) ?? []
  const geomType = src.meta.geometryType.replace(/Z$/, '')
  db.exec({ sql: `INSERT INTO ${S}.gpkg_contents (table_name, data_type, identifier, description, min_x, min_y, max_x, max_y, srs_id)
    VALUES (?, 'features', ?, '', ?, ?, ?, ?, ?)`, bind: [o.table, o.table, box[0] ?? null, box[1] ?? null, box[2] ?? null, box[3] ?? null, src.srs] as never })
  db.exec({ sql: `INSERT INTO ${S}.gpkg_geometry_columns VALUES (?, ?, ?, ?, ?, 0)`,
    bind: [o.table, o.geomCol, geomType, src.srs, src.meta.geometryType.endsWith('Z') ? 1 : 0] })
  db.exec({ sql: `INSERT INTO ${S}.gpkg_extensions VALUES (?, ?, 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')`,
    bind: [o.table, o.geomCol] })
  db.exec({ sql: `INSERT INTO ${S}.gpkg_ogr_contents VALUES (?, ?)`, bind: [o.table, count] })
}

function nodeSize(db: SqlDb, schema: string, rtree: string): number {
  return Number(db.selectValue(`SELECT length(data) FROM "${schema}".${quoteId(`${rtree}_node`)} WHERE nodeno = 1`))
}

/** The layer's R*Tree pages as they are: same ids, same boxes, same node size. */
function copyIndex(db: SqlDb, o: Layout, from: string): void {
  for (const part of ['node', 'parent', 'rowid']) {
    db.exec(`DELETE FROM ${q(o, `${o.rtree}_${part}`)}; INSERT INTO ${q(o, `${o.rtree}_${part}`)} SELECT * FROM main."${from}_${part}"`)
  }
}

/** The index built from the written blobs' boxes, packed in one go. */
function bulkIndex(sqlite: Sqlite3Static, db: SqlDb, o: Layout): void {
  const ids: number[] = []
  const boxes: number[] = []
  const r = new RowReader(sqlite, db, `SELECT ${quoteId(o.fidCol)}, ${quoteId(o.geomCol)} FROM ${q(o, o.table)} WHERE ${quoteId(o.geomCol)} IS NOT NULL`)
  try {
    while (r.step()) {
      const b = gpkgBbox(r.blobView(1)!)
      if (!b) continue
      ids.push(r.number(0))
      boxes.push(b[0], b[1], b[2], b[3])
    }
  } finally {
    r.finalize()
  }
  if (ids.length) rtreeBulkInsert(sqlite, db, o.rtree, ids, boxes, o.schema)
}

/** The GeoPackage R*Tree triggers (OGC 12-128r18 Annex F.3), for writers that open the file later. */
function rtreeTriggers(db: SqlDb, o: Layout): void {
  const T = quoteId(o.table), I = quoteId(o.fidCol), G = quoteId(o.geomCol), R = quoteId(o.rtree)
  const name = (s: string) => q(o, `${o.rtree}_${s}`)
  const box = (row: string) => `${row}.${I}, ST_MinX(${row}.${G}), ST_MaxX(${row}.${G}), ST_MinY(${row}.${G}), ST_MaxY(${row}.${G})`
  const notEmpty = (row: string) => `${row}.${G} NOT NULL AND NOT ST_IsEmpty(${row}.${G})`
  db.exec(`
    CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${T} WHEN (${notEmpty('new')})
      BEGIN INSERT OR REPLACE INTO ${R} VALUES (${box('NEW')}); END;
    CREATE TRIGGER ${name('update1')} AFTER UPDATE OF ${G} ON ${T} WHEN OLD.${I} = NEW.${I} AND (${notEmpty('NEW')})
      BEGIN INSERT OR REPLACE INTO ${R} VALUES (${box('NEW')}); END;
    CREATE TRIGGER ${name('update2')} AFTER UPDATE OF ${G} ON ${T} WHEN OLD.${I} = NEW.${I} AND (NEW.${G} IS NULL OR ST_IsEmpty(NEW.${G}))
      BEGIN DELETE FROM ${R} WHERE id = OLD.${I}; END;
    CREATE TRIGGER ${name('update3')} AFTER UPDATE ON ${T} WHEN OLD.${I} != NEW.${I} AND (${notEmpty('NEW')})
      BEGIN DELETE FROM ${R} WHERE id = OLD.${I}; INSERT OR REPLACE INTO ${R} VALUES (${box('NEW')}); END;
    CREATE TRIGGER ${name('update4')} AFTER UPDATE ON ${T} WHEN OLD.${I} != NEW.${I} AND (NEW.${G} IS NULL OR ST_IsEmpty(NEW.${G}))
      BEGIN DELETE FROM ${R} WHERE id IN (OLD.${I}, NEW.${I}); END;
    CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${T} WHEN OLD.${G} NOT NULL
      BEGIN DELETE FROM ${R} WHERE id = OLD.${I}; END;`)
}
