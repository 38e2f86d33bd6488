/**
 * A throwaway PostgreSQL + PostGIS cluster for the tests and benchmarks: Debian's server
 * (scripts/ensure-postgres.mjs installs it), `initdb` in a temporary folder, reached over a
 * Unix socket only. Run as the `postgres` user when we are root (initdb refuses root). Each
 * test asks for its own empty place (`database()`): a schema of its own in a shared database
 * that has PostGIS, reached by `search_path` in the URL (6 ms, where a database made from a
 * template takes 300 ms); `separateDatabase()` when a test needs a whole database.
 */
import { execSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

/** The newest installed server with PostGIS: its bin folder. */
export function postgresBin(): string {
  let versions: string[] = []
  try { versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) } catch { /* none */ }
  const v = versions.find((v) => existsSync(`/usr/share/postgresql/${v}/extension/postgis.control`))
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

/** Starts a cluster on a port derived from `seed` (pass something unique per process, e.g. `process.pid`). */
export async function startCluster(seed = process.pid): Promise<Cluster> {
  const bin = postgresBin()
  const dir = mkdtempSync(join(tmpdir(), 'outpost-pg-'))
  const root = process.getuid?.() === 0
  if (root) chownSync(dir, Number(execSync('id -u postgres')), Number(execSync('id -g postgres')))
  const port = 40000 + (seed % 20000)
  const as = (cmd: string) => {
    const r = root ? spawnSync('runuser', ['-u', 'postgres', '--', 'sh', '-c', cmd], { encoding: 'utf8' })
      : spawnSync('sh', ['-c', cmd], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`${cmd}: ${r.stderr}`)
  }
  as(`${bin}/initdb -D ${dir}/data -A trust -U postgres -E UTF8 --locale=C.UTF-8 >/dev/null`)
  // Small shared buffers and few connections: several test files run clusters side by side.
  as(`${bin}/pg_ctl -D ${dir}/data -o "-k ${dir} -p ${port} -c listen_addresses='' -c shared_buffers=32MB -c max_connections=300 -c fsync=on" -l ${dir}/log -w start >/dev/null`)
  const url = (name: string) => `postgres://postgres@localhost:${port}/${name}?host=${encodeURIComponent(dir)}`
  const client = async (name = 'postgres') => {
    const c = new pg.Client({ host: dir, port, user: 'postgres', database: name })
    await c.connect()
    return c
  }
  const stop = async () => {
    const r = root ? spawnSync('runuser', ['-u', 'postgres', '--', `${bin}/pg_ctl`, '-D', `${dir}/data`, '-m', 'fast', 'stop'], { stdio: 'ignore' })
      : spawnSync(`${bin}/pg_ctl`, ['-D', `${dir}/data`, '-m', 'fast', 'stop'], { stdio: 'ignore' })
    void r
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const c = await client()
    try {
      await c.query('CREATE DATABASE outpost_template')
      const t = await client('outpost_template')
      await t.query('CREATE EXTENSION postgis')
      const v = (await t.query('SELECT postgis_lib_version() AS v, version() AS pg')).rows[0] as { v: string; pg: string }
      await t.end()
      const version = `PostgreSQL ${v.pg.split(' ')[1]}, PostGIS ${v.v}`
      const separateDatabase = async (prefix = 'db') => {
        const name = `${prefix}_${++serial}`
        const admin = await client()
        try { await admin.query(`CREATE DATABASE ${name} TEMPLATE outpost_template`) } finally { await admin.end() }
        return url(name)
      }
      // The schemas' database: a copy of the template, so the template stays free to copy (no one connected).
      await c.query('CREATE DATABASE outpost_shared TEMPLATE outpost_template')
      const shared = await client('outpost_shared')
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
    } finally {
      await c.end()
    }
  } catch (err) {
    await stop()
    throw err
  }
}
