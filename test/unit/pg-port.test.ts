/**
 * The data port's contract (test/port/contract.ts) against the PostgreSQL implementation, on a
 * real PostgreSQL + PostGIS (a throwaway cluster: test/pg/cluster.ts). Each case gets a new
 * database; a reopen is a new pool on the same database (another process, or a restart).
 */
import { afterEach } from 'vitest'
import { AsyncLocalStorage } from 'node:async_hooks'
import { openPostgresData, type PostgresPort } from '../../sw/postgres/port.ts'
import type { JournalEntry } from '../../sw/resource/repository.ts'
import { portContract } from '../port/contract.ts'
import { cluster } from '../pg/shared.ts'

const asyncLocal = new AsyncLocalStorage<unknown>()
const urls = new WeakMap<PostgresPort, string>()
/** Every port a case opened: closed after it, so the cases' pools do not use up the server's connections. */
const opened: PostgresPort[] = []
afterEach(async () => { for (const p of opened.splice(0)) await p.close().catch(() => undefined) })

async function open(url: string): Promise<PostgresPort> {
  const port = await openPostgresData(url, { asyncContext: () => asyncLocal as AsyncLocalStorage<never> })
  urls.set(port, url)
  opened.push(port)
  return port
}

portContract<PostgresPort>('PostgreSQL', {
  fresh: async () => open(await (await cluster()).database('port')),
  reopen: async (p) => { await p.close(); return open(urls.get(p)!) },
  journal: async (p) => {
    const rows = (await p.pool.query('SELECT tstamp, user_id, resource_id, action, payload FROM journal ORDER BY id')).rows
    return rows.map((r): JournalEntry => ({ tstamp: String(r.tstamp), userId: Number(r.user_id), resourceId: Number(r.resource_id),
      action: String(r.action), payload: JSON.parse(String(r.payload)) }))
  },
  layer: async (p) => {
    await p.pool.query(`INSERT INTO resource (id, cls, parent_id, display_name, owner_user_id, creation_date)
      VALUES (0, 'resource_group', NULL, 'Root', 1, '2026-01-01') ON CONFLICT DO NOTHING`)
    return Number((await p.pool.query(`INSERT INTO resource (cls, parent_id, display_name, owner_user_id, creation_date)
      VALUES ('vector_layer', 0, 'L', 1, '2026-01-01') RETURNING id`)).rows[0].id)
  },
})
