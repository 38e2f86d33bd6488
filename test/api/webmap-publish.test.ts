/**
 * Publishing a web map made in the app to the team's server, Node↔Node: the app's backend and
 * the team's server are two Node hosts (webmap-publish-cases.ts; the same cases run against the
 * worker in test/e2e/webmap-publish-sw.spec.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Server } from 'node:http'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import type { Api } from './harness.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { publishCases, type PublishEnv } from './webmap-publish-cases.ts'

const close = (s: Server) => new Promise<void>((resolve) => s.close(() => resolve()))

describe('webmap publish Node↔Node', () => {
  let remote: { api: Api; server: Server; base: string }
  let local: { api: Api; server: Server; app: OutpostApp }
  beforeAll(async () => {
    remote = await startNodeApi()
    local = await startNodeApi()
  })
  afterAll(async () => {
    await close(local.server)
    await (await local.app.services()).close()
    await close(remote.server)
  })
  const env = (): PublishEnv => ({ local: local.api, remote: remote.api, remoteUrl: remote.base, remotePassword: NODE_ADMIN_PASSWORD })
  for (const c of publishCases) it(c.name, () => c.run(env(), expect), 60_000)
})
