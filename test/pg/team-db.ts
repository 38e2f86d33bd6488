/**
 * A team's own PostGIS database for the tests that publish its tables (spatialdb_*): a new
 * database of a test cluster, its connection parameters as a `spatialdb_connection` takes them,
 * and a way to run SQL there as another client of the team would.
 */
import pg from 'pg'
import type { Cluster } from './cluster.ts'

export interface TeamDatabase {
  /** The `spatialdb_connection` member that reaches it (the cluster's Unix socket). */
  params: { hostname: string; port: number; database: string; username: string; password: string }
  /** Runs `text` (bound `values`) as another client; its rows. */
  query(text: string, values?: unknown[]): Promise<Record<string, unknown>[]>
}

/** A new database of cluster `c`, PostGIS in it. */
export async function teamDatabase(c: Cluster, prefix = 'team'): Promise<TeamDatabase> {
  const database = new URL(await c.separateDatabase(prefix)).pathname.slice(1)
  const params = { hostname: c.host, port: c.port, database, username: 'postgres', password: 'unused' }
  return {
    params,
    async query(text, values) {
      const client = new pg.Client({ host: c.host, port: c.port, user: 'postgres', database })
      await client.connect()
      try {
        return (await client.query(text, values)).rows
      } finally {
        await client.end()
      }
    },
  }
}
