/**
 * Sync Node↔Node: the sync cases with the app's backend as a Node host on SQLite and the team's
 * server as another, behind a fault proxy (sync-suite.ts). The cut cases run a second time
 * against a local host in a process of its own that is SIGKILLed at the cut and started again
 * on its data folder.
 */
import type { Server } from 'node:http'
import { startNodeApi } from './node-client.ts'
import { syncSuites } from './sync-suite.ts'

syncSuites({
  label: '',
  async startLocal() {
    const { api, server } = await startNodeApi()
    return { api, close: () => new Promise<void>((resolve) => (server as Server).close(() => resolve())) }
  },
})
