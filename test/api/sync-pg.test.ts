/**
 * Sync Node↔Node with the app's backend on PostgreSQL (issue 23): the sync cases (sync-suite.ts)
 * with the local Node host's data port on a throwaway PostgreSQL + PostGIS (its linked layers
 * are PostGIS tables with their sync bookkeeping, sw/postgres/features/replica.ts); the team's
 * server stays on SQLite. The cut cases run again with the local host a process of its own on
 * a database of its own, SIGKILLed at the cut: the process started after it is another process
 * on the same database, so a push cut after the remote's commit is finished by a second process
 * from the pending push the first one recorded.
 */
import pg from 'pg'
import { describe, expect, it, vi } from 'vitest'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import { syncSuites } from './sync-suite.ts'
import { agree, connect, link, remoteLayer, sync, type SyncEnv } from './sync-cases.ts'
import { postgresData } from '../../sw/host/node.ts'
import { cluster } from '../pg/shared.ts'

syncSuites({
  label: ' on PostgreSQL',
  async startLocal() {
    const url = await (await cluster()).database('sync')
    const { api, server, app } = await startNodeApi({ app: { data: postgresData(url, { maxConnections: 4 }) } })
    return {
      api,
      async close() {
        await new Promise<void>((resolve) => server.close(() => resolve()))
        await (await app.services()).data.close()
      },
    }
  },
  processArgs: async () => ['--database', await (await cluster()).separateDatabase('synckill')],
})

/**
 * The round's bookkeeping on PostgreSQL is set-based (docs/team-server.md "Numbers"): a push's
 * results, the pull of our own changes coming back (the locks moving on) and the plan of the
 * push cost statements per batch, not per feature. Counted at `pg`'s client for the round
 * (`POST …/sync`) of 100 and of 400 changed features; the team's server is on SQLite, so every
 * statement counted is the local host's. One by one it was 5 statements per feature (a
 * description's version, a mapping read, its DELETE and INSERT, a relock): 1,500 more for 300
 * more; what remains grows with the pages of the remote's changes feed (100 features each).
 */
describe('a sync round with the local host on PostgreSQL', () => {
  it('costs statements per batch, not per feature: 300 more changed features take fewer than 300 more statements, and both sides agree', async () => {
    const remote = await startNodeApi()
    const url = await (await cluster()).database('syncstatements')
    const local = await startNodeApi({ app: { data: postgresData(url, { maxConnections: 4 }) } })
    const env: SyncEnv = { local: local.api, remote: remote.api, remoteUrl: remote.base, remotePassword: NODE_ADMIN_PASSWORD,
      proxy: undefined as never }
    const spy = vi.spyOn(pg.Client.prototype, 'query')
    try {
      const conn = await connect(env, expect)
      const round = async (n: number) => {
        const rl = await remoteLayer(env, expect)
        const body = Array.from({ length: n }, (_, i) => ({ geom: `POINT(${i} ${n})`, fields: { name: `f${i}`, n: i } }))
        expect((await remote.api.request('PATCH', `/api/resource/${rl}/feature/`, { body })).status).toBe(200)
        const lid = await link(env, expect, conn, rl)
        const mine = (await local.api.request('GET', `/api/resource/${lid}/feature/?fields=n&geom=no`)).body as { id: number; fields: { n: number } }[]
        expect(mine).toHaveLength(n)
        const changed = mine.map((f) => ({ id: f.id, fields: { n: f.fields.n + 1000 } }))
        expect((await local.api.request('PATCH', `/api/resource/${lid}/feature/`, { body: changed })).status).toBe(200)
        spy.mockClear()
        const report = await sync(env, expect, lid)
        const statements = spy.mock.calls.length
        expect(report.pushed.updated).toBe(n)
        await agree(env, expect, lid, rl)
        // The locks moved on: the next round sends nothing.
        expect((await sync(env, expect, lid)).pushed).toEqual({ created: 0, updated: 0, deleted: 0, attachments: 0 })
        return statements
      }
      const [small, large] = [await round(100), await round(400)]
      console.log(`[sync on PostgreSQL] statements of a round: ${small} for 100 changed features, ${large} for 400`)
      // Per page of the changes feed (100 features) a few statements remain: fewer than one per feature.
      expect(large - small).toBeLessThan(300)
    } finally {
      spy.mockRestore()
      await new Promise<void>((resolve) => local.server.close(() => resolve()))
      await (await local.app.services()).data.close()
      await new Promise<void>((resolve) => remote.server.close(() => resolve()))
    }
  }, 120_000)
})
