/**
 * The webmap-offline cases (webmap-offline-cases.ts) with the app's backend a Node host on
 * whichever data port `startLocal` gives it, and the team's server another Node host.
 * webmap-offline.test.ts runs them on SQLite, webmap-offline-pg.test.ts on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import type { Api } from './harness.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { countTiles, offlineCases, offlineFixtures, replaceRaster, type OfflineEnv } from './webmap-offline-cases.ts'

const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()))

export function offlineSuite(label: string, startLocal: () => Promise<{ api: Api; server: Server; app: OutpostApp }>): void {
  describe(`webmap offline Node↔Node${label}`, () => {
    let remote: { api: Api; server: Server; base: string; app: OutpostApp }
    let tiles: ReturnType<typeof countTiles>
    let local: { api: Api; server: Server; app: OutpostApp }
    beforeAll(async () => {
      await offlineFixtures()
      remote = await startNodeApi()
      tiles = countTiles(remote.server)
      local = await startLocal()
    })
    afterAll(async () => {
      await close(local.server)
      await (await local.app.services()).close()
      await close(remote.server)
    })
    const env = (): OfflineEnv => ({ local: local.api, remote: remote.api, remoteUrl: remote.base, remotePassword: NODE_ADMIN_PASSWORD,
      tileBlobs: async (prefix) => (await (await local.app.services()).data.blobs.listBlobs(prefix)).length, ...tiles,
      replaceRemoteRaster: replaceRaster(remote.app) })
    for (const c of offlineCases) it(c.name, () => c.run(env(), expect), 120_000)
  })
}
