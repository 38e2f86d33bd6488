/**
 * @module sqlite/gpkg-file/source
 * The SQLite half of a vector ingest: the GeoPackage GDAL wrote (ingest/vector-convert) handed
 * to our SQLite as it is (its geometry blobs are already what a layer stores), copied into JS
 * memory as a scratch database of our VFS (`registerCopy`, outside the WASM heap, which never
 * shrinks). Planning reads it through a read-only connection; SQLite's load attaches it to the
 * new layer's connection (`attachImage`); another engine's load reads it in batches
 * (`batches`), the values already in the layer's forms (`columnExpr`, shared with SQLite's
 * `INSERT … SELECT`). It is the app's `GpkgSources` on every host (sw/services.ts).
 */
import type { Database as SqlDb, Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { registerCopy, VFS_NAME } from '../../store/vfs.ts'
import type { FieldType } from '../../feature/types.ts'
import { SRC_TABLE, type ConvertedFile, type GpkgSource, type GpkgSources, type SourceBatch, type SourceColumn } from '../../ingest/vector-convert.ts'

/** The converted GeoPackage as a scratch database of our VFS, in JS memory until freed. */
export type SourceImage = ReturnType<typeof registerCopy>

export interface SqliteSource extends GpkgSource {
  readonly image: SourceImage
}

/** The app's opener of GDAL's GeoPackages, SQLite loaded on first use. */
export function sqliteGpkgSources(load: () => Promise<Sqlite3Static>): GpkgSources {
  return { open: async (conv) => openSource(await load(), conv) }
}

/** A source column as the layer's column stores it (see `feature/values.ts`), in SQL. */
export function columnExpr(type: FieldType, col: string): string {
  switch (type) {
    case 'DATE': return `substr(${col}, 1, 10)`
    case 'TIME': return `substr(${col}, 1, 8)`
    case 'DATETIME': return `substr(replace(${col}, ' ', 'T'), 1, 19)`
    case 'BOOLEAN': return `CASE WHEN ${col} IS NULL THEN NULL WHEN ${col} THEN 1 ELSE 0 END`
    default: return col
  }
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
    batches(columns, idColumn, size) {
      return { [Symbol.iterator]: () => readBatches(sqlite, image, columns, idColumn, size) }
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

/**
 * The features of `image` in reading order, `size` a batch, through a connection of its own
 * (planning's may be closed), closed when the iteration ends or is left.
 */
function* readBatches(sqlite: Sqlite3Static, image: SourceImage, columns: readonly SourceColumn[], idColumn: string | undefined,
  size: number): Generator<SourceBatch> {
  const db = new sqlite.oo1.DB({ filename: image.path, flags: 'r', vfs: VFS_NAME })
  try {
    // Text as its bytes (CAST … AS BLOB), so the load sees an invalid encoding as the bytes are.
    const values = columns.map((c) => c.datatype === 'STRING' ? `, CAST(${quote(c.keyname)} AS BLOB)` : `, ${columnExpr(c.datatype, quote(c.keyname))}`).join('')
    const id = idColumn === undefined ? '' : `, ${quote(idColumn)}`
    const st = db.prepare(`SELECT outpost_fid, outpost_geom${values}${id} FROM ${SRC_TABLE} ORDER BY outpost_fid`)
    try {
      for (let more = true; more;) {
        const b: SourceBatch = { features: [], geoms: [], values: columns.map(() => []), ids: idColumn === undefined ? undefined : [] }
        while (b.features.length < size && (more = st.step())) {
          b.features.push(Number(st.get(0)))
          b.geoms.push(st.get(1) as Uint8Array | null)
          for (let k = 0; k < columns.length; k++) b.values[k]!.push(st.get(2 + k) as SourceBatch['values'][number][number])
          b.ids?.push(Number(st.get(2 + columns.length)))
        }
        if (b.features.length) yield b
      }
    } finally {
      st.finalize()
    }
  } finally {
    db.close()
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
