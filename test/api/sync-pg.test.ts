/**
 * Sync Node↔Node with the app's backend on PostgreSQL (issue 23): the sync cases (sync-suite.ts)
 * with the local Node host's data port on a throwaway PostgreSQL + PostGIS (its linked layers
 * are PostGIS tables with their sync bookkeeping, sw/postgres/features/replica.ts); the team's
 * server stays on SQLite. The cut cases run again with the local host a process of its own on
 * a database of its own, SIGKILLed at the cut: the process started after it is another process
 * on the same database, so a push cut after the remote's commit is finished by a second process
 * from the pending push the first one recorded.
 */
import { startNodeApi } from './node-client.ts'
import { syncSuites } from './sync-suite.ts'
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
