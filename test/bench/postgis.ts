/**
 * Shared by the benchmarks: a throwaway PostgreSQL + PostGIS cluster (fsync on), installed
 * with apt-get when missing, driven by `pg` over a Unix socket.
 */
import { execSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

const PG_BIN = '/usr/lib/postgresql/15/bin'

function ensurePostgis(): void {
  if (existsSync('/usr/share/postgresql/15/extension/postgis.control')) return
  console.log('installing postgresql + postgis with apt-get…')
  execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgresql-15-postgis-3', { stdio: 'inherit' })
}

export interface Postgis {
  client: pg.Client
  /** "PostgreSQL 15.x, PostGIS 3.x" */
  version: string
  /** Socket folder and port, for other clients (ogr2ogr's `PG:` connection string). */
  host: string
  port: number
  stop(): Promise<void>
}

/** Starts a cluster in a temporary folder on a port derived from `port`, with PostGIS enabled. */
export async function startPostgis(port: number): Promise<Postgis> {
  ensurePostgis()
  const dir = mkdtempSync(join(tmpdir(), 'outpost-pg-'))
  const uid = Number(execSync('id -u postgres').toString())
  const gid = Number(execSync('id -g postgres').toString())
  chownSync(dir, uid, gid)
  const pgPort = 54000 + (port % 1000)
  const as = (cmd: string) => {
    const r = spawnSync('runuser', ['-u', 'postgres', '--', 'sh', '-c', cmd], { encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`${cmd}: ${r.stderr}`)
  }
  as(`${PG_BIN}/initdb -D ${dir}/data -A trust -U postgres >/dev/null`)
  as(`${PG_BIN}/pg_ctl -D ${dir}/data -o "-k ${dir} -p ${pgPort} -c listen_addresses=''" -l ${dir}/log -w start >/dev/null`)
  const client = new pg.Client({ host: dir, port: pgPort, user: 'postgres', database: 'postgres' })
  const stop = async () => {
    await client.end().catch(() => undefined)
    spawnSync('runuser', ['-u', 'postgres', '--', `${PG_BIN}/pg_ctl`, '-D', `${dir}/data`, '-m', 'fast', 'stop'], { stdio: 'ignore' })
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await client.connect()
    await client.query('CREATE EXTENSION postgis')
    const v = (await client.query('SELECT postgis_lib_version() AS v, version() AS pg')).rows[0] as { v: string; pg: string }
    return { client, version: `PostgreSQL ${v.pg.split(' ')[1]}, PostGIS ${v.v}`, host: dir, port: pgPort, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
