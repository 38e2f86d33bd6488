/**
 * The webmap-publish cases (webmap-publish-cases.ts) with the app's backend a Node host on
 * whichever data port `startLocal` gives it, and the team's server another Node host.
 * webmap-publish.test.ts runs them on SQLite, webmap-publish-pg.test.ts on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import type { Api } from './harness.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { publishCases, type PublishEnv } from './webmap-publish-cases.ts'

const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()))

export function publishSuite(label: string, startLocal: () => Promise<{ api: Api; server: Server; app: OutpostApp }>): void {
  describe(`webmap publish Node↔Node${label}`, () => {
    let remote: { api: Api; server: Server; base: string }
    let local: { api: Api; server: Server; app: OutpostApp }
    beforeAll(async () => {
      remote = await startNodeApi()
      local = await startLocal()
    })
    afterAll(async () => {
      await close(local.server)
      await (await local.app.services()).close()
      await close(remote.server)
    })
    const env = (): PublishEnv => ({ local: local.api, remote: remote.api, remoteUrl: remote.base, remotePassword: NODE_ADMIN_PASSWORD })
    for (const c of publishCases) it(c.name, () => c.run(env(), expect), 120_000)
  })
}
