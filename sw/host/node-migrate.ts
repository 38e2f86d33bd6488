/**
 * @module host/node-migrate
 * Moving a team's data (issue 23 item 4, docs/team-server.md): a SQLite data folder (the Node
 * host's `--data`) copied into a PostgreSQL database, then verified. Only a host may choose both
 * implementations, so this lives here.
 *
 * The source is never written: the folder is held with a shared lock (a running host holds it
 * exclusively, so one refuses the other), its `db/` and `blobs/` are copied to a temporary folder
 * and only that copy is opened (opening a SQLite file may replay its log or migrate it).
 * The target is written in ONE transaction (PostgreSQL's DDL is transactional: the layers'
 * PostGIS tables too), so a failure leaves it as it was. Rows are copied set-based: each batch is
 * one `INSERT … SELECT FROM jsonb_populate_recordset($1)`, so PostgreSQL's own input functions
 * convert the values (0/1 to boolean, ISO text to date, hex WKB to geometry, `\x…` to bytea).
 * Ids are kept; the id counters are left past the largest ever handed out (sqlite_sequence).
 * Not copied: the sync bookkeeping of replica layers (PostGIS has no replica tables yet; the
 * command says so per layer).
 */
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { closeSync, constants, existsSync, openSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import type { FeatureLayer } from '../feature/types.ts'
import { Database, type SqlDb } from '../store/database.ts'
import { openSqliteData, type SqlitePort } from '../sqlite/port.ts'
import { migrateLayer } from '../sqlite/features/schema.ts'
import { imageName } from '../sqlite/features/tables.ts'
import { openPostgresData, reasonOf, type PostgresPort } from '../postgres/port.ts'
import { connOf, type PgConn } from '../postgres/conn.ts'
import { ensureTables, storedLayers, tablesOf } from '../postgres/features/schema.ts'
import { gpkgWkb } from '../geo/gpkg.ts'
import type { LayerMeta } from '../feature/types.ts'
import { FileStore } from './node-store.ts'
import { FolderInUseError, LOCK_FILE } from './node-lock.ts'

const { tryLock } = createRequire(import.meta.url)('fs-native-extensions') as { tryLock(fd: number, o?: { shared?: boolean }): boolean }

export interface MigrateOptions {
  from: string
  to: string
  /** Empty a target that holds data first. */
  replace?: boolean
  log?: (line: string) => void
}

/** One compared table or layer: counts and checksums of both sides. */
export interface Check { what: string; source: number; target: number; sourceSum: string; targetSum: string; ok: boolean }

/** Rows per INSERT: one round trip each, bounded memory. */
const BATCH = 2000
/** Blob parts as sw/postgres/blobs.ts writes them. */
const PART = 2 ** 20

/** Main tables in the order their references need (sqlite name → PostgreSQL name). */
const MAIN_TABLES: [string, string][] = [
  ['principal', 'principal'], ['principal_member', 'principal_member'], ['session', 'session'], ['login_limit', 'login_limit'],
  ['resource', 'resource'], ['resmeta', 'resmeta'], ['layer_field', 'layer_field'], ['journal', 'journal'],
  ['outpost_request_log', 'outpost_request_log'], ['upload', 'upload'], ['file_pending', 'file_pending'],
  ['acl_state', 'acl_state'], ['acl_change', 'acl_change'],
]
const CATALOGUE_TABLES: [string, string][] = [
  ['icon', 'catalogue_icon'], ['geoservice', 'catalogue_geoservice'], ['geoservice_status', 'catalogue_geoservice_status'],
]
/** A layer's GeoPackage tables → the key of its PostGIS tables (postgres/features/schema.ts tablesOf). */
const LAYER_TABLES: [string, keyof ReturnType<typeof tablesOf>][] = [
  ['feature', 'features'], ['feature_description', 'description'], ['feature_attachment', 'attachment'],
  ['attachment_file', 'attachmentFile'], ['outpost_request_log', 'request'], ['feature_version', 'version'],
  ['feature_vstate', 'vstate'], ['feature_history', 'history'], ['ext_vstate', 'extVstate'], ['ext_history', 'extHistory'],
  ['feature_transaction', 'transaction'], ['feature_transaction_op', 'transactionOp'], ['feature_transaction_result', 'transactionResult'],
]
/** Identity columns of a layer's PostGIS tables and the sqlite_sequence row of their source. */
const LAYER_IDENTITIES: [keyof ReturnType<typeof tablesOf>, string, string][] = [
  ['features', 'fid', 'feature'], ['attachment', 'id', 'feature_attachment'], ['attachmentFile', 'id', 'attachment_file'],
  ['transaction', 'id', 'feature_transaction'],
]
const SYNC_TABLES = ['sync_fid', 'sync_aid', 'sync_conflict', 'sync_problem']
/** Main tables whose ids come from `outpost_reserve` (schema/port.ts): their counters. */
const RESERVED = ['principal', 'resource', 'layer_field']

/** Parents before children: the tree's trigger and foreign key check each row as it comes. */
const ORDER: Record<string, string> = {
  resource: `WITH RECURSIVE t(id, depth) AS (SELECT id, 0 FROM resource WHERE parent_id IS NULL
    UNION ALL SELECT r.id, t.depth + 1 FROM resource r JOIN t ON r.parent_id = t.id)
    SELECT resource.* FROM resource JOIN t USING (id) ORDER BY t.depth, resource.id`,
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')

/** A SQLite value as PostgreSQL's input function of the column reads it from JSON. */
function jsonValue(v: unknown, geometry: boolean): unknown {
  if (v instanceof Uint8Array) {
    if (geometry) { const wkb = gpkgWkb(v); return wkb ? hex(wkb) : null }
    return `\\x${hex(v)}`
  }
  return typeof v === 'bigint' ? v.toString() : v
}

const columnsOf = (db: SqlDb, table: string) =>
  (db.selectObjects(`SELECT name FROM pragma_table_info(?)`, [table]) as { name: string }[]).map((r) => r.name)
/** Its primary key's columns (the order rows are copied and compared in). */
const keyOf = (db: SqlDb, table: string) =>
  (db.selectObjects(`SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`, [table]) as { name: string }[]).map((r) => `"${r.name}"`).join(', ')
const hasTable = (db: SqlDb, table: string) =>
  db.selectValue(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, [table]) !== undefined

async function pgColumns(conn: PgConn, table: string): Promise<string[]> {
  return (await conn.rows<{ name: string }>(`SELECT attname AS name FROM pg_attribute WHERE attrelid = to_regclass($1)
    AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, [table])).map((r) => r.name)
}

/** Copies SQLite table `from` into PostgreSQL table `to` (the columns both have); returns the row count. */
async function copyTable(src: SqlDb, conn: PgConn, from: string, to: string): Promise<number> {
  if (!hasTable(src, from)) return 0
  const have = new Set(await pgColumns(conn, to))
  const cols = columnsOf(src, from).filter((c) => have.has(c))
  if (!cols.length) return 0
  const list = cols.map((c) => `"${c}"`).join(', ')
  const insert = `INSERT INTO ${to} (${list}) SELECT ${list} FROM jsonb_populate_recordset(NULL::${to}, $1::jsonb)`
  const rows = src.selectObjects(ORDER[from] ?? `SELECT * FROM ${from} ORDER BY ${keyOf(src, from) || 'rowid'}`) as Record<string, unknown>[]
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH).map((r) => Object.fromEntries(cols.map((c) => [c, jsonValue(r[c], c === 'geom')])))
    await conn.exec(insert, [JSON.stringify(batch)])
  }
  return rows.length
}

/** Holds `dir` against a host starting (shared lock on its lock file, opened read-only: nothing is written). */
function holdSource(dir: string): () => void {
  const path = join(dir, LOCK_FILE)
  if (!existsSync(join(dir, 'db', 'main.sqlite'))) throw new Error(`${dir} is not an Outpost data folder (no db/main.sqlite).`)
  if (!existsSync(path)) return () => undefined
  const fd = openSync(path, constants.O_RDONLY)
  if (!tryLock(fd, { shared: true })) {
    closeSync(fd)
    throw new FolderInUseError(dir, 'a running host')
  }
  let held = true
  return () => { if (held) { held = false; closeSync(fd) } }
}

/** The layers of the source: their metadata as the vector layer class builds it (classes/vector_layer/layers.ts). */
async function layersOf(source: SqlitePort): Promise<LayerMeta[]> {
  const rows = await source.main.read((db) => db.selectObjects(`SELECT id, data FROM resource WHERE cls = 'vector_layer' ORDER BY id`) as
    { id: number; data: string }[])
  const fields = await source.read((tx) => tx.fields.list(rows.map((r) => r.id)))
  return rows.map((r) => {
    const d = JSON.parse(r.data) as { srs: number; geometry_type: string; versioning?: { enabled: boolean; epoch: number; user_id?: number | null } }
    const meta: LayerMeta = { resourceId: r.id, srs: d.srs, geometryType: d.geometry_type, fields: fields.get(r.id) ?? [] }
    if (d.versioning?.enabled) meta.versioning = { epoch: d.versioning.epoch, userId: d.versioning.user_id ?? null }
    return meta
  })
}

/** Whether the target holds anything beyond what a fresh start makes (the root, the five provisioned principals). */
async function targetHolds(conn: PgConn): Promise<string | undefined> {
  const n = async (sql: string) => Number(await conn.value(sql))
  if (await n(`SELECT count(*) FROM resource WHERE id <> 0`)) return 'resources'
  if (await n(`SELECT count(*) FROM principal WHERE id > 5`)) return 'users or groups'
  if ((await storedLayers(conn)).length) return 'layer tables'
  if (await n(`SELECT count(*) FROM outpost_blob`)) return 'files'
  if (await n(`SELECT count(*) FROM catalogue_geoservice`)) return 'a catalogue'
  return undefined
}

/** Everything the copy writes, emptied first (a fresh start's provisioning included: the copy brings its own). */
async function emptyTarget(conn: PgConn): Promise<void> {
  for (const id of await storedLayers(conn)) {
    const t = tablesOf(id)
    await conn.exec(`DROP TABLE IF EXISTS ${Object.values(t).join(', ')}`)
  }
  await conn.exec(`TRUNCATE ${[...MAIN_TABLES, ...CATALOGUE_TABLES].map(([, to]) => to).join(', ')}, catalogue_meta, outpost_blob,
    outpost_sequence, outpost_change`)
  // The ACL triggers count into its one row while the copy inserts (the source's counter replaces it at the end).
  await conn.exec(`INSERT INTO acl_state VALUES (0, 0)`)
}

export async function migrateFolder(opts: MigrateOptions): Promise<{ ok: boolean; checks: Check[] }> {
  const log = opts.log ?? ((l: string) => console.log(l))
  const release = holdSource(opts.from)
  const snap = await mkdtemp(join(tmpdir(), 'outpost-migrate-'))
  let source: SqlitePort | undefined
  let store: FileStore | undefined
  let target: PostgresPort | undefined
  try {
    // The copy is taken while the source is held: no host can change it meanwhile.
    await cp(join(opts.from, 'db'), join(snap, 'db'), { recursive: true })
    if (existsSync(join(opts.from, 'blobs'))) await cp(join(opts.from, 'blobs'), join(snap, 'blobs'), { recursive: true })
    release()
    store = new FileStore(snap)
    const sqlite = await createSqliteLoader()()
    source = await openSqliteData(async () => sqlite, { store })
    try {
      target = await openPostgresData(opts.to, { maxConnections: 2 })
    } catch (err) {
      throw new Error(`Cannot open the database: ${reasonOf(err)}`)
    }
    const client = await target.pool.connect()
    const conn = connOf(client)
    const main = source.main
    const layers = await layersOf(source)
    const dbs = await store.listDatabases()
    try {
      await client.query('BEGIN')
      // The main advisory lock of every unit of work (postgres/uow.ts): no host writes meanwhile.
      await client.query(`SET LOCAL lock_timeout = '10s'`)
      const holds = await targetHolds(conn)
      if (holds && !opts.replace) throw new Error(`The target database already holds ${holds}: give an empty one, or --replace to overwrite it.`)
      await emptyTarget(conn)
      // Main tables.
      const seqs = await main.read((db) => Object.fromEntries((db.selectObjects(`SELECT name, seq FROM sqlite_sequence`) as
        { name: string; seq: number }[]).map((r) => [r.name, r.seq])))
      for (const [from, to] of MAIN_TABLES) {
        // acl_state/acl_change: the triggers counted our inserts; the source's counter is the one clients' caches know.
        if (from === 'acl_state' || from === 'acl_change') await conn.exec(`DELETE FROM ${to}`)
        const n = await main.readAsync((db) => copyTable(db, conn, from, to))
        log(`${to}: ${n} rows`)
      }
      for (const t of RESERVED) {
        await conn.exec(`INSERT INTO outpost_sequence (name, seq) SELECT $1, greatest($2::bigint, coalesce(max(id), 0)) FROM ${t}`, [t, seqs[t] ?? 0])
      }
      await conn.exec(`SELECT setval(pg_get_serial_sequence('journal', 'id'), greatest(max(id), 1), max(id) IS NOT NULL) FROM journal`)
      // The catalogue.
      if (dbs.includes('catalogue')) {
        const db = await Database.open(sqlite, store, 'catalogue', () => undefined)
        try {
          await db.readAsync(async (sdb) => {
          for (const [from, to] of CATALOGUE_TABLES) log(`${to}: ${await copyTable(sdb, conn, from, to)} rows`)
          const meta = Object.fromEntries((sdb.selectObjects(`SELECT key, value FROM meta`) as { key: string; value: unknown }[])
            .map((r) => [r.key, r.value]))
          if (meta.source !== undefined) {
            const icon = meta.default_icon
            await conn.exec(`INSERT INTO catalogue_meta (source, default_icon) VALUES ($1, $2)`,
              [String(meta.source instanceof Uint8Array ? Buffer.from(meta.source).toString() : meta.source),
                icon instanceof Uint8Array ? Buffer.from(icon) : icon ?? null])
          }
          })
        } finally { await db.close() }
      }
      // The layers: PostGIS tables made as the port makes them, then filled.
      for (const meta of layers) {
        if (!dbs.includes(imageName(meta.resourceId))) { log(`layer ${meta.resourceId}: no features stored`); continue }
        await ensureTables(conn, meta)
        const t = tablesOf(meta.resourceId)
        const db = await Database.open(sqlite, store, imageName(meta.resourceId), (sql) => migrateLayer(sql, meta))
        try {
          await db.readAsync(async (sdb) => {
          const counts: string[] = []
          for (const [from, key] of LAYER_TABLES) {
            const n = await copyTable(sdb, conn, from, t[key])
            if (n) counts.push(`${from} ${n}`)
          }
          const epoch = sdb.selectValue(`SELECT value FROM layer_meta WHERE key = 'epoch'`)
          await conn.exec(`UPDATE ${t.meta} SET value = $1 WHERE key = 'epoch'`, [String(epoch ?? '0')])
          const lseq = Object.fromEntries((sdb.selectObjects(`SELECT name, seq FROM sqlite_sequence`) as { name: string; seq: number }[])
            .map((r) => [r.name, r.seq]))
          for (const [key, col, from] of LAYER_IDENTITIES) {
            const last = Math.max(lseq[from] ?? 0, Number(await conn.value(`SELECT coalesce(max(${col}), 0) FROM ${t[key]}`)))
            if (last > 0) await conn.exec(`SELECT setval(pg_get_serial_sequence($1, $2), $3)`, [t[key], col, last])
          }
          const synced = SYNC_TABLES.filter((s) => hasTable(sdb, s) && Number(sdb.selectValue(`SELECT count(*) FROM ${s}`)) > 0)
          log(`layer ${meta.resourceId}: ${counts.join(', ') || 'empty'}`)
          if (synced.length) log(`layer ${meta.resourceId}: its sync bookkeeping (${synced.join(', ')}) is not copied: PostGIS layers have no replica tables yet`)
          })
        } finally { await db.close() }
      }
      // The blobs: parts as postgres/blobs.ts writes them, one at a time in memory.
      const blobs = (await store.listBlobs('')).filter((b) => !b.startsWith('.')).sort()
      let bytes = 0
      for (const id of blobs) {
        const data = (await store.getBlob(id))!
        bytes += data.length
        for (let part = 0, at = 0; part === 0 || at < data.length; part++, at += PART) {
          await conn.exec(`INSERT INTO outpost_blob (id, pending, part, data) VALUES ($1, '', $2, $3)`, [id, part, data.subarray(at, at + PART)])
        }
      }
      log(`blobs: ${blobs.length} (${bytes} bytes)`)
      await client.query('COMMIT')
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined)
      throw err
    } finally {
      client.release()
    }
    const checks = await verify(source, store, sqlite, target, layers, dbs, log)
    return { ok: checks.every((c) => c.ok), checks }
  } finally {
    release()
    await source?.close().catch(() => undefined)
    await target?.close().catch(() => undefined)
    await store?.close()
    await rm(snap, { recursive: true, force: true })
  }
}

/** sha256 of canonical JSON (keys sorted) of `rows`. */
export function checksum(rows: unknown[]): string {
  const canon = (v: unknown): unknown => Array.isArray(v) ? v.map(canon)
    : v && typeof v === 'object' && !(v instanceof Uint8Array) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]))
    : v instanceof Uint8Array ? hex(v) : v
  return createHash('sha256').update(JSON.stringify(canon(rows))).digest('hex').slice(0, 16)
}

type FeatureLayerRead = FeatureLayer['read']

/** A value as both engines' answers compare: booleans as 0/1, bytes as hex, JSON text parsed, dates as ISO text. */
function plain(v: unknown): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0
  if (v instanceof Uint8Array) return hex(v)
  if (v instanceof Date) return v.toISOString()
  return v
}

/** Rows of a SQLite table and of a PostgreSQL one, the columns both have, in key order. */
async function bothRows(sdb: SqlDb, conn: PgConn, from: string, to: string, skip: string[] = []) {
  if (!hasTable(sdb, from)) return undefined
  const key = keyOf(sdb, from)
  const have = new Set(await pgColumns(conn, to))
  const cols = columnsOf(sdb, from).filter((c) => have.has(c) && !skip.includes(c))
  const list = cols.map((c) => `"${c}"`).join(', ')
  const norm = (r: Record<string, unknown>) => cols.map((c) => {
    const v = plain(r[c])
    // JSON kept as text by SQLite and as jsonb by PostgreSQL (ext_history.data): compared as values.
    if (c === 'data' && typeof v === 'string' && from === 'ext_history') return JSON.parse(v)
    return v
  })
  return {
    source: (sdb.selectObjects(`SELECT ${list} FROM ${from} ORDER BY ${key}`) as Record<string, unknown>[]).map(norm),
    target: (await conn.rows<Record<string, unknown>>(`SELECT ${list} FROM ${to} ORDER BY ${key}`)).map(norm),
  }
}

/**
 * Compares both sides after the copy: per table and layer, the row counts and a checksum of the
 * canonical JSON of the rows. Features, attachments and the blobs are read through the ports
 * (the feature ports' listings, the blob stores), so both engines' answers are compared; the
 * other tables by their rows, values normalized (booleans, bytes, JSON).
 */
async function verify(source: SqlitePort, store: FileStore, sqlite: Sqlite3Static, target: PostgresPort, layers: LayerMeta[], dbs: string[],
  log: (l: string) => void): Promise<Check[]> {
  const checks: Check[] = []
  const check = (what: string, s: unknown[], t: unknown[]) => {
    const c = { what, source: s.length, target: t.length, sourceSum: checksum(s), targetSum: checksum(t), ok: false }
    c.ok = c.source === c.target && c.sourceSum === c.targetSum
    checks.push(c)
    log(`${c.ok ? 'ok' : 'DIFFERS'} ${what}: ${c.source} / ${c.target} rows, ${c.sourceSum} / ${c.targetSum}`)
  }
  const client = await target.pool.connect()
  const conn = connOf(client)
  try {
    await source.main.readAsync(async (sdb) => {
      for (const [from, to] of MAIN_TABLES) {
        const r = await bothRows(sdb, conn, from, to)
        if (r) check(to, r.source, r.target)
      }
    })
    if (dbs.includes('catalogue')) {
      const db = await Database.open(sqlite, store, 'catalogue', () => undefined)
      try {
        await db.readAsync(async (sdb) => {
          for (const [from, to] of CATALOGUE_TABLES) {
            const r = await bothRows(sdb, conn, from, to)
            if (r) check(to, r.source, r.target)
          }
        })
      } finally { await db.close() }
    }
  } finally { client.release() }
  const now = () => new Date()
  for (const meta of layers) {
    if (!dbs.includes(imageName(meta.resourceId))) continue
    const shape = { geom: true, fields: meta.fields, label: false, description: true }
    const read = async (layer: { read: FeatureLayerRead }) => layer.read(async (tx) => {
      const rows = await tx.list({}, shape)
      const att = await tx.attachments()
      return { rows, attachments: [...att].sort(([a], [b]) => a - b) }
    })
    const s = await read(await source.features.open(meta, now))
    const t = await read(await target.features.open(meta, now))
    check(`layer ${meta.resourceId} features`, s.rows, t.rows)
    check(`layer ${meta.resourceId} attachments`, s.attachments, t.attachments)
    // The history, by its bookkeeping columns (its values are the features' as listed above, as of each version).
    const db = await Database.open(sqlite, store, imageName(meta.resourceId), (sql) => migrateLayer(sql, meta))
    const tables = tablesOf(meta.resourceId)
    const c2 = await target.pool.connect()
    try {
      await db.readAsync(async (sdb) => {
        for (const [from, key] of [['feature_version', 'version'], ['feature_vstate', 'vstate'], ['feature_history', 'history'],
          ['ext_vstate', 'extVstate'], ['ext_history', 'extHistory'], ['feature_transaction', 'transaction']] as const) {
          const r = await bothRows(sdb, connOf(c2), from, tables[key], ['geom', ...meta.fields.map((f) => `fld_${f.id}`)])
          if (r) check(`layer ${meta.resourceId} ${from}`, r.source, r.target)
        }
      })
    } finally { c2.release(); await db.close() }
  }
  const blobSums = async (blobs: { listBlobs(p: string): Promise<string[]>; getBlob(id: string): Promise<Uint8Array | undefined> }) => {
    const out: [string, string][] = []
    for (const id of (await blobs.listBlobs('')).filter((b) => !b.startsWith('.')).sort()) {
      out.push([id, createHash('sha256').update((await blobs.getBlob(id)) ?? new Uint8Array()).digest('hex')])
    }
    return out
  }
  check('blobs', await blobSums(source.blobs), await blobSums(target.blobs))
  return checks
}
