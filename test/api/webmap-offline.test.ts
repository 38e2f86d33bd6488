/**
 * Taking a web map offline, Node↔Node: the app's backend a Node host, the team's server
 * another (webmap-offline-cases.ts; the same cases run against the worker in
 * test/e2e/webmap-offline-sw.spec.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import type { Api } from './harness.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { offlineCases, type OfflineEnv } from './webmap-offline-cases.ts'

const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()))

describe('webmap offline Node↔Node', () => {
  let remote: { api: Api; server: Server; base: string }
  let local: { api: Api; server: Server; app: OutpostApp }
  beforeAll(async () => {
    remote = await startNodeApi()
    local = await startNodeApi()
  })
  afterAll(async () => {
    await close(local.server)
    await close(remote.server)
  })
  const env = (): OfflineEnv => ({ local: local.api, remote: remote.api, remoteUrl: remote.base, remotePassword: NODE_ADMIN_PASSWORD,
    tileBlobs: async (prefix) => (await (await local.app.services()).data.blobs.listBlobs(prefix)).length })
  for (const c of offlineCases) it(c.name, () => c.run(env(), expect), 120_000)
})
