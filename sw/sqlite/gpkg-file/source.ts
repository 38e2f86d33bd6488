/**
 * @module sqlite/gpkg-file/source
 * The SQLite half of a vector ingest: the GeoPackage GDAL wrote (ingest/vector-convert) handed
 * to our SQLite as it is (its geometry blobs are already what a layer stores), copied into JS
 * memory as a scratch database of our VFS (`registerCopy`, outside the WASM heap, which never
 * shrinks). Planning reads it through a read-only connection; the load attaches it to the new
 * layer's connection (`attachImage`).
 */
import type { Database as SqlDb, Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { registerCopy, VFS_NAME } from '../../store/vfs.ts'
import { SRC_TABLE, type ConvertedFile, type GpkgSource } from '../../ingest/vector-convert.ts'

/** The converted GeoPackage as a scratch database of our VFS, in JS memory until freed. */
export type SourceImage = ReturnType<typeof registerCopy>

export interface SqliteSource extends GpkgSource {
  readonly image: SourceImage
}

/** Opens GDAL's GeoPackage `conv` for planning; `free()` drops it. */
export function openSource(sqlite: Sqlite3Static, conv: ConvertedFile): SqliteSource {
  const image = registerCopy(sqlite, conv.bytes)
  let db: SqlDb | undefined
  let count: number
  try {
    db = new sqlite.oo1.DB({ filename: image.path, flags: 'r', vfs: VFS_NAME })
    count = Number(db.selectValue(`SELECT count(*) FROM ${SRC_TABLE}`))
  } catch (err) {
    db?.close()
    image.close()
    throw err
  }
  const planning = db
  const { bytes: _bytes, ...facts } = conv
  return {
    ...facts, count, image,
    geometries() {
      const st = planning.prepare(`SELECT outpost_geom FROM ${SRC_TABLE} ORDER BY outpost_fid`)
      return {
        next: () => st.step() ? (st.get(0) as Uint8Array | null) : undefined,
        close: () => { st.finalize() },
      }
    },
    badIds(column) {
      const q = quote(column)
      return Number(planning.selectValue(`SELECT count(*) - count(DISTINCT ${q}) + sum(${q} IS NULL) + sum(${q} < 1 OR ${q} > 2147483647) FROM ${SRC_TABLE}`) ?? 0)
    },
    planned() {
      if (planning.isOpen()) planning.close()
    },
    free() {
      if (planning.isOpen()) planning.close()
      image.close()
    },
  }
}

/** A name as an SQL identifier. */
export const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

/**
 * Attaches the converted features to `db` (the new layer's connection, outside any
 * transaction) as schema `src`. Its rollback journal stays in SQLite's memory: the copy is
 * scratch, nothing outlives the job to recover.
 */
export function attachImage(db: SqlDb, image: SourceImage): void {
  db.exec({ sql: `ATTACH ? AS src`, bind: [image.path] })
  db.exec(`PRAGMA src.journal_mode=MEMORY`)
}
