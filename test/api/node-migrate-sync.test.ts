/**
 * Moving a team's data (sw/host/node-migrate.ts) when a layer of it is linked to a remote layer:
 * the sync bookkeeping (link state with a pending push, id maps of features and attachments,
 * conflicts, history) travels with it, so the first round from the host on PostgreSQL goes on
 * where the last one from SQLite stopped: the push cut after the remote's commit is finished
 * once, the local change waiting is pushed, the conflict is still there to be decided, and the
 * attachment already on both sides is neither sent nor fetched again. The hosts and the remote
 * are the sync suite's (sync-cases.ts helpers, a fault proxy in front of the remote).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import type { Api } from './harness.ts'
import { FaultProxy } from './fault-proxy.ts'
import { agree, connect, features, link, remoteLayer, sync, type SyncEnv } from './sync-cases.ts'
import { postgresData } from '../../sw/host/node.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { migrateFolder } from '../../sw/host/node-migrate.ts'
import { cluster } from '../pg/shared.ts'
import { hashFolder, stop } from './migrate-shared.ts'

const point = (x: number, y: number, name: string, n: number | null = null) => ({ geom: `POINT(${x} ${y})`, fields: { name, n } })
const commit = (m: string, p: string) => m === 'POST' && /\/feature\/transaction\/\d+$/.test(p)

describe('npm run migrate: a layer linked to a remote keeps its sync bookkeeping', () => {
  let remote: { api: Api; server: Server; base: string; app: OutpostApp }
  let proxy: FaultProxy
  let dir: string
  let rl: number
  let lid: number
  /** The SQLite host's answers: the layer's sync state and its conflicts. */
  let state: unknown
  let conflicts: { id: number; kind: string }[]
  const env = (local: Api): SyncEnv => ({ local, remote: remote.api, remoteUrl: proxy.base, remotePassword: NODE_ADMIN_PASSWORD, proxy })

  beforeAll(async () => {
    remote = await startNodeApi()
    proxy = await new FaultProxy(remote.base).start()
    dir = mkdtempSync(join(tmpdir(), 'outpost-migrate-sync-'))
    const host = await startNodeApi({ dataDir: dir })
    const e = env(host.api)
    rl = await remoteLayer(e, expect)
    const r = (await remote.api.request('PATCH', `/api/resource/${rl}/feature/`, { body: [point(0, 0, 'both', 1), point(1, 1, 'keep', 1)] }))
      .body.map((x: { id: number }) => x.id)
    const up = (await remote.api.request('PUT', '/api/component/file_upload/', { raw: 'photo bytes',
      headers: { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="p.txt"' } })).body
    expect((await remote.api.request('POST', `/api/resource/${rl}/feature/${r[1]}/attachment/`, { body: { file_upload: up } })).status).toBe(200)
    lid = await link(e, expect, await connect(e, expect), rl)
    const lf = Object.fromEntries((await features(host.api, lid)).map((f) => [f.fields.name, f.id]))
    // A conflict: 'both' changed on both sides.
    await host.api.request('PUT', `/api/resource/${lid}/feature/${lf.both}`, { body: { fields: { n: 100 } } })
    await remote.api.request('PUT', `/api/resource/${rl}/feature/${r[0]}`, { body: { fields: { n: 200 } } })
    expect((await sync(e, expect, lid, 'conflicts')).conflicts).toBe(1)
    // A push cut after the remote committed it: the host records it as pending, not knowing the outcome.
    await host.api.request('POST', `/api/resource/${lid}/feature/`, { body: point(5, 5, 'cut') })
    proxy.cut(commit, 'after')
    expect((await host.api.request('POST', `/api/resource/${lid}/sync`)).body.status).toBe('error')
    await proxy.settled()
    // A local change waiting, and one on the remote to be pulled.
    await host.api.request('PUT', `/api/resource/${lid}/feature/${lf.keep}`, { body: { fields: { n: 5 } } })
    await remote.api.request('POST', `/api/resource/${rl}/feature/`, { body: point(6, 6, 'new there') })
    state = (await host.api.request('GET', `/api/resource/${lid}/sync`)).body
    expect(state).toMatchObject({ local_changes: { features: 2, attachments: 0 }, conflicts: 1, pending: { push: true, pull: false } })
    conflicts = (await host.api.request('GET', `/api/resource/${lid}/sync/conflict/`)).body
    expect(conflicts).toHaveLength(1)
    await stop(host)
  }, 120_000)

  afterAll(async () => {
    await proxy.close()
    await new Promise((resolve) => remote.server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })

  it('a failure mid-way leaves the target empty and the source byte-identical', async () => {
    const url = await (await cluster()).database('syncfails')
    const port = await (await import('../../sw/postgres/port.ts')).openPostgresData(url)
    await port.close()
    const c = await (await cluster()).client('outpost_shared')
    c.on('error', () => undefined)
    const schema = /search_path%3D([a-z_0-9]+)/.exec(url)![1]
    // The blobs are written after every layer's tables, the sync bookkeeping included.
    await c.query(`CREATE FUNCTION ${schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
      CREATE TRIGGER refuse BEFORE INSERT ON ${schema}.outpost_blob FOR EACH ROW EXECUTE FUNCTION ${schema}.refuse()`)
    const srcHash = hashFolder(dir)
    await expect(migrateFolder({ from: dir, to: url, log: () => {} })).rejects.toThrow(/disk full/)
    expect(hashFolder(dir)).toBe(srcHash)
    const left = await c.query(`SELECT (SELECT count(*) FROM ${schema}.resource) AS r,
      (SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename ~ '^layer_[0-9]') AS l`, [schema])
    await c.end()
    expect(left.rows[0]).toEqual({ r: '0', l: '0' })
  }, 120_000)

  it('copied and verified; the host on PostgreSQL shows the same state, finishes the cut push once, pushes the waiting change, keeps the conflict', async () => {
    const url = await (await cluster()).database('moved_sync')
    const lines: string[] = []
    const srcHash = hashFolder(dir)
    const { ok, checks } = await migrateFolder({ from: dir, to: url, log: (l) => lines.push(l) })
    expect(lines.filter((l) => l.startsWith('DIFFERS'))).toEqual([])
    expect(ok).toBe(true)
    expect(hashFolder(dir)).toBe(srcHash)
    // Each bookkeeping table counted and compared: the link state, 3 features and 1 attachment mapped, 1 conflict.
    const counted = Object.fromEntries(checks.filter((c) => c.what.startsWith(`layer ${lid} sync_`)).map((c) => [c.what, [c.source, c.target]]))
    expect(counted).toEqual({ [`layer ${lid} sync_meta`]: [2, 2], [`layer ${lid} sync_fid`]: [2, 2], [`layer ${lid} sync_aid`]: [1, 1],
      [`layer ${lid} sync_conflict`]: [1, 1] })
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^layer ${lid}: .*sync_meta 2, sync_fid 2, sync_aid 1, sync_conflict 1, sync_problem 0$`)))
    // The remote connection's password is sealed with the folder's key: each host's --data folder gets a copy (docs/team-server.md).
    const keys = mkdtempSync(join(tmpdir(), 'outpost-migrate-key-'))
    copyFileSync(join(dir, 'secret.key'), join(keys, 'secret.key'))
    const host = await startNodeApi({ dataDir: keys, platform: { sharedDatabase: true }, app: { data: postgresData(url, { maxConnections: 4 }) } })
    try {
      const e = env(host.api)
      expect((await host.api.request('GET', `/api/resource/${lid}/sync`)).body).toEqual(state)
      expect((await host.api.request('GET', `/api/resource/${lid}/sync/conflict/`)).body).toEqual(conflicts)
      const report = await sync(e, expect, lid, 'conflicts')
      expect(report.conflicts).toBe(1)
      expect(report.pushed).toMatchObject({ updated: 1, deleted: 0, attachments: 0 })
      expect(report.pulled).toMatchObject({ created: 1, updated: 0, deleted: 0, attachments: 0 })
      const there = (await features(remote.api, rl)).map((f) => [f.fields.name, f.fields.n]).sort()
      expect(there).toEqual([['both', 200], ['cut', null], ['keep', 5], ['new there', null]])
      expect((await host.api.request('GET', `/api/resource/${lid}/sync`)).body)
        .toMatchObject({ local_changes: { features: 0, attachments: 0 }, conflicts: 1, pending: { push: false, pull: false } })
      const still = (await host.api.request('GET', `/api/resource/${lid}/sync/conflict/`)).body
      expect(still).toEqual(conflicts)
      // Decided here, it goes like any other round.
      expect((await host.api.request('PUT', `/api/resource/${lid}/sync/conflict/${conflicts[0]!.id}`, { body: { keep: 'local' } })).status).toBe(200)
      await sync(e, expect, lid)
      expect((await features(remote.api, rl)).find((f) => f.fields.name === 'both')!.fields.n).toBe(100)
      await agree(e, expect, lid, rl)
    } finally {
      await stop(host)
      rmSync(keys, { recursive: true, force: true })
    }
  }, 120_000)
})
