/**
 * @module host/node-migrate
 * Moving a team's data (issue 23 item 4, docs/team-server.md): a SQLite data folder (the Node
 * host's `--data`) copied into a PostgreSQL database, then verified. Only a host may choose both
 * implementations; the SQL of each side is in sw/sqlite/dump.ts and sw/postgres/restore.ts, the
 * tables they pass in port/transfer.ts.
 *
 * The source is never written: the folder is held with a shared lock (a running host holds it
 * exclusively, so each refuses the other), its `db/` and `blobs/` are copied to a temporary
 * folder and only that copy is opened (opening a SQLite file may replay its log or migrate it).
 * The target is written in one transaction (postgres/restore.ts), so a failure leaves it as it
 * was; blobs bound for an S3 bucket (`blobs`) are written beside it, and those it did not
 * hold before are deleted again on failure. Ids are kept and the id counters left past the
 * largest ever handed out. Sessions are copied too (logged-in clients stay logged in), and so
 * is the sync bookkeeping of layers linked to a remote (their link state with a pending pull or
 * push, id maps, conflicts, problems): the first round from PostgreSQL goes on where the last
 * one from SQLite stopped.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { closeSync, constants, existsSync, openSync, readFileSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { openSqliteData, type SqlitePort } from '../sqlite/port.ts'
import { layerMetas, mainDump, withCatalogue, withLayer, type DumpSource } from '../sqlite/dump.ts'
import { openPostgresData, reasonOf, type PostgresPort } from '../postgres/port.ts'
import { restoreOn, targetTable, type Restore } from '../postgres/restore.ts'
import { CATALOGUE_TABLES, LAYER_TABLES, MAIN_TABLES, SYNC_TABLES, type TableRows } from '../port/transfer.ts'
import type { BlobStore, DataPort } from '../port/port.ts'
import type { FeatureLayer, LayerMeta } from '../feature/types.ts'
import { FileStore } from './node-store.ts'
import { LOCK_FILE } from './node-lock.ts'
import { describeS3, s3Blobs, type S3Config } from './node-s3-blobs.ts'

const { tryLock } = createRequire(import.meta.url)('fs-native-extensions') as { tryLock(fd: number, o?: { shared?: boolean }): boolean }

export interface MigrateOptions {
  from: string
  /** postgres://… */
  to: string
  /** Empty a target that holds data first. */
  replace?: boolean
  /** The target's blobs in an S3-compatible store (`--blobs`, as the hosts on it will be started) instead of the database. */
  blobs?: S3Config
  /** Progress and check lines (default: stdout). */
  log?: (line: string) => void
}

/** One compared table or layer: row counts and checksums of both sides. */
export interface Check { what: string; source: number; target: number; sourceSum: string; targetSum: string; ok: boolean }

/** Holds `dir` against a host starting: a shared lock on its lock file opened read-only (nothing is written). */
function holdSource(dir: string): () => void {
  if (!existsSync(join(dir, 'db', 'main.sqlite'))) throw new Error(`${dir} is not an Outpost data folder (no db/main.sqlite).`)
  const path = join(dir, LOCK_FILE)
  if (!existsSync(path)) return () => undefined
  const fd = openSync(path, constants.O_RDONLY)
  if (!tryLock(fd, { shared: true })) {
    closeSync(fd)
    const holder = readFileSync(path, 'utf8').trim() || 'pid unknown'
    throw new Error(`The data folder ${dir} is in use by a running Outpost host (${holder}): stop it, then move its data.`)
  }
  let held = true
  return () => { if (held) { held = false; closeSync(fd) } }
}

/** Copies every table of `names` that `src` has into the target; logs each count. */
async function copyTables(src: DumpSource, restore: Restore, names: readonly string[], target: (name: string) => string,
  log: (l: string) => void, label = (name: string, n: number) => `${target(name)}: ${n} rows`): Promise<void> {
  for (const name of names) {
    // The source's ACL counter is the one clients' caches know; the triggers counted the inserts.
    if (name === 'acl_state') await restore.clearAcl()
    let n: number | undefined
    for await (const page of src.pages(name)) n = (n ?? 0) + await restore.insert(target(name), page)
    if (n !== undefined) log(label(name, n))
  }
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
    const bucket = opts.blobs && s3Blobs(opts.blobs)
    await bucket?.check()
    try {
      target = await openPostgresData(opts.to, { maxConnections: 2, blobs: bucket })
    } catch (err) {
      throw new Error(`Cannot open the database: ${reasonOf(err)}`)
    }
    const layers = await layerMetas(source)
    const client = await target.pool.connect()
    const restore = restoreOn(client)
    /** Blobs new to the bucket: written outside the transaction, so a failure deletes them itself (not those a rolled-back target still names). */
    const put: string[] = []
    const had = new Set(bucket ? await bucket.listBlobs('') : [])
    try {
      await client.query('BEGIN')
      // The pool ends a session idle in a transaction after 60 s (postgres/conn.ts); the move's
      // one transaction may wait longer between statements (a large blob put into the bucket).
      await client.query('SET LOCAL idle_in_transaction_session_timeout = 0')
      await restore.lock()
      const holds = await restore.holds()
      if (holds && !opts.replace) throw new Error(`The target database already holds ${holds}: give an empty one, or --replace to overwrite it.`)
      await restore.empty()
      const main = mainDump(source)
      await copyTables(main, restore, MAIN_TABLES, targetTable, log)
      await restore.mainCounters(await main.counters())
      await withCatalogue(sqlite, store, async (cat) => {
        await copyTables(cat, restore, CATALOGUE_TABLES, (n) => targetTable(`catalogue:${n}`), log)
        await restore.catalogueMeta(await cat.meta())
      })
      for (const meta of layers) {
        const id = meta.resourceId
        const done = await withLayer(sqlite, store, meta, async (src) => {
          await restore.createLayer(meta)
          const counts: string[] = []
          await copyTables(src, restore, LAYER_TABLES, (n) => targetTable(`layer:${id}:${n}`), (l) => counts.push(l), (n, c) => `${n} ${c}`)
          await restore.layerDone(id, await src.epoch(), await src.counters())
          log(`layer ${id}: ${counts.join(', ')}`)
        })
        if (done === undefined) log(`layer ${id}: no feature tables stored`)
      }
      // Blobs one at a time in memory, in parts as postgres/blobs.ts keeps them, or as objects of the bucket.
      const blobs = await blobIds(source.blobs)
      let bytes = 0
      for (const id of blobs) {
        const data = (await source.blobs.getBlob(id))!
        bytes += data.length
        if (!bucket) await restore.putBlob(id, data)
        else {
          if (!had.has(id)) put.push(id)
          await bucket.putBlob(id, data)
        }
      }
      log(`blobs: ${blobs.length} (${bytes} bytes)${bucket ? ` into ${describeS3(opts.blobs!)}` : ''}`)
      await restore.moveTokens(['main', 'catalogue', ...layers.map((l) => `layer:${l.resourceId}`)])
      await client.query('COMMIT')
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined)
      for (const id of put) await bucket!.deleteBlob(id).catch(() => undefined)
      throw err
    } finally {
      client.release()
    }
    const checks = await verify(source, store, sqlite, target, layers, log)
    return { ok: checks.every((c) => c.ok), checks }
  } finally {
    release()
    await source?.close().catch(() => undefined)
    await target?.close().catch(() => undefined)
    await store?.close()
    await rm(snap, { recursive: true, force: true })
  }
}

/** Stored blobs (a write's temporary files left out). */
const blobIds = async (blobs: BlobStore) => (await blobs.listBlobs('')).filter((b) => !b.startsWith('.')).sort()

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')

/** sha256 (first 16 hex digits) of the canonical JSON (keys sorted, bytes as hex) of `rows`. */
export function checksum(rows: unknown[]): string {
  const canon = (v: unknown): unknown => Array.isArray(v) ? v.map(canon)
    : v instanceof Uint8Array ? hex(v)
    : v instanceof Date ? v.toISOString()
    : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon((v as Record<string, unknown>)[k])]))
    : v
  return createHash('sha256').update(JSON.stringify(canon(rows))).digest('hex').slice(0, 16)
}

/** A stored value as both engines' rows compare: booleans as 0/1, JSON text (SQLite) as the value jsonb gives. */
function plain(v: unknown, json: boolean): unknown {
  if (typeof v === 'boolean') return v ? 1 : 0
  if (json && typeof v === 'string') return JSON.parse(v)
  return v
}

/**
 * Compares both sides after the copy: per table and layer, the row counts and a checksum of the
 * canonical JSON of the rows. Features, attachments and blobs are read through the ports (the
 * feature ports' listings, the blob stores), so both engines' answers are compared; the other
 * tables by their rows (the columns both have, values normalized); the history's values are
 * left to the version reads of the API test, its bookkeeping columns compared here, and so is a
 * linked layer's sync bookkeeping.
 */
async function verify(source: SqlitePort, store: FileStore, sqlite: Sqlite3Static, target: PostgresPort, layers: LayerMeta[],
  log: (l: string) => void): Promise<Check[]> {
  const checks: Check[] = []
  const check = (what: string, s: unknown[], t: unknown[]) => {
    const c = { what, source: s.length, target: t.length, sourceSum: checksum(s), targetSum: checksum(t), ok: false }
    c.ok = c.source === c.target && c.sourceSum === c.targetSum
    checks.push(c)
    log(`${c.ok ? 'ok' : 'DIFFERS'} ${what}: ${c.source} / ${c.target} rows, checksum ${c.sourceSum} / ${c.targetSum}`)
  }
  const client = await target.pool.connect()
  const restore = restoreOn(client)
  /** `src`'s table `name` against the target's `table`, without the columns `skip`. */
  const compare = async (what: string, t: TableRows | undefined, table: string, skip: string[] = []) => {
    if (!t) return
    const have = new Set(await restore.columns(table))
    const cols = t.columns.filter((c) => have.has(c) && !skip.includes(c))
    const norm = (r: Record<string, unknown>) => cols.map((c) => plain(r[c], c === 'data' && t.name === 'ext_history'))
    // Both sides sorted here by the key: PostgreSQL orders text by its collation, SQLite by bytes.
    const at = t.key.map((k) => cols.indexOf(k)).filter((i) => i >= 0)
    const byKey = (a: unknown[], b: unknown[]) => {
      for (const i of at) if (a[i] !== b[i]) return (a[i] as number | string) < (b[i] as number | string) ? -1 : 1
      return 0
    }
    check(what, t.rows.map(norm).sort(byKey), (await restore.rows(table, cols, t.key)).map(norm).sort(byKey))
  }
  try {
    // The main data as the components read it: each port's repositories.
    const asRead = (port: DataPort) => port.read(async (tx) => {
      const ids = await tx.resources.subtree(0)
      return {
        principals: [...await tx.principals.list('U', false), ...await tx.principals.list('G', false)],
        resources: await tx.resources.refs(ids),
        fields: [...await tx.fields.list(layers.map((l) => l.resourceId))],
        // A set (its one use asks whether any rule allows): the engines list it in different orders.
        rules: (await tx.acl.allowRules()).map((r) => checksum([r])).sort(),
      }
    })
    const [s, t] = [await asRead(source), await asRead(target)]
    for (const k of ["principals", "resources", "fields", "rules"] as const) check(`${k} (read through the port)`, s[k], t[k])
    const main = mainDump(source)
    for (const name of MAIN_TABLES) await compare(name, await main.table(name), targetTable(name))
    await withCatalogue(sqlite, store, async (cat) => {
      for (const name of CATALOGUE_TABLES) await compare(`catalogue ${name}`, await cat.table(name), targetTable(`catalogue:${name}`))
    })
    const now = () => new Date()
    for (const meta of layers) {
      const id = meta.resourceId
      const stored = await withLayer(sqlite, store, meta, async (src) => {
        const values = ['geom', ...meta.fields.map((f) => `fld_${f.id}`)]
        for (const name of ['feature_version', 'feature_vstate', 'feature_history', 'ext_vstate', 'ext_history', 'feature_transaction']) {
          await compare(`layer ${id} ${name}`, await src.table(name), targetTable(`layer:${id}:${name}`), values)
        }
        // A linked layer's sync bookkeeping, row by row (an unlinked layer's tables are empty: not listed).
        for (const name of SYNC_TABLES) {
          const t = await src.table(name)
          if (t?.rows.length) await compare(`layer ${id} ${name}`, t, targetTable(`layer:${id}:${name}`))
        }
        return true
      })
      if (!stored) continue
      const shape = { geom: true, fields: meta.fields, label: false, description: true }
      const read = (layer: FeatureLayer) => layer.read(async (tx) => ({
        rows: await tx.list({}, shape),
        attachments: [...await tx.attachments()].sort(([a], [b]) => a - b),
      }))
      const s = await read(await source.features.open(meta, now))
      const t = await read(await target.features.open(meta, now))
      check(`layer ${id} features`, s.rows, t.rows)
      check(`layer ${id} attachments`, s.attachments, t.attachments)
    }
  } finally { client.release() }
  const sums = async (blobs: BlobStore) => {
    const out: [string, string][] = []
    for (const id of await blobIds(blobs)) out.push([id, createHash('sha256').update((await blobs.getBlob(id)) ?? new Uint8Array()).digest('hex')])
    return out
  }
  check('blobs', await sums(source.blobs), await sums(target.blobs))
  return checks
}
