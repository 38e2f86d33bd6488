/**
 * Sync Node↔Node: the sync cases with the app's backend as a Node host and the team's server
 * as another, behind a fault proxy. The cut cases run a second time against a local host in
 * a process of its own that is SIGKILLed at the cut and started again on its data folder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'node:http'
import { httpApi, NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import type { Api } from './harness.ts'
import { FaultProxy } from './fault-proxy.ts'
import { kill, startHost, type Host } from './node-process.ts'
import { syncCases, TOTALS, type SyncEnv } from './sync-cases.ts'

const SLOW = 180_000

let remote: { api: Api; server: Server; base: string }
let proxy: FaultProxy

beforeAll(async () => {
  remote = await startNodeApi()
  proxy = await new FaultProxy(remote.base).start()
})

afterAll(async () => {
  console.log(`[sync] Node host as the app: operations sent ${TOTALS.operationsSent}, conflicts found ${TOTALS.conflictsFound}, `
    + `features lost ${TOTALS.featuresLost}`)
  await proxy.close()
  await new Promise((resolve) => remote.server.close(resolve))
})

describe('sync Node↔Node', () => {
  let local: { api: Api; server: Server }
  beforeAll(async () => { local = await startNodeApi() })
  afterAll(() => new Promise<void>((resolve) => local.server.close(() => resolve())))
  const env = (): SyncEnv => ({ local: local.api, remote: remote.api, remoteUrl: proxy.base, remotePassword: NODE_ADMIN_PASSWORD, proxy })
  for (const c of syncCases) it(c.name, () => c.run(env(), expect), SLOW)
})

describe('sync Node↔Node, the local host SIGKILLed at each cut', () => {
  let dir: string
  let host: Host
  let restarting: Promise<void> | undefined
  // Requests go to whichever process is the host now, once it listens.
  const api: Api = { host: 'node', request: async (m, p, o) => { await restarting; return httpApi(host.base).request(m, p, o) } }
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'outpost-sync-kill-'))
    host = await startHost(dir)
  })
  afterAll(async () => {
    await kill(host)
    await rm(dir, { recursive: true, force: true })
  })
  const stop = () => (restarting = (async () => {
    await kill(host)
    host = await startHost(dir)
  })())
  const env = (): SyncEnv => ({ local: api, remote: remote.api, remoteUrl: proxy.base, remotePassword: NODE_ADMIN_PASSWORD, proxy, stop })
  for (const c of syncCases.filter((x) => / cut /.test(x.name))) it(c.name, () => c.run(env(), expect), SLOW)
})
