/**
 * Shared by the benchmarks: a throwaway PostgreSQL + PostGIS cluster (test/pg/cluster.ts, fsync
 * on), installed with apt-get when missing, and a `pg` client on a database with PostGIS.
 */
import { spawnSync } from 'node:child_process'
import type pg from 'pg'
import { startCluster } from '../pg/cluster.ts'

export interface Postgis {
  client: pg.Client
  /** "PostgreSQL 15.x, PostGIS 3.x" */
  version: string
  /** Socket folder and port, for other clients (ogr2ogr's `PG:` connection string). */
  host: string
  port: number
  /** The database the client is on. */
  database: string
  /** A new empty database with PostGIS: its URL, for a Node host's `--database`. */
  newDatabase(prefix: string): Promise<string>
  stop(): Promise<void>
}

/** Starts a cluster on a port derived from `port`, and connects to a database with PostGIS enabled. */
export async function startPostgis(port: number): Promise<Postgis> {
  if (spawnSync('node', ['scripts/ensure-postgres.mjs'], { stdio: 'inherit' }).status !== 0) throw new Error('No PostgreSQL with PostGIS')
  const cluster = await startCluster(port)
  const url = new URL(await cluster.separateDatabase('bench'))
  const database = url.pathname.slice(1)
  const client = await cluster.client(database)
  return {
    client, version: cluster.version, host: cluster.host, port: cluster.port, database,
    newDatabase: (prefix) => cluster.separateDatabase(prefix),
    stop: async () => { await client.end().catch(() => undefined); await cluster.stop() },
  }
}
