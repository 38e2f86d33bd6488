/**
 * @module sqlite/gpkg-file/writer
 * The GeoPackage file an export writes (`GpkgFiles`): a shared in-memory database (`memdb`
 * VFS) that a layer's storage attaches to copy its selection in by SQL (`GpkgTables.exportTo`),
 * or that is filled here row by row from the generic reads. This module lays out its tables,
 * builds its spatial index (a copy of the layer's R*Tree pages when the storage can, else
 * bulk-loaded) and metadata rows, and streams it out page by page (`sqlite_dbpage`), so the
 * file exists once in memory, never as a second copy. A GeoPackage is an SQLite file: every
 * host writes it with SQLite, whichever implementation of the data port holds its layers.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { SqlDb } from '../../store/database.ts'
import { RowReader } from '../../store/row-reader.ts'
import { insertMany, type BulkValue } from '../../store/bulk.ts'
import { encodeGpkg, gpkgBbox } from '../../geo/gpkg.ts'
import { rtreeBulkInsert } from '../rtree.ts'
import type { FieldType, GpkgCopyOptions, GpkgFile, GpkgFiles, GpkgSpec, GpkgWriter } from '../../feature/types.ts'
import type { RowValue } from '../../feature/row-values.ts'
import type { Geometry } from '../../geo/geometry.ts'
import { srsDefinition } from '../../export/srs-wkt.ts'
/** Pages per streamed chunk (4 MB at 4 KiB pages, 8 MB at 8 KiB). */
const PAGES_PER_CHUNK = 1024

const GPKG_TYPES: Record<FieldType, string> = {
  INTEGER: 'MEDIUMINT', BIGINT: 'INTEGER', REAL: 'REAL', STRING: 'TEXT', DATE: 'DATE', TIME: 'TEXT',
  DATETIME: 'DATETIME', BOOLEAN: 'BOOLEAN',
}

export const quoteId = (s: string) => `"${s.replace(/"/g, '""')}"`

/** A name not among `taken` (case-insensitive): `base`, else `base_1`, `base_2`… */
function uniqueName(base: string, taken: string[]): string {
  const lower = new Set(taken.map((t) => t.toLowerCase()))
  if (!lower.has(base.toLowerCase())) return base
  for (let i = 1; ; i++) if (!lower.has(`${base}_${i}`.toLowerCase())) return `${base}_${i}`
}

/** A finished GeoPackage held in memory until it is streamed or closed. */
class MemoryGpkgFile implements GpkgFile {
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

/** The output table's columns in schema `schema`: the id, the geometry, the fields, the optional id field. */
export interface GpkgLayout { schema: string; table: string; fidCol: string; geomCol: string; rtree: string }

/** An empty output file named for table `table`; `close` it unless it is handed on as a `GpkgFile`. */
class MemoryGpkgWriter implements GpkgWriter {
  readonly uri = `file:/outpost-export-${++serial}-${Date.now().toString(36)}?vfs=memdb`
  /** Keeps the shared in-memory database alive once a layer's connection detaches it. */
  readonly holder: InstanceType<Sqlite3Static['oo1']['DB']>

  constructor(readonly sqlite: Sqlite3Static, readonly table: string) {
    this.holder = new sqlite.oo1.DB(this.uri, 'c')
  }

  /** The file, finished. */
  file(): GpkgFile {
    return new MemoryGpkgFile(this.sqlite, this.holder)
  }

  /** Writes `rows` (pages in fid order) in the output SRS, then the index and metadata: the generic path. */
  async writeRows(spec: GpkgSpec, pages: AsyncIterable<{ fid: number; geom: Geometry | null; values: RowValue[] }[]>): Promise<void> {
    const db = this.holder, o = gpkgLayout(spec, 'main', this.table)
    createGpkgTables(db, spec, o)
    const head = `INSERT INTO ${q(o, o.table)} (${[o.fidCol, o.geomCol, ...spec.columns.map((c) => c.name),
      ...(spec.fidField ? [spec.fidField] : [])].map(quoteId).join(', ')})`
    const types = spec.columns.map((c) => c.field.datatype)
    for await (const page of pages) {
      db.exec('BEGIN')
      insertMany(this.sqlite, db, head, page.map((r) => {
        const row: BulkValue[] = [spec.fidField ? null : r.fid, r.geom ? encodeGpkg(r.geom, spec.srs) : null]
        r.values.forEach((v, i) => row.push(v === null ? null : typeof v === 'boolean' ? (v ? 1 : 0)
          : types[i] === 'DATETIME' ? `${v}.000` : v))
        if (spec.fidField) row.push(r.fid)
        return row
      }))
      db.exec('COMMIT')
    }
    finishGpkg(this.sqlite, db, spec, o, undefined)
  }

  close(): void {
    this.holder.close()
  }
}

/** GeoPackage files written with the SQLite module that `load` brings (the platform's loader). */
export function sqliteGpkgFiles(load: () => Promise<Sqlite3Static>): GpkgFiles {
  return { create: async (table) => new MemoryGpkgWriter(await load(), table) }
}

export function gpkgLayout(spec: GpkgCopyOptions, schema: string, table: string): GpkgLayout {
  const names = spec.columns.map((c) => c.name).concat(spec.fidField ? [spec.fidField] : [])
  const geomCol = uniqueName('geom', names)
  return { schema, table, fidCol: uniqueName('fid', names), geomCol, rtree: `rtree_${table}_${geomCol}` }
}

const q = (o: GpkgLayout, name: string) => `"${o.schema}".${quoteId(name)}`

/** The output table named `q(o, o.table)`, and the GeoPackage's own tables, in schema `o.schema` of `db`. */
export function createGpkgTables(db: SqlDb, spec: GpkgSpec, o: GpkgLayout): void {
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
  for (const id of new Set([-1, 0, 4326, spec.srs])) {
    const d = srsDefinition(id)
    db.exec({ sql: `INSERT INTO ${S}.gpkg_spatial_ref_sys VALUES (?, ?, ?, ?, ?, ?)`,
      bind: [d.name, id, d.organization, d.organizationId, d.definition, d.description] })
  }
  const columns = [`${quoteId(o.fidCol)} INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL`,
    `${quoteId(o.geomCol)} ${spec.geometryType.replace(/Z$/, '')}`,
    ...spec.columns.map((c) => `${quoteId(c.name)} ${GPKG_TYPES[c.field.datatype]}`),
    // MEDIUMINT: GDAL reads it as a 32-bit Integer, as the original's (GDAL-written) file has it.
    ...(spec.fidField ? [`${quoteId(spec.fidField)} MEDIUMINT`] : [])]
  db.exec(`CREATE TABLE ${q(o, o.table)} (${columns.join(', ')})`)
}

/**
 * The spatial index, its triggers and the metadata rows. `copyFrom` is the R*Tree (in schema
 * `main` of `db`) of a layer whose features, ids and boxes the output has exactly: its pages are copied.
 */
export function finishGpkg(sqlite: Sqlite3Static, db: SqlDb, spec: GpkgSpec, o: GpkgLayout, copyFrom: string | undefined): void {
  const S = `"${o.schema}"`
  db.exec(`CREATE VIRTUAL TABLE ${q(o, o.rtree)} USING rtree(id, minx, maxx, miny, maxy)`)
  if (copyFrom && nodeSize(db, 'main', copyFrom) === nodeSize(db, o.schema, o.rtree)) copyIndex(db, o, copyFrom)
  else bulkIndex(sqlite, db, o)
  rtreeTriggers(db, o)
  const count = Number(db.selectValue(`SELECT count(*) FROM ${q(o, o.table)}`))
  const box = db.selectArray(`SELECT min(minx), min(miny), max(maxx), max(maxy) FROM ${q(o, o.rtree)}`) ?? []
  const geomType = spec.geometryType.replace(/Z$/, '')
  db.exec({ sql: `INSERT INTO ${S}.gpkg_contents (table_name, data_type, identifier, description, min_x, min_y, max_x, max_y, srs_id)
    VALUES (?, 'features', ?, '', ?, ?, ?, ?, ?)`, bind: [o.table, o.table, box[0] ?? null, box[1] ?? null, box[2] ?? null, box[3] ?? null, spec.srs] as never })
  db.exec({ sql: `INSERT INTO ${S}.gpkg_geometry_columns VALUES (?, ?, ?, ?, ?, 0)`,
    bind: [o.table, o.geomCol, geomType, spec.srs, spec.geometryType.endsWith('Z') ? 1 : 0] })
  db.exec({ sql: `INSERT INTO ${S}.gpkg_extensions VALUES (?, ?, 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')`,
    bind: [o.table, o.geomCol] })
  db.exec({ sql: `INSERT INTO ${S}.gpkg_ogr_contents VALUES (?, ?)`, bind: [o.table, count] })
}

function nodeSize(db: SqlDb, schema: string, rtree: string): number {
  return Number(db.selectValue(`SELECT length(data) FROM "${schema}".${quoteId(`${rtree}_node`)} WHERE nodeno = 1`))
}

/** The layer's R*Tree pages as they are: same ids, same boxes, same node size. */
function copyIndex(db: SqlDb, o: GpkgLayout, from: string): void {
  for (const part of ['node', 'parent', 'rowid']) {
    db.exec(`DELETE FROM ${q(o, `${o.rtree}_${part}`)}; INSERT INTO ${q(o, `${o.rtree}_${part}`)} SELECT * FROM main."${from}_${part}"`)
  }
}

/** The index built from the written blobs' boxes, packed in one go. */
function bulkIndex(sqlite: Sqlite3Static, db: SqlDb, o: GpkgLayout): void {
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
function rtreeTriggers(db: SqlDb, o: GpkgLayout): void {
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
