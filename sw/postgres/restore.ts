/**
 * @module postgres/restore
 * Writes a team's data moved from another engine (port/transfer.ts, sw/host/node-migrate.ts)
 * into this database in ONE transaction: PostgreSQL's DDL is transactional, so the layers'
 * tables are made in it too, and a failure leaves the database as it was. Rows go in
 * set-based: each batch is one `INSERT … SELECT FROM jsonb_populate_recordset($1)`, so the
 * columns' own input functions convert the values (0/1 to boolean, ISO text to date, hex WKB to
 * geometry, `\x…` to bytea). Table names come from our own lists and validated ids only.
 */
import type pg from 'pg'
import type { LayerMeta } from '../feature/types.ts'
import { LAYER_COUNTERS, MAIN_TABLES, type CatalogueMeta, type Counters, type LayerTable, type TableRows } from '../port/transfer.ts'
import { connOf, type PgConn } from './conn.ts'
import { MAIN_LOCK } from './uow.ts'
import { CLOCK, MOVE } from './tokens.ts'
import { ensureTables, storedLayers, tablesOf, type LayerTables } from './features/schema.ts'

/** Rows per INSERT: one round trip each, bounded statement size. */
const BATCH = 2000
/** Blob parts as blobs.ts writes them. */
const PART = 2 ** 20

const CATALOGUE: Record<string, string> = { icon: 'catalogue_icon', geoservice: 'catalogue_geoservice', geoservice_status: 'catalogue_geoservice_status' }
const LAYER: Record<LayerTable, keyof LayerTables> = {
  feature: 'features', feature_description: 'description', feature_attachment: 'attachment', attachment_file: 'attachmentFile',
  outpost_request_log: 'request', feature_version: 'version', feature_vstate: 'vstate', feature_history: 'history',
  ext_vstate: 'extVstate', ext_history: 'extHistory', feature_transaction: 'transaction', feature_transaction_op: 'transactionOp',
  feature_transaction_result: 'transactionResult', sync_meta: 'syncMeta', sync_fid: 'syncFid', sync_aid: 'syncAid',
  sync_conflict: 'syncConflict', sync_problem: 'syncProblem',
}
/** Main tables whose ids come from `outpost_reserve` (schema/port.ts). */
const RESERVED = ['principal', 'resource', 'layer_field']

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')

/** A value as the column's input function reads it from JSON; geometries (WKB) as hex. */
const jsonValue = (v: unknown, geometry: boolean) =>
  v instanceof Uint8Array ? (geometry ? hex(v) : `\\x${hex(v)}`) : typeof v === 'bigint' ? v.toString() : v

/** The PostgreSQL table of a moved table: main, `catalogue:<name>` or `layer:<id>:<name>`. */
export function targetTable(name: string): string {
  const [kind, a, b] = name.split(':')
  if (kind === 'catalogue') return CATALOGUE[a!]!
  if (kind === 'layer') return tablesOf(Number(a))[LAYER[b as LayerTable]]
  if (!(MAIN_TABLES as readonly string[]).includes(name)) throw new Error(`Not a table of ours: ${name}`)
  return name
}

export interface Restore {
  conn: PgConn
  /** Takes the main data's lock (uow.ts): a host on this database writes nothing until the move commits. */
  lock(): Promise<void>
  /** What the database holds beyond what a fresh start makes (the root, the provisioned principals), if anything. */
  holds(): Promise<string | undefined>
  /** Empties every table the move writes (a fresh start's provisioning too: the move brings its own). */
  empty(): Promise<void>
  /** Empties the ACL's counter and change log, which the inserts' triggers filled (before the source's are copied). */
  clearAcl(): Promise<void>
  /** Inserts `t`'s rows (the columns both sides have) into `table`; returns the count. */
  insert(table: string, t: TableRows): Promise<number>
  /** The id counters left past the largest id ever handed out. */
  mainCounters(c: Counters): Promise<void>
  catalogueMeta(m: CatalogueMeta): Promise<void>
  /** Layer `meta`'s tables, made as the feature tables make them. */
  createLayer(meta: LayerMeta): Promise<void>
  layerDone(id: number, epoch: number, c: Counters): Promise<void>
  putBlob(id: string, data: Uint8Array): Promise<void>
  /**
   * Moves every change counter (tokens.ts), those of `scopes` made when missing: a host already
   * running on this database drops its caches on its next request (counters only go up, so
   * they are never emptied).
   */
  moveTokens(scopes: string[]): Promise<void>
  /** Rows of `table` (the given columns) in `key` order: for comparing. */
  rows(table: string, columns: string[], key: string[]): Promise<Record<string, unknown>[]>
  /** Columns of `table`. */
  columns(table: string): Promise<string[]>
}

const quoted = (cols: string[]) => cols.map((c) => `"${c.replace(/"/g, '""')}"`).join(', ')

export function restoreOn(client: pg.ClientBase): Restore {
  const conn = connOf(client)
  const columns = async (table: string) => (await conn.rows<{ name: string }>(`SELECT attname AS name FROM pg_attribute
    WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, [table])).map((r) => r.name)
  const n = async (sql: string) => Number(await conn.value(sql))
  return {
    conn,
    columns,
    async lock() { await conn.exec('SELECT pg_advisory_xact_lock($1)', [MAIN_LOCK]) },
    async holds() {
      if (await n(`SELECT count(*) FROM resource WHERE id <> 0`)) return 'resources'
      // The system principals and the administrator: what auth/service.ts provisions on a first start.
      if (await n(`SELECT count(*) FROM principal WHERE system = 0 AND keyname <> 'administrator'`)) return 'users or groups'
      if ((await storedLayers(conn)).length) return 'layer tables'
      if (await n(`SELECT count(*) FROM outpost_blob`)) return 'files'
      // The built-in catalogue (source 'default'), which a host fills on first use, is not data of the team's.
      if (await n(`SELECT count(*) FROM catalogue_meta WHERE source <> 'default'`)) return 'an imported catalogue'
      return undefined
    },
    async empty() {
      for (const id of await storedLayers(conn)) await conn.exec(`DROP TABLE IF EXISTS ${Object.values(tablesOf(id)).join(', ')}`)
      await conn.exec(`TRUNCATE ${[...MAIN_TABLES, ...Object.values(CATALOGUE)].join(', ')}, catalogue_meta, outpost_blob,
        outpost_sequence`)
      // The ACL triggers count into its one row while the move inserts (the source's counter replaces it at the end).
      await conn.exec(`INSERT INTO acl_state VALUES (0, 0)`)
    },
    async clearAcl() { await conn.exec(`DELETE FROM acl_state; DELETE FROM acl_change`) },
    async insert(table, t) {
      const have = new Set(await columns(table))
      const cols = t.columns.filter((c) => have.has(c))
      if (!cols.length) return 0
      const insert = `INSERT INTO ${table} (${quoted(cols)}) SELECT ${quoted(cols)} FROM jsonb_populate_recordset(NULL::${table}, $1::jsonb)`
      for (let i = 0; i < t.rows.length; i += BATCH) {
        const batch = t.rows.slice(i, i + BATCH).map((r) => Object.fromEntries(cols.map((c) => [c, jsonValue(r[c], c === 'geom')])))
        await conn.exec(insert, [JSON.stringify(batch)])
      }
      return t.rows.length
    },
    async mainCounters(c) {
      for (const t of RESERVED) {
        await conn.exec(`INSERT INTO outpost_sequence (name, seq) SELECT $1, greatest($2::bigint, coalesce(max(id), 0)) FROM ${t}`, [t, c[t] ?? 0])
      }
      await conn.exec(`SELECT setval(pg_get_serial_sequence('journal', 'id'), greatest(max(id), 1), max(id) IS NOT NULL) FROM journal`)
    },
    async catalogueMeta(m) {
      if (m.source === undefined) return
      await conn.exec(`INSERT INTO catalogue_meta (source, default_icon) VALUES ($1, $2)`, [m.source, m.defaultIcon ? Buffer.from(m.defaultIcon) : null])
    },
    async createLayer(meta) { await ensureTables(conn, meta) },
    async layerDone(id, epoch, c) {
      const t = tablesOf(id)
      await conn.exec(`UPDATE ${t.meta} SET value = $1 WHERE key = 'epoch'`, [String(epoch)])
      for (const [from, col] of Object.entries(LAYER_COUNTERS) as [LayerTable, string][]) {
        const table = t[LAYER[from]]
        const last = Math.max(c[from] ?? 0, Number(await conn.value(`SELECT coalesce(max(${col}), 0) FROM ${table}`)))
        if (last > 0) await conn.exec(`SELECT setval(pg_get_serial_sequence($1, $2), $3)`, [table, col, last])
      }
    },
    async moveTokens(scopes) {
      // Every scope there is and those named: one move (tokens.ts), past every value a host has seen.
      await conn.exec(MOVE, [[...new Set([...scopes, ...(await conn.rows<{ scope: string }>(`SELECT scope FROM outpost_change WHERE scope <> $1`,
        [CLOCK])).map((r) => r.scope)])]])
    },
    async putBlob(id, data) {
      for (let part = 0, at = 0; part === 0 || at < data.length; part++, at += PART) {
        await conn.exec(`INSERT INTO outpost_blob (id, pending, part, data) VALUES ($1, '', $2, $3)`, [id, part, data.subarray(at, at + PART)])
      }
    },
    rows: (table, cols, key) => conn.rows(`SELECT ${quoted(cols)} FROM ${table} ORDER BY ${quoted(key)}`),
  }
}
