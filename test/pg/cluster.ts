/**
 * A throwaway PostgreSQL + PostGIS cluster for the tests and benchmarks: Debian's server
 * (scripts/ensure-postgres.mjs installs it), a copy of a data folder `initdb` made once
 * (`prepared`) in a temporary folder, reached over a Unix socket only. Run as the `postgres` user when we are root (initdb refuses root). Each
 * test asks for its own empty place (`database()`): a schema of its own in a shared database
 * that has PostGIS, reached by `search_path` in the URL (6 ms, where a database made from a
 * template takes 300 ms); `separateDatabase()` when a test needs a whole database.
 */
import { execFileSync, execSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import pg from 'pg'

const postgisControl = (major: string) => `/usr/share/postgresql/${major}/extension/postgis.control`

/** The newest installed server with PostGIS: its bin folder. */
export function postgresBin(): string {
  let versions: string[] = []
  try { versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) } catch { /* none */ }
  const v = versions.find((v) => existsSync(postgisControl(v)))
  if (!v) throw new Error('No PostgreSQL with PostGIS here: run `node scripts/ensure-postgres.mjs` (npm test does).')
  return `/usr/lib/postgresql/${v}/bin`
}

export interface Cluster {
  /** Socket folder and port (for `PG:` strings and psql). */
  host: string
  port: number
  /** "PostgreSQL 15.x, PostGIS 3.x" */
  version: string
  /** The URL of database `name` (`postgres://…?host=<socket folder>`). */
  url(name: string): string
  /** A new empty schema (first on the URL's `search_path`, PostGIS after it); returns the URL. */
  database(prefix?: string): Promise<string>
  /** A new empty database with PostGIS; returns its URL. */
  separateDatabase(prefix?: string): Promise<string>
  /** A client on the `postgres` database (close it yourself). */
  client(name?: string): Promise<pg.Client>
  /**
   * A role that must log in with its password (scram-sha-256), unlike every other role of the
   * cluster (trust): for the tests of a refused password.
   */
  passwordRole(name: string, password: string): Promise<void>
  stop(): Promise<void>
}

let serial = 0

/** Runs a shell command as the `postgres` user when we are root (initdb and the server refuse root). */
function runAsOwner(cmd: string): void {
  const r = process.getuid?.() === 0 ? spawnSync('runuser', ['-u', 'postgres', '--', 'sh', '-c', cmd], { encoding: 'utf8' })
    : spawnSync('sh', ['-c', cmd], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${cmd}: ${r.stderr}`)
}

/** A new temporary folder the server's user owns. */
function ownedTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  if (process.getuid?.() === 0) chownSync(dir, Number(execSync('id -u postgres')), Number(execSync('id -g postgres')))
  return dir
}

/**
 * `OUTPOST_PG_STATS=1` loads `pg_stat_statements` (Debian's server ships it) with planning
 * tracked: where a benchmark or test wants the server's own time per statement.
 */
const STATS = process.env.OUTPOST_PG_STATS === '1' ? ' -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_planning=on' : ''

const startServer = (bin: string, dir: string, port: number) =>
  // Small shared buffers and many connections: several test files run clusters side by side.
  runAsOwner(`${bin}/pg_ctl -D ${dir}/data -o "-k ${dir} -p ${port} -c listen_addresses='' -c shared_buffers=32MB -c max_connections=300 -c fsync=on${STATS}" -l ${dir}/log -w start >/dev/null`)

const stopServer = (bin: string, dir: string) => {
  const r = process.getuid?.() === 0 ? spawnSync('runuser', ['-u', 'postgres', '--', `${bin}/pg_ctl`, '-D', `${dir}/data`, '-m', 'fast', 'stop'], { stdio: 'ignore' })
    : spawnSync(`${bin}/pg_ctl`, ['-D', `${dir}/data`, '-m', 'fast', 'stop'], { stdio: 'ignore' })
  void r
}

/** Bump when what `prepared` makes changes: the folders of the old one are then not used. */
const PREPARED_FORMAT = 1

/**
 * A stopped cluster's data folder with `outpost_template` (PostGIS) and `outpost_shared` (its
 * copy, for the schemas), made once per installed server and PostGIS and kept in the temporary
 * folder: each cluster starts from a copy of it (`cp -a`, about 0.1 s) instead of initdb,
 * CREATE EXTENSION postgis and two CREATE DATABASEs (about 3 s a cluster, 15 test files start
 * one). Made in a folder of its own and renamed into place, so test files starting side by
 * side never see half of it (a loser of that race throws its copy away).
 */
async function prepared(bin: string, port: number): Promise<string> {
  // Installed files' times: an upgraded server or PostGIS gets a folder of its own.
  const installed = [`${bin}/postgres`, postgisControl(basename(dirname(bin)))].map((f) => statSync(f).mtimeMs)
  const key = createHash('sha256').update(`${PREPARED_FORMAT} ${bin} ${installed} ${process.getuid?.()}`).digest('hex').slice(0, 16)
  const done = join(tmpdir(), `outpost-pg-prepared-${key}`)
  if (existsSync(join(done, 'data', 'PG_VERSION'))) return done
  const dir = ownedTempDir('outpost-pg-preparing-')
  try {
    runAsOwner(`${bin}/initdb -D ${dir}/data -A trust -U postgres -E UTF8 --locale=C.UTF-8 >/dev/null`)
    startServer(bin, dir, port)
    try {
      const connect = async (database: string) => {
        const c = new pg.Client({ host: dir, port, user: 'postgres', database })
        await c.connect()
        return c
      }
      const c = await connect('postgres')
      try {
        await c.query('CREATE DATABASE outpost_template')
        const t = await connect('outpost_template')
        try { await t.query('CREATE EXTENSION postgis') } finally { await t.end() }
        // The schemas' database: a copy of the template, so the template stays free to copy (no one connected).
        await c.query('CREATE DATABASE outpost_shared TEMPLATE outpost_template')
      } finally {
        await c.end()
      }
    } finally {
      stopServer(bin, dir)
    }
    rmSync(join(dir, 'log'), { force: true })
    try {
      renameSync(dir, done)
    } catch (err) {
      // Another process put its copy there first; anything else there is not ours to delete.
      if (!existsSync(join(done, 'data', 'PG_VERSION'))) throw new Error(`${done} is in the way of the prepared cluster: delete it`, { cause: err })
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return done
}

/** Starts a cluster on a port derived from `seed` (pass something unique per process, e.g. `process.pid`). */
export async function startCluster(seed = process.pid): Promise<Cluster> {
  const bin = postgresBin()
  const port = 40000 + (seed % 20000)
  const from = await prepared(bin, port)
  const dir = ownedTempDir('outpost-pg-')
  const url = (name: string) => `postgres://postgres@localhost:${port}/${name}?host=${encodeURIComponent(dir)}`
  const client = async (name = 'postgres') => {
    const c = new pg.Client({ host: dir, port, user: 'postgres', database: name })
    await c.connect()
    return c
  }
  const stop = async () => {
    stopServer(bin, dir)
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    // As root, cp -a keeps the owner (postgres), which the server requires of its data folder.
    execFileSync('cp', ['-a', join(from, 'data'), join(dir, 'data')])
    startServer(bin, dir, port)
    const shared = await client('outpost_shared')
    try {
      const v = (await shared.query('SELECT postgis_lib_version() AS v, version() AS pg')).rows[0] as { v: string; pg: string }
      const version = `PostgreSQL ${v.pg.split(' ')[1]}, PostGIS ${v.v}`
      const separateDatabase = async (prefix = 'db') => {
        const name = `${prefix}_${++serial}`
        const admin = await client()
        try { await admin.query(`CREATE DATABASE ${name} TEMPLATE outpost_template`) } finally { await admin.end() }
        return url(name)
      }
      const database = async (prefix = 'db') => {
        const name = `${prefix}_${++serial}`
        await shared.query(`CREATE SCHEMA ${name}`)
        return `${url('outpost_shared')}&options=${encodeURIComponent(`-c search_path=${name},public`)}`
      }
      const stopAll = async () => { await shared.end().catch(() => undefined); await stop() }
      const passwordRole = async (name: string, password: string) => {
        const admin = await client()
        try {
          await admin.query(`CREATE ROLE ${admin.escapeIdentifier(name)} LOGIN SUPERUSER PASSWORD ${admin.escapeLiteral(password)}`)
          // The first matching line wins: this role's goes before initdb's `trust` lines (the file keeps its owner).
          const hba = `${dir}/data/pg_hba.conf`
          writeFileSync(hba, `local all ${name} scram-sha-256\n${readFileSync(hba, 'utf8')}`)
          await admin.query('SELECT pg_reload_conf()')
          // The postmaster reloads on a signal, shortly after.
          await new Promise((resolve) => setTimeout(resolve, 300))
        } finally {
          await admin.end()
        }
      }
      return { host: dir, port, version, url, database, separateDatabase, client, passwordRole, stop: stopAll }
    } catch (err) {
      await shared.end().catch(() => undefined)
      throw err
    }
  } catch (err) {
    await stop()
    throw err
  }
}
