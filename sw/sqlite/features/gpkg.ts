/**
 * @module sqlite/features/gpkg
 * The vector layer's GeoPackage storage offered to the data-out components (`GpkgStorage` of
 * `feature/types.ts`): its feature table and R*Tree read inside one read of the layer's
 * database, by methods that hold the SQL, so the components (mvt/, export/) hold none.
 */
import { flatten } from '../../geo/flat.ts'
import type { Bbox } from '../../geo/geometry.ts'
import type { FeatureFilter, Field, GpkgCopyOptions, GpkgOutput, GpkgStorage, GpkgTables, LayerMeta, RowCursor } from '../../feature/types.ts'
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import type { SqlDb } from '../../store/database.ts'
import { RowReader } from '../../store/row-reader.ts'
import { columnOf, FEATURE_TABLE, RTREE_TABLE } from './schema.ts'
import { filterSql } from './reader.ts'
import type { Layer } from './layer.ts'
import { exportLayer } from './export.ts'

type Statement = ReturnType<SqlDb['prepare']>

/**
 * The statements of the hot reads (R*Tree nodes, a tile's rows), prepared once per version of
 * a connection: a tile then costs no SQL compilation. A statement in use by an open cursor is
 * not handed out twice; a version change finalizes them all (no cursor outlives its read).
 */
class KeptStatements {
  readonly #free = new Map<string, Statement>()
  readonly #busy = new Set<Statement>()

  constructor(readonly db: SqlDb, readonly version: number) {}

  take(sql: string): Statement {
    let st = this.#free.get(sql)
    if (!st || this.#busy.has(st)) {
      if (st) return this.db.prepare(sql) // a second cursor of the same SQL: a statement of its own
      this.#free.set(sql, st = this.db.prepare(sql))
    }
    return st
  }

  /** A cursor over a kept statement: `finalize` resets it (RowReader) and frees it. */
  cursor(sqlite: Sqlite3Static, sql: string, bind: unknown[]): RowCursor {
    const st = this.take(sql)
    const kept = this.#free.get(sql) === st
    if (kept) this.#busy.add(st)
    return new KeptCursor(sqlite, this.db, st, bind, () => { if (kept) this.#busy.delete(st); else st.finalize() })
  }

  release(): void {
    for (const st of this.#free.values()) st.finalize()
    this.#free.clear()
    this.#busy.clear()
  }
}

/** The reader itself is the cursor (no wrapper call per column in the hot loops); finalizing hands the statement back. */
class KeptCursor extends RowReader implements RowCursor {
  done: (() => void) | undefined

  constructor(sqlite: Sqlite3Static, db: SqlDb, st: Statement, bind: unknown[], done: () => void) {
    try {
      super(sqlite, db, st, bind)
    } catch (err) {
      done()
      throw err
    }
    this.done = done
  }

  override finalize(): void {
    super.finalize()
    this.done?.()
  }
}

/** Connections whose TEMP change notes are installed (connection-local: they never enter the saved file). */
const NOTED = new WeakSet<SqlDb>()
const NOTES = 'temp.outpost_tile_dirty'

function noteChanges(db: SqlDb): void {
  db.exec(`PRAGMA temp_store = MEMORY;
    CREATE TEMP TABLE IF NOT EXISTS outpost_tile_dirty (fid INTEGER, geom BLOB);
    CREATE TEMP TRIGGER IF NOT EXISTS outpost_tile_ins AFTER INSERT ON main."${FEATURE_TABLE}"
      BEGIN INSERT INTO outpost_tile_dirty VALUES (NEW.fid, NULL); END;
    CREATE TEMP TRIGGER IF NOT EXISTS outpost_tile_upd AFTER UPDATE ON main."${FEATURE_TABLE}"
      BEGIN INSERT INTO outpost_tile_dirty VALUES (OLD.fid, OLD.geom); END;
    CREATE TEMP TRIGGER IF NOT EXISTS outpost_tile_del AFTER DELETE ON main."${FEATURE_TABLE}"
      BEGIN INSERT INTO outpost_tile_dirty VALUES (OLD.fid, OLD.geom); END;
    DELETE FROM outpost_tile_dirty;`)
  NOTED.add(db)
}

const columns = (fields: readonly Field[]) => ['f.fid', 'f.geom', ...fields.map((f) => `f.${columnOf(f.id)}`)].join(', ')

/** The SQLite side of `GpkgTables` over one read of a layer database. */
class LayerTables implements GpkgTables {
  constructor(readonly sqlite: Sqlite3Static, readonly db: SqlDb, readonly meta: LayerMeta, readonly kept: KeptStatements) {}

  get connection(): object {
    return this.db
  }

  rtreeNode(no: number): Uint8Array | undefined {
    const st = this.kept.take(`SELECT data FROM "${RTREE_TABLE}_node" WHERE nodeno = ?`)
    try {
      st.bind([no])
      return st.step() ? st.get(0) as Uint8Array : undefined
    } finally {
      st.reset(true)
    }
  }

  countInBox(box: Bbox): number {
    return Number(this.db.selectValue(`SELECT count(*) FROM "${RTREE_TABLE}" WHERE minx <= ? AND maxx >= ? AND miny <= ? AND maxy >= ?`,
      [box[2], box[0], box[3], box[1]]))
  }

  featureCount(): number {
    return Number(this.db.selectValue(`SELECT count(*) FROM "${FEATURE_TABLE}"`))
  }

  boxRows(box: Bbox, fields: readonly Field[], filter?: FeatureFilter): RowCursor {
    const { where, bind } = filterSql(filter, this.meta.fields)
    // The R*Tree drives the join: only the features in the box are read.
    return this.kept.cursor(this.sqlite, `SELECT ${columns(fields)} FROM "${RTREE_TABLE}" r CROSS JOIN "${FEATURE_TABLE}" f ON f.fid = r.id
      WHERE r.minx <= ? AND r.maxx >= ? AND r.miny <= ? AND r.maxy >= ?${where.map((w) => ` AND ${w}`).join('')}`,
    [box[2], box[0], box[3], box[1], ...bind])
  }

  scan(after: number, fields: readonly Field[]): RowCursor {
    return this.kept.cursor(this.sqlite, `SELECT ${columns(fields)} FROM "${FEATURE_TABLE}" f WHERE f.fid > ? ORDER BY f.fid`, [after])
  }

  byFids(fids: readonly number[], fields: readonly Field[]): RowCursor {
    return this.kept.cursor(this.sqlite, `SELECT ${columns(fields)} FROM "${FEATURE_TABLE}" f WHERE f.fid IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(fids)])
  }

  exportTo(out: GpkgOutput, opts: GpkgCopyOptions): void {
    exportLayer(this.sqlite, this.db, this.meta, out, opts)
  }

  takeChanges(): { fid: number; old: Uint8Array | null }[] {
    if (!NOTED.has(this.db)) { noteChanges(this.db); return [] }
    const notes = this.db.selectArrays(`SELECT fid, geom FROM ${NOTES}`) as [number, Uint8Array | null][]
    if (!notes.length) return []
    this.db.exec(`DELETE FROM ${NOTES}`)
    return notes.map(([fid, old]) => ({ fid, old: old instanceof Uint8Array ? old : null }))
  }
}

export function gpkgStorage(layer: Layer, meta: LayerMeta): GpkgStorage {
  let kept: KeptStatements | undefined
  return {
    // The database's version: it moves after a saved write, a failed save and a reload after a failure (as the
    // port's `layer:N` token will, sw/sqlite/tokens.ts); a reopen is told by `connection`.
    token: () => String(layer.db.version),
    read<T>(fn: (t: GpkgTables) => T, filter?: FeatureFilter): Promise<T> {
      return layer.db.read((db) => {
        if (kept?.db !== db || kept.version !== layer.db.version) {
          if (kept?.db === db) kept.release()
          kept = new KeptStatements(db, layer.db.version)
        }
        layer.filter = filter?.intersects ? flatten(filter.intersects) : undefined
        try {
          return fn(new LayerTables(layer.db.sqlite, db, meta, kept))
        } finally {
          layer.filter = undefined
        }
      })
    },
  }
}
