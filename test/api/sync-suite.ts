/**
 * The runs of the sync cases (sync-cases.ts) against a Node host as the app's backend, whatever
 * its data port: every case with the local host in this process, and the cut cases again with
 * the local host in a process of its own that is SIGKILLed at the cut and started again on the
 * same data (a data folder, or a PostgreSQL database: then the retry is another process on the
 * same database). The team's server is a Node host behind a fault proxy. sync.test.ts runs them
 * on SQLite, sync-pg.test.ts with the local host on PostgreSQL.
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
import { cluster } from '../pg/shared.ts'
import { teamDatabase, type TeamDatabase } from '../pg/team-db.ts'

const SLOW = 180_000

export interface SyncSuiteOptions {
  /** Names the describes ('sync Node↔Node' + this). */
  label: string
  /** Starts the local host in this process; `close` stops it. */
  startLocal(): Promise<{ api: Api; close(): Promise<void> }>
  /** Extra command-line arguments of the local host in a process of its own (`--database …`), asked once. */
  processArgs?: () => Promise<string[]>
}

export function syncSuites(opts: SyncSuiteOptions): void {
  let remote: { api: Api; server: Server; base: string }
  let proxy: FaultProxy
  /** The team's own PostGIS database (the PostGIS layer's case), made on its first use. */
  let teamDb: Promise<TeamDatabase> | undefined
  const postgis = () => (teamDb ??= cluster().then((c) => teamDatabase(c)))

  beforeAll(async () => {
    remote = await startNodeApi()
    proxy = await new FaultProxy(remote.base).start()
  })

  afterAll(async () => {
    console.log(`[sync${opts.label}] Node host as the app: operations sent ${TOTALS.operationsSent}, conflicts found ${TOTALS.conflictsFound}, `
      + `features lost ${TOTALS.featuresLost}`)
    await proxy.close()
    await new Promise((resolve) => remote.server.close(resolve))
  })

  describe(`sync Node↔Node${opts.label}`, () => {
    let local: { api: Api; close(): Promise<void> }
    beforeAll(async () => { local = await opts.startLocal() })
    afterAll(() => local.close())
    const env = (): SyncEnv => ({ local: local.api, remote: remote.api, remoteUrl: proxy.base, remotePassword: NODE_ADMIN_PASSWORD, proxy, postgis })
    for (const c of syncCases) it(c.name, () => c.run(env(), expect), SLOW)
  })

  describe(`sync Node↔Node${opts.label}, the local host SIGKILLed at each cut`, () => {
    let dir: string
    let args: string[]
    let host: Host
    let restarting: Promise<void> | undefined
    // Requests go to whichever process is the host now, once it listens.
    const api: Api = { host: 'node', request: async (m, p, o) => { await restarting; return httpApi(host.base).request(m, p, o) } }
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'outpost-sync-kill-'))
      args = await opts.processArgs?.() ?? []
      host = await startHost(dir, args)
    })
    afterAll(async () => {
      await kill(host)
      await rm(dir, { recursive: true, force: true })
    })
    const stop = () => (restarting = (async () => {
      await kill(host)
      host = await startHost(dir, args)
    })())
    const env = (): SyncEnv => ({ local: api, remote: remote.api, remoteUrl: proxy.base, remotePassword: NODE_ADMIN_PASSWORD, proxy, stop })
    for (const c of syncCases.filter((x) => / cut /.test(x.name))) it(c.name, () => c.run(env(), expect), SLOW)
  })
}
