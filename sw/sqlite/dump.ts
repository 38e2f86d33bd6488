/**
 * @module sqlite/dump
 * Reads a data folder's tables as plain rows for moving it to another engine
 * (port/transfer.ts, sw/host/node-migrate.ts). Read only; the caller opens a copy of the folder.
 */
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { Database, type SqlDb } from '../store/database.ts'
import type { Store } from '../store/store.ts'
import type { LayerMeta } from '../feature/types.ts'
import { gpkgWkb } from '../geo/gpkg.ts'
import type { CatalogueMeta, Counters, TableRows } from '../port/transfer.ts'
import type { SqlitePort } from './port.ts'
import { migrateLayer } from './features/schema.ts'
import { imageName } from './features/tables.ts'

/** Parents before children: the target's tree checks each row as it comes. */
const ORDER: Record<string, string> = {
  resource: `WITH RECURSIVE t(id, depth) AS (SELECT id, 0 FROM resource WHERE parent_id IS NULL
    UNION ALL SELECT r.id, t.depth + 1 FROM resource r JOIN t ON r.parent_id = t.id)
    SELECT resource.* FROM resource JOIN t USING (id) ORDER BY t.depth, resource.id`,
}

/** Rows per page: what is held in memory at a time. */
const PAGE = 5000

interface TableInfo { columns: string[]; key: string[]; geom: boolean }

function infoOf(db: SqlDb, name: string): TableInfo | undefined {
  if (db.selectValue(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, [name]) === undefined) return undefined
  const info = db.selectObjects(`SELECT name, pk FROM pragma_table_info(?)`, [name]) as { name: string; pk: number }[]
  return { columns: info.map((c) => c.name), key: info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
    geom: info.some((c) => c.name === 'geom') }
}

/**
 * One page of table `name`: rows after `after` (the last row's key values) in key order; a
 * table without a key, or with an order of its own, in one page. `geom` columns as WKB.
 */
function pageOf(db: SqlDb, name: string, t: TableInfo, after: unknown[] | undefined): Record<string, unknown>[] {
  const keys = t.key.map((k) => `"${k}"`)
  const rows = (ORDER[name] || !keys.length
    ? db.selectObjects(ORDER[name] ?? `SELECT * FROM "${name}"`)
    : db.selectObjects(`SELECT * FROM "${name}" ${after ? `WHERE (${keys.join(', ')}) > (${keys.map(() => '?').join(', ')})` : ''}
        ORDER BY ${keys.join(', ')} LIMIT ${PAGE}`, after as never)) as Record<string, unknown>[]
  if (t.geom) for (const r of rows) if (r.geom instanceof Uint8Array) r.geom = gpkgWkb(r.geom)
  return rows
}

function counters(db: SqlDb): Counters {
  if (db.selectValue(`SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'`) === undefined) return {}
  return Object.fromEntries((db.selectObjects(`SELECT name, seq FROM sqlite_sequence`) as { name: string; seq: number }[])
    .map((r) => [r.name, r.seq]))
}

/** One database of the folder, read table by table. */
export interface DumpSource {
  /** Table `name`'s rows page by page (nothing when it does not exist). */
  pages(name: string): AsyncGenerator<TableRows>
  /** All of table `name` at once (undefined when it does not exist). */
  table(name: string): Promise<TableRows | undefined>
  counters(): Promise<Counters>
}

function sourceOf(db: Database): DumpSource {
  async function* pages(name: string): AsyncGenerator<TableRows> {
    const t = await db.read((d) => infoOf(d, name))
    if (!t) return
    let after: unknown[] | undefined
    for (;;) {
      const rows = await db.read((d) => pageOf(d, name, t, after))
      if (rows.length || !after) yield { name, columns: t.columns, key: t.key, rows }
      if (rows.length < PAGE || ORDER[name] || !t.key.length) return
      after = t.key.map((k) => rows[rows.length - 1]![k])
    }
  }
  return {
    pages,
    async table(name) {
      let all: TableRows | undefined
      for await (const p of pages(name)) all = all ? { ...all, rows: all.rows.concat(p.rows) } : p
      return all
    },
    counters: () => db.read(counters),
  }
}

/** The main database of `port`. */
export const mainDump = (port: SqlitePort): DumpSource => sourceOf(port.main)

/** The vector layers as their class describes them (classes/vector_layer/layers.ts), from the main data. */
export async function layerMetas(port: SqlitePort): Promise<LayerMeta[]> {
  const rows = await port.main.read((db) => db.selectObjects(`SELECT id, data FROM resource WHERE cls = 'vector_layer' ORDER BY id`) as
    { id: number; data: string }[])
  const fields = await port.read((tx) => tx.fields.list(rows.map((r) => r.id)))
  return rows.map((r) => {
    const d = JSON.parse(r.data) as { srs: number; geometry_type: string; versioning?: { enabled: boolean; epoch: number; user_id?: number | null } }
    const meta: LayerMeta = { resourceId: r.id, srs: d.srs, geometryType: d.geometry_type, fields: fields.get(r.id) ?? [] }
    if (d.versioning?.enabled) meta.versioning = { epoch: d.versioning.epoch, userId: d.versioning.user_id ?? null }
    return meta
  })
}

/** Runs `fn` on the catalogue's database, if the folder has one. */
export async function withCatalogue<T>(sqlite: Sqlite3Static, store: Store, fn: (src: DumpSource & { meta(): Promise<CatalogueMeta> }) => Promise<T>): Promise<T | undefined> {
  if (!(await store.listDatabases()).includes('catalogue')) return undefined
  const db = await Database.open(sqlite, store, 'catalogue', () => undefined)
  try {
    return await fn({ ...sourceOf(db), meta: () => db.read((d) => {
      const m = new Map((d.selectObjects(`SELECT key, value FROM meta`) as { key: string; value: unknown }[]).map((r) => [r.key, r.value]))
      const source = m.get('source')
      return { source: source instanceof Uint8Array ? new TextDecoder().decode(source) : source as string | undefined,
        defaultIcon: (m.get('default_icon') as Uint8Array | undefined) ?? null }
    }) })
  } finally { await db.close() }
}

/** Runs `fn` on layer `meta`'s database, if it has one. */
export async function withLayer<T>(sqlite: Sqlite3Static, store: Store, meta: LayerMeta,
  fn: (src: DumpSource & { epoch(): Promise<number> }) => Promise<T>): Promise<T | undefined> {
  if (!(await store.listDatabases()).includes(imageName(meta.resourceId))) return undefined
  const db = await Database.open(sqlite, store, imageName(meta.resourceId), (sql) => migrateLayer(sql, meta))
  try {
    return await fn({
      ...sourceOf(db),
      epoch: () => db.read((d) => Number(d.selectValue(`SELECT value FROM layer_meta WHERE key = 'epoch'`) ?? 0)),
    })
  } finally { await db.close() }
}
