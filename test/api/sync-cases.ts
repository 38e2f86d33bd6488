/**
 * Sync between the app's backend (`local`: a Node host, or the service worker in Chromium)
 * and a team's server (`remote`: a Node host behind a fault proxy that cuts requests at
 * chosen steps). The same cases run Node↔Node (test/api/sync.test.ts) and Chromium↔Node
 * (test/e2e/sync-sw.spec.ts). Each case ends by counting what was sent, the conflicts found
 * and the features lost (compared with what both sides should hold), and prints them.
 */
import type { Api, Expect } from './harness.ts'
import { expectError } from './harness.ts'
import { bareBigints, type FaultProxy } from './fault-proxy.ts'
import { createUser, rule, setRules } from './cases/permissions.ts'
import type { TeamDatabase } from '../pg/team-db.ts'

export interface SyncEnv {
  local: Api
  remote: Api
  /** The team's server as the local backend reaches it (through the proxy). */
  remoteUrl: string
  remotePassword: string
  proxy: FaultProxy
  /** Stops the local backend now (a killed host, a stopped worker); the next request starts it again. */
  stop?: () => Promise<void>
  /** A PostGIS database the team's server can publish tables of (test/pg/team-db.ts); absent: the PostGIS case fails saying so. */
  postgis?: () => Promise<TeamDatabase>
}

export interface SyncCase {
  name: string
  run(env: SyncEnv, expect: Expect): Promise<void>
}

export const FIELDS = [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' },
  { keyname: 'day', datatype: 'DATE' }]

/** Totals over every case run, printed by the runner at the end. */
export const TOTALS = { operationsSent: 0, conflictsFound: 0, featuresLost: 0 }

export async function remoteLayer(env: SyncEnv, expect: Expect, versioned = true, fields = FIELDS) {
  const res = await env.remote.request('POST', '/api/resource/', { body: {
    resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `team ${Date.now()} ${Math.random()}` },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields }, feature_layer: { versioning: { enabled: versioned } } } })
  expect(res.status).toBe(201)
  return res.body.id as number
}

/** A connection to the team's server, as its administrator unless `login` says otherwise. */
export async function connect(env: SyncEnv, expect: Expect, login = { username: 'administrator', password: env.remotePassword }) {
  const res = await env.local.request('POST', '/api/resource/', { body: {
    resource: { cls: 'remote_connection', parent: { id: 0 }, display_name: `team server ${Date.now()} ${Math.random()}` },
    remote_connection: { url: env.remoteUrl, ...login } } })
  expect(res.status).toBe(201)
  return res.body.id as number
}

export async function link(env: SyncEnv, expect: Expect, connection: number, resource: number, headers?: Record<string, string>) {
  const res = await env.local.request('POST', '/api/resource/', { headers, body: {
    resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `offline ${Date.now()} ${Math.random()}` },
    vector_layer: { remote: { connection: { id: connection }, resource: { id: resource } } } } })
  expect(res.status, JSON.stringify(res.body)).toBe(201)
  return res.body.id as number
}

export async function sync(env: SyncEnv, expect: Expect, layer: number, status = 'ok') {
  const res = await env.local.request('POST', `/api/resource/${layer}/sync`)
  expect(res.status).toBe(200)
  expect(res.body.status, JSON.stringify(res.body)).toBe(status)
  TOTALS.operationsSent += Object.values(res.body.pushed as Record<string, number>).reduce((a, b) => a + b, 0)
  TOTALS.conflictsFound += res.body.conflicts
  return res.body
}

type Feature = { id: number; geom: string; fields: Record<string, unknown>; extensions?: { attachment: { id: number; name: string; size: number }[] | null } }

export async function features(api: Api, layer: number): Promise<Feature[]> {
  const res = await api.request('GET', `/api/resource/${layer}/feature/?dt_format=iso`)
  return res.body as Feature[]
}

/** A feature's content without ids: what both sides must agree on. */
const content = (f: Feature) => JSON.stringify([f.geom, f.fields, (f.extensions?.attachment ?? []).map((a) => [a.name, a.size]).sort()])

/**
 * Asserts both sides hold the same features, each once, and that `expected` (contents) are
 * there; returns how many were lost (counted into the totals).
 */
export async function agree(env: SyncEnv, expect: Expect, local: number, remote: number, expected?: string[]) {
  const l = (await features(env.local, local)).map(content).sort()
  const r = (await features(env.remote, remote)).map(content).sort()
  const lost = expected ? expected.filter((e) => !l.includes(e) || !r.includes(e)).length : 0
  TOTALS.featuresLost += lost
  expect(l).toEqual(r)
  expect(new Set(r).size, 'no duplicates').toBe(r.length)
  expect(lost, 'features lost').toBe(0)
  return l
}

const point = (x: number, y: number, name: string, n: number | null = null) => ({ geom: `POINT(${x} ${y})`, fields: { name, n } })

/** The remote's answer to `GET path` as the local side receives it (through the proxy and its rewrites). */
async function throughProxy(env: SyncEnv, path: string): Promise<string> {
  const auth = `Basic ${Buffer.from(`administrator:${env.remotePassword}`).toString('base64')}`
  return (await fetch(env.remoteUrl + path, { headers: { authorization: auth } })).text()
}

/** Feature reads and changes-feed pages of the remote: what a rewrite of the remote's feature JSON applies to. */
const featureReads = (m: string, p: string) => m === 'GET' && p.includes('/feature/') && !p.includes('/transaction/')

const byName = async (api: Api, layer: number): Promise<Record<string, Feature>> =>
  Object.fromEntries((await features(api, layer)).map((f) => [String(f.fields.name), f]))

const names = async (api: Api, layer: number) => (await features(api, layer)).map((f) => String(f.fields.name)).sort()

/** A user of the team's server who may read layer `rl` (and its data) but, unless `write`, not change it; and the login as a connection has it. */
async function readerOf(env: SyncEnv, expect: Expect, rl: number, perms = ['resource.read', 'data.read']) {
  const u = await createUser(env.remote, expect)
  const rules = (list: string[]) => list.map((p) => rule(u.id, p.split('.')[0]!, p.split('.')[1]!))
  await setRules(env.remote, expect, rl, rules(perms))
  return { ...u, login: { username: u.keyname, password: (u.auth as { password: string }).password },
    grant: (more: string[]) => setRules(env.remote, expect, rl, rules([...perms, ...more])) }
}

const REFUSED = 'outpost.sync.exception.RemoteAccessRefused'

/** The names of the local root's children: a refused link must leave none behind. */
const rootNames = async (env: SyncEnv) =>
  ((await env.local.request('GET', '/api/resource/?parent=0')).body as { resource: { display_name: string } }[]).map((c) => c.resource.display_name)

async function upload(api: Api, text: string, name: string) {
  const res = await api.request('PUT', '/api/component/file_upload/', { raw: text,
    headers: { 'content-type': 'text/plain', 'content-disposition': `attachment; filename="${name}"` } })
  return res.body
}

export const syncCases: SyncCase[] = [
  {
    name: 'a second round of a layer while one runs is refused (409 SyncRunning) and changes nothing; the next round runs',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      const lid = await link(env, expect, await connect(env, expect), rl)
      // The first round's first request to the team's server waits here until released (then is cut).
      let release!: () => void
      let arrived!: () => void
      const gate = new Promise<void>((resolve) => { release = resolve })
      const held = new Promise<void>((resolve) => { arrived = resolve })
      env.proxy.cut(() => true, 'before', async () => { arrived(); await gate })
      const first = env.local.request('POST', `/api/resource/${lid}/sync`)
      await held
      const second = await env.local.request('POST', `/api/resource/${lid}/sync`)
      expectError(expect, second, 409, 'outpost.sync.exception.SyncRunning')
      expect(second.body).toMatchObject({ title: 'Sync running', message: `A sync of layer ${lid} is already running.`, data: { resource_id: lid } })
      release()
      expect((await first).status).toBe(200)
      await env.proxy.settled()
      // One report per round that ran: the first download's and the cut one's, none of the refused.
      expect((await env.local.request('GET', `/api/resource/${lid}/sync`)).body.history).toHaveLength(2)
      await sync(env, expect, lid)
    },
  },
  {
    name: 'links a remote layer: schema, features and attachments pulled, with progress; the password is never returned',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      const made = (await env.remote.request('PATCH', `/api/resource/${rl}/feature/?dt_format=iso`, { body: [
        { geom: 'POINT(1 2)', fields: { name: 'well', n: 7, day: '2024-03-01' } }, point(3, 4, 'spring')] })).body
      await env.remote.request('POST', `/api/resource/${rl}/feature/${made[0].id}/attachment/`, { body: { file_upload: await upload(env.remote, 'photo bytes', 'p1.txt') } })
      const conn = await connect(env, expect)
      const got = await env.local.request('GET', `/api/resource/${conn}`)
      expect(got.body.remote_connection).toEqual({ url: env.remoteUrl, username: 'administrator', password_set: true })
      expect(got.text).not.toContain(env.remotePassword)
      // The first download reports its progress under the create's token, as an ingest does.
      const token = `link${Date.now().toString(36)}${Math.random().toString(36).slice(2)}xxxxxxxx`
      const lid = await link(env, expect, conn, rl, { 'x-outpost-progress': token })
      expect((await env.local.request('GET', `/api/component/outpost/progress/${token}`)).body)
        .toMatchObject({ state: 'done', stage: 'pulling', done: 2, result: { id: lid } })
      const res = (await env.local.request('GET', `/api/resource/${lid}`)).body
      expect(res.vector_layer).toMatchObject({ srs: { id: 3857 }, geometry_type: 'POINT', remote: { connection: { id: conn }, resource: { id: rl } } })
      expect(res.feature_layer.fields.map((f: { keyname: string; datatype: string }) => [f.keyname, f.datatype]))
        .toEqual([['name', 'STRING'], ['n', 'INTEGER'], ['day', 'DATE']])
      const local = await features(env.local, lid)
      expect(local.map((f) => f.fields)).toEqual([{ name: 'well', n: 7, day: '2024-03-01' }, { name: 'spring', n: null, day: null }])
      const att = local[0]!.extensions!.attachment![0]!
      expect(att).toMatchObject({ name: 'p1.txt', size: 11 })
      const bytes = await env.local.request('GET', `/api/resource/${lid}/feature/${local[0]!.id}/attachment/${att.id}/download`)
      expect(bytes.text).toBe('photo bytes')
      const state = (await env.local.request('GET', `/api/resource/${lid}/sync`)).body
      expect(state).toMatchObject({ local_changes: { features: 0, attachments: 0 }, conflicts: 0, running: null })
      expect(state.history[0]).toMatchObject({ status: 'ok', pulled: { created: 2, attachments: 1 } })
      await agree(env, expect, lid, rl)
      // A wrong link is refused before anything is made.
      const bad = await env.local.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'nope' },
        vector_layer: { remote: { connection: { id: conn }, resource: { id: 99999 } } } } })
      expect(bad.status).toBe(502)
      expect(bad.body.data.remote_status).toBe(404)
    },
  },
  {
    name: 'creates, updates, deletes, descriptions and attachments travel both ways',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      const r = (await env.remote.request('PATCH', `/api/resource/${rl}/feature/`, { body: [point(0, 0, 'keep'), point(1, 1, 'edit here'),
        point(2, 2, 'delete here'), point(3, 3, 'edit there'), point(4, 4, 'delete there')] })).body.map((x: { id: number }) => x.id)
      const lid = await link(env, expect, await connect(env, expect), rl)
      const lf = await byName(env.local, lid)
      // Here: create (with a photo and a description), update, delete, attach to an existing feature.
      const created = (await env.local.request('POST', `/api/resource/${lid}/feature/`, { body: { ...point(9, 9, 'new here', 1),
        extensions: { description: '<p>found</p>', attachment: [{ file_upload: await upload(env.local, 'local photo', 'l.txt') }] } } })).body.id
      await env.local.request('PUT', `/api/resource/${lid}/feature/${lf['edit here']!.id}`, { body: { geom: 'POINT(1.5 1.5)', fields: { n: 5 } } })
      await env.local.request('DELETE', `/api/resource/${lid}/feature/${lf['delete here']!.id}`)
      await env.local.request('POST', `/api/resource/${lid}/feature/${lf.keep!.id}/attachment/`, { body: { file_upload: await upload(env.local, 'added here', 'k.txt') } })
      expect((await env.local.request('GET', `/api/resource/${lid}/sync`)).body.local_changes).toEqual({ features: 3, attachments: 2 })
      // There: create, update, delete, attach.
      await env.remote.request('POST', `/api/resource/${rl}/feature/`, { body: point(8, 8, 'new there') })
      await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[3]}`, { body: { fields: { name: 'edit there', n: 42 } } })
      await env.remote.request('DELETE', `/api/resource/${rl}/feature/${r[4]}`)
      await env.remote.request('POST', `/api/resource/${rl}/feature/${r[0]}/attachment/`, { body: { file_upload: await upload(env.remote, 'added there', 't.txt') } })
      const report = await sync(env, expect, lid)
      expect(report.pushed).toEqual({ created: 1, updated: 2, deleted: 1, attachments: 2 })
      expect(report.pulled).toEqual({ created: 1, updated: 1, deleted: 1, attachments: 1 })
      const names = await agree(env, expect, lid, rl)
      expect(names).toHaveLength(5)
      const remote = await byName(env.remote, rl)
      expect(remote['edit here']).toMatchObject({ geom: 'POINT(1.5 1.5)', fields: { n: 5 } })
      expect(remote['new here']!.extensions!.attachment!.map((a) => a.name)).toEqual(['l.txt'])
      expect((await env.remote.request('GET', `/api/resource/${rl}/feature/${remote['new here']!.id}`)).body.extensions.description).toBe('<p>found</p>')
      expect(remote.keep!.extensions!.attachment!.map((a) => a.name).sort()).toEqual(['k.txt', 't.txt'])
      const local = await byName(env.local, lid)
      expect(local['edit there']!.fields.n).toBe(42)
      // Nothing waits; a second round moves nothing.
      expect((await env.local.request('GET', `/api/resource/${lid}/sync`)).body).toMatchObject({ local_changes: { features: 0, attachments: 0 }, conflicts: 0 })
      const again = await sync(env, expect, lid)
      expect(again.pushed).toEqual({ created: 0, updated: 0, deleted: 0, attachments: 0 })
      expect(again.pulled).toEqual({ created: 0, updated: 0, deleted: 0, attachments: 0 })
      // Attachments deleted on each side go on the other.
      const keepHere = (await byName(env.local, lid)).keep!
      const tAtt = keepHere.extensions!.attachment!.find((a) => a.name === 't.txt')!
      await env.local.request('DELETE', `/api/resource/${lid}/feature/${keepHere.id}/attachment/${tAtt.id}`)
      await sync(env, expect, lid)
      expect((await byName(env.remote, rl)).keep!.extensions!.attachment!.map((a) => a.name)).toEqual(['k.txt'])
      await agree(env, expect, lid, rl)
    },
  },
  {
    name: 'conflicts: changed on both sides, changed here and deleted there, deleted here and changed there — both kept, then resolved',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      const r = (await env.remote.request('PATCH', `/api/resource/${rl}/feature/`, { body: [point(0, 0, 'both', 1), point(1, 1, 'gone there', 1),
        point(2, 2, 'gone here', 1), point(3, 3, 'merge me', 1)] })).body.map((x: { id: number }) => x.id)
      const lid = await link(env, expect, await connect(env, expect), rl)
      const lf = Object.fromEntries((await features(env.local, lid)).map((f) => [f.fields.name, f.id]))
      await env.local.request('PUT', `/api/resource/${lid}/feature/${lf.both}`, { body: { fields: { n: 100 } } })
      await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[0]}`, { body: { fields: { n: 200 } } })
      await env.local.request('PUT', `/api/resource/${lid}/feature/${lf['gone there']}`, { body: { fields: { n: 101 } } })
      await env.remote.request('DELETE', `/api/resource/${rl}/feature/${r[1]}`)
      await env.local.request('DELETE', `/api/resource/${lid}/feature/${lf['gone here']}`)
      await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[2]}`, { body: { fields: { n: 202 } } })
      await env.local.request('PUT', `/api/resource/${lid}/feature/${lf['merge me']}`, { body: { geom: 'POINT(30 30)' } })
      await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[3]}`, { body: { fields: { n: 203 } } })
      const report = await sync(env, expect, lid, 'conflicts')
      expect(report.conflicts).toBe(4)
      const list = (await env.local.request('GET', `/api/resource/${lid}/sync/conflict/`)).body as Record<string, any>[]
      const byKind = (name: string) => list.find((c) => (c.local ?? c.remote).fields.name === name)!
      expect(byKind('both')).toMatchObject({ kind: 'update/update', local: { fields: { n: 100 } }, remote: { fields: { n: 200 } } })
      expect(byKind('gone there')).toMatchObject({ kind: 'update/delete', local: { fields: { n: 101 } }, remote: null })
      expect(byKind('gone here')).toMatchObject({ kind: 'delete/update', local: null, remote: { fields: { n: 202 } } })
      expect(byKind('merge me')).toMatchObject({ kind: 'update/update', local: { geom: 'POINT(30 30)' }, remote: { geom: 'POINT(3 3)', fields: { n: 203 } } })
      // Nothing of either side was overwritten while the conflicts are open.
      expect((await env.remote.request('GET', `/api/resource/${rl}/feature/${r[0]}`)).body.fields.n).toBe(200)
      expect((await env.local.request('GET', `/api/resource/${lid}/feature/${lf.both}`)).body.fields.n).toBe(100)
      expect((await sync(env, expect, lid, 'conflicts')).pushed).toEqual({ created: 0, updated: 0, deleted: 0, attachments: 0 })
      const put = (c: Record<string, any>, body: unknown) => env.local.request('PUT', `/api/resource/${lid}/sync/conflict/${c.id}`, { body })
      expectError(expect, await put(byKind('both'), { keep: 'sideways' }), 422, 'nextgisweb.core.exception.ValidationError')
      expect((await put(byKind('both'), { keep: 'local' })).status).toBe(200)
      expect((await put(byKind('gone there'), { keep: 'local' })).status).toBe(200)
      expect((await put(byKind('gone here'), { keep: 'remote' })).status).toBe(200)
      expect((await put(byKind('merge me'), { feature: { geom: 'POINT(30 30)', fields: { n: 203, name: 'merged' } } })).status).toBe(200)
      expectError(expect, await put(byKind('both'), { keep: 'local' }), 404, 'outpost.sync.exception.ConflictNotFound')
      await sync(env, expect, lid)
      const remote = Object.fromEntries((await features(env.remote, rl)).map((f) => [f.fields.name, f]))
      expect(remote.both!.fields.n).toBe(100)
      expect(remote['gone there']!.fields.n).toBe(101) // sent back as a new feature
      expect(remote['gone here']!.fields.n).toBe(202)
      expect(remote.merged).toMatchObject({ geom: 'POINT(30 30)', fields: { n: 203 } })
      await agree(env, expect, lid, rl)
    },
  },
  {
    name: 'a push cut before the commit, after the commit, and before its results are read finishes on retry: no duplicate, nothing lost',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      const lid = await link(env, expect, await connect(env, expect), rl)
      const commit = (m: string, p: string) => m === 'POST' && /\/feature\/transaction\/\d+$/.test(p)
      const results = (m: string, p: string) => m === 'GET' && /\/feature\/transaction\/\d+$/.test(p)
      const put = (m: string, p: string) => m === 'PUT' && /\/feature\/transaction\/\d+$/.test(p)
      const expected: string[] = []
      let round = 0
      for (const [match, when] of [[put, 'before'], [commit, 'before'], [commit, 'after'], [results, 'before'], [results, 'after']] as const) {
        round++
        const body = [point(round, round, `round ${round} a`, round), point(round, -round, `round ${round} b`, round)]
        await env.local.request('PATCH', `/api/resource/${lid}/feature/`, { body })
        for (const b of body) expected.push(JSON.stringify([b.geom, { ...b.fields, day: null }, []]))
        const cuts = env.proxy.cuts
        env.proxy.cut(match, when, env.stop)
        // The local side may be gone with its answer (a killed host); a stopped worker is
        // started again by the browser, which sends it the request again: that round may finish.
        const cut = await env.local.request('POST', `/api/resource/${lid}/sync`).catch(() => undefined)
        expect(env.proxy.cuts).toBe(cuts + 1)
        if (!env.stop) expect(cut?.body?.status).toBe('error')
        await env.proxy.settled()
        if (cut?.body?.status !== 'ok') expect((await env.local.request('GET', `/api/resource/${lid}/sync`)).body.local_changes.features).toBe(2)
        await sync(env, expect, lid)
        await agree(env, expect, lid, rl, expected)
      }
      // The remote made one version per committed transaction: each push committed once.
      const versions = (await env.remote.request('GET', `/api/resource/${rl}/feature/version/?epoch=${(await env.remote.request('GET', `/api/resource/${rl}`)).body.feature_layer.versioning.epoch}&order=asc&limit=100`)).body.items
      expect(versions.filter((v: { feature: { create: number } }) => v.feature.create === 2)).toHaveLength(5)
    },
  },
  {
    name: 'a pull cut mid-way (network gone between pages) goes on where it stopped',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      const lid = await link(env, expect, await connect(env, expect), rl)
      const body = Array.from({ length: 5000 }, (_, i) => point(i, i % 100, `p${i}`, i))
      await env.remote.request('PATCH', `/api/resource/${rl}/feature/`, { body })
      const fetches = (m: string, p: string) => m === 'GET' && p.includes('/feature/changes/fetch')
      const before = env.proxy.count(fetches)
      // The 30th page: after the first batch of 2,000 was applied.
      let n = 0
      env.proxy.cut((m, p) => fetches(m, p) && ++n === 30, 'before', env.stop)
      const cuts = env.proxy.cuts
      const cut = await env.local.request('POST', `/api/resource/${lid}/sync`).catch(() => undefined)
      expect(env.proxy.cuts).toBe(cuts + 1)
      await env.proxy.settled()
      if (cut?.body?.status !== 'ok') {
        const mid = (await env.local.request('GET', `/api/resource/${lid}/feature_count`)).body.total_count
        expect(mid).toBeGreaterThanOrEqual(2000)
        expect(mid).toBeLessThan(5000)
        expect((await env.local.request('GET', `/api/resource/${lid}/sync`)).body.pending.pull).toBe(true)
      }
      const pagesBefore = env.proxy.count(fetches) - before
      await sync(env, expect, lid)
      expect((await env.local.request('GET', `/api/resource/${lid}/feature_count`)).body.total_count).toBe(5000)
      // It went on from the cut: the 20 pages already applied were not read again (51 pages in all).
      expect(env.proxy.count(fetches) - before - pagesBefore).toBeLessThanOrEqual(51 - 20)
      await agree(env, expect, lid, rl)
    },
  },
  {
    name: 'a remote layer without versioning: read whole, pushed through a transaction',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect, false)
      const r = (await env.remote.request('PATCH', `/api/resource/${rl}/feature/`, { body: [point(0, 0, 'a'), point(1, 1, 'b'), point(2, 2, 'c')] })).body
      const lid = await link(env, expect, await connect(env, expect), rl)
      expect(await features(env.local, lid)).toHaveLength(3)
      const lf = Object.fromEntries((await features(env.local, lid)).map((f) => [f.fields.name, f.id]))
      await env.local.request('PUT', `/api/resource/${lid}/feature/${lf.a}`, { body: { fields: { n: 1 } } })
      await env.local.request('POST', `/api/resource/${lid}/feature/`, { body: point(5, 5, 'local') })
      await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[1].id}`, { body: { fields: { n: 2 } } })
      await env.remote.request('DELETE', `/api/resource/${rl}/feature/${r[2].id}`)
      const report = await sync(env, expect, lid)
      expect(report.pushed).toMatchObject({ created: 1, updated: 1 })
      expect(report.pulled).toMatchObject({ updated: 1, deleted: 1 })
      await agree(env, expect, lid, rl)
      // Changed on both sides is a conflict here too.
      await env.local.request('PUT', `/api/resource/${lid}/feature/${lf.b}`, { body: { fields: { n: 3 } } })
      await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[1].id}`, { body: { fields: { n: 4 } } })
      expect((await sync(env, expect, lid, 'conflicts')).conflicts).toBe(1)
    },
  },
  {
    name: 'a PostGIS layer of the team\'s server (a table of its own database): pulled whole, edits both ways reach the table, attachments and descriptions too',
    async run(env, expect) {
      if (!env.postgis) throw new Error('This run gives the team\'s server no PostGIS database (SyncEnv.postgis).')
      const db = await env.postgis()
      const table = `team_points_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
      await db.query(`CREATE TABLE ${table} (id serial PRIMARY KEY, name text, n integer, geom geometry(Point, 3857));
        INSERT INTO ${table} (name, n, geom) VALUES ('x', 1, 'SRID=3857;POINT(1 1)'), ('y', 2, 'SRID=3857;POINT(2 2)')`)
      const conn = await env.remote.request('POST', '/api/resource/', { body: {
        resource: { cls: 'spatialdb_connection', parent: { id: 0 }, display_name: `team db ${table}` }, spatialdb_connection: db.params } })
      expect(conn.status).toBe(201)
      const made = await env.remote.request('POST', '/api/resource/', { body: {
        resource: { cls: 'spatialdb_layer', parent: { id: 0 }, display_name: `team table ${table}` },
        spatialdb_layer: { connection: { id: conn.body.id }, table, column_id: 'id', column_geom: 'geom', srs: { id: 3857 }, fields: 'update' } } })
      expect(made.status, JSON.stringify(made.body)).toBe(201)
      const rl = made.body.id as number
      const lid = await link(env, expect, await connect(env, expect), rl)
      expect(await names(env.local, lid)).toEqual(['x', 'y'])
      // Edits here reach the table: a change with a description, a new feature with an attachment, a delete.
      const here = await byName(env.local, lid)
      await env.local.request('PUT', `/api/resource/${lid}/feature/${here.x!.id}`, { body: { fields: { name: 'x2' }, extensions: { description: 'seen' } } })
      await env.local.request('POST', `/api/resource/${lid}/feature/`, { body: { ...point(3, 3, 'z', 3),
        extensions: { attachment: [{ file_upload: await upload(env.local, 'photo bytes', 'z.txt') }] } } })
      await env.local.request('DELETE', `/api/resource/${lid}/feature/${here.y!.id}`)
      await sync(env, expect, lid)
      expect(await db.query(`SELECT name, n FROM ${table} ORDER BY name`)).toEqual([{ name: 'x2', n: 1 }, { name: 'z', n: 3 }])
      const there = await byName(env.remote, rl)
      expect(there.z!.extensions!.attachment).toMatchObject([{ name: 'z.txt', size: 11 }])
      expect((await env.remote.request('GET', `/api/resource/${rl}/feature/${there.x2!.id}`)).body.extensions.description).toBe('seen')
      // Another client of the team's database writes the table: the next round brings it here.
      await db.query(`INSERT INTO ${table} (name, n, geom) VALUES ('w', 4, 'SRID=3857;POINT(4 4)'); UPDATE ${table} SET n = 30 WHERE name = 'z'`)
      await sync(env, expect, lid)
      expect((await byName(env.local, lid)).z!.fields.n).toBe(30)
      await agree(env, expect, lid, rl)
    },
  },
  {
    name: 'BIGINTs past 2^53 sent back as bare JSON numbers (as the original does) keep every digit, and every later round syncs',
    async run(env, expect) {
      const undo = env.proxy.rewrite(featureReads, bareBigints)
      try {
        for (const versioned of [true, false]) {
          const rl = await remoteLayer(env, expect, versioned, [...FIELDS, { keyname: 'big', datatype: 'BIGINT' }])
          const made = (await env.remote.request('PATCH', `/api/resource/${rl}/feature/`, { body: [
            { geom: 'POINT(1 1)', fields: { name: 'a', big: '9007199254740993' } }, { geom: 'POINT(2 2)', fields: { name: 'b', big: 1 } }] })).body
          // The remote's answers reach the local side as the original writes them: a bare number, every digit.
          const read = await throughProxy(env, `/api/resource/${rl}/feature/${made[0].id}`)
          expect(read).toContain('"big":9007199254740993')
          const lid = await link(env, expect, await connect(env, expect), rl)
          const local = await byName(env.local, lid)
          expect(local.a!.fields.big, `versioned ${versioned}`).toBe('9007199254740993')
          // Both ways again, past 2^53 on either side.
          await env.remote.request('PUT', `/api/resource/${rl}/feature/${made[0].id}`, { body: { fields: { big: '-9223372036854775807' } } })
          await env.local.request('PUT', `/api/resource/${lid}/feature/${local.b!.id}`, { body: { fields: { big: '9007199254740995' } } })
          const report = await sync(env, expect, lid)
          expect(report.pulled.updated).toBe(1)
          expect(report.pushed.updated).toBe(1)
          expect((await byName(env.local, lid)).a!.fields.big).toBe('-9223372036854775807')
          expect((await byName(env.remote, rl)).b!.fields.big).toBe('9007199254740995')
          await agree(env, expect, lid, rl)
          const again = await sync(env, expect, lid)
          expect(again).toMatchObject({ pushed: { created: 0, updated: 0 }, pulled: { created: 0, updated: 0 }, problems: [] })
        }
      } finally {
        undo()
      }
    },
  },
  {
    name: 'a record this layer cannot take is a problem on that feature: everything else syncs both ways, and it comes in once fixed there',
    async run(env, expect) {
      // The remote's value 987654321 reaches us as 98765432100, beyond the INTEGER field's int32: a value this layer cannot hold.
      const undo = env.proxy.rewrite(featureReads, (t) => t.replace(/\b987654321\b/g, '98765432100'))
      try {
        for (const versioned of [true, false]) {
          const at = `versioned ${versioned}`
          const rl = await remoteLayer(env, expect, versioned)
          const r = (await env.remote.request('PATCH', `/api/resource/${rl}/feature/`, { body: [point(0, 0, 'one', 1), point(1, 1, 'two', 1),
            point(2, 2, 'bad', 987654321)] })).body.map((x: { id: number }) => x.id)
          // Its photo comes with it once it can be taken.
          await env.remote.request('POST', `/api/resource/${rl}/feature/${r[2]}/attachment/`, { body: { file_upload: await upload(env.remote, 'bad photo', 'b.txt') } })
          // The first pull takes everything else; the layer is made.
          const lid = await link(env, expect, await connect(env, expect), rl)
          expect(await names(env.local, lid), at).toEqual(['one', 'two'])
          let state = (await env.local.request('GET', `/api/resource/${lid}/sync`)).body
          expect(state.problems, at).toEqual([{ fid: null, remote_fid: r[2], reason: expect.stringContaining("field 'n'"), since: expect.any(String) }])
          expect(state.problems[0].reason).toContain('98765432100')
          // Changes on both sides still travel, round after round.
          const lf = await byName(env.local, lid)
          await env.local.request('PUT', `/api/resource/${lid}/feature/${lf.one!.id}`, { body: { fields: { n: 10 } } })
          await env.local.request('POST', `/api/resource/${lid}/feature/`, { body: point(5, 5, 'new here') })
          await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[1]}`, { body: { fields: { n: 20 } } })
          await env.remote.request('POST', `/api/resource/${rl}/feature/`, { body: point(6, 6, 'new there') })
          const report = await sync(env, expect, lid)
          expect(report.pushed, at).toMatchObject({ created: 1, updated: 1 })
          expect(report.pulled, at).toMatchObject({ created: 1, updated: 1 })
          expect(report.problems, at).toEqual([expect.objectContaining({ fid: null, remote_fid: r[2] })])
          expect(await names(env.local, lid)).toEqual(['new here', 'new there', 'one', 'two'])
          expect(await names(env.remote, rl)).toEqual(['bad', 'new here', 'new there', 'one', 'two'])
          expect((await byName(env.remote, rl)).one!.fields.n).toBe(10)
          expect((await byName(env.local, lid)).two!.fields.n).toBe(20)
          // A feature already here that the remote turns bad keeps its last good state, and waits.
          await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[1]}`, { body: { fields: { n: 987654321 } } })
          const second = await sync(env, expect, lid)
          expect(second.problems.map((p: { remote_fid: number }) => p.remote_fid).sort(), at).toEqual([r[1], r[2]].sort())
          expect(second.problems.find((p: { remote_fid: number }) => p.remote_fid === r[1]).fid).toBe(lf.two!.id)
          expect((await byName(env.local, lid)).two!.fields.n).toBe(20)
          // Fixed there: both come in, and nothing is left to report.
          await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[1]}`, { body: { fields: { n: 21 } } })
          await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[2]}`, { body: { fields: { n: 22 } } })
          const fixed = await sync(env, expect, lid)
          expect(fixed.problems, at).toEqual([])
          expect(fixed.pulled, at).toMatchObject({ created: 1, updated: 1 })
          state = (await env.local.request('GET', `/api/resource/${lid}/sync`)).body
          expect(state.problems).toEqual([])
          expect((await byName(env.local, lid)).bad, at).toMatchObject({ fields: { n: 22 }, extensions: { attachment: [{ name: 'b.txt', size: 9 }] } })
          await agree(env, expect, lid, rl)
        }
      } finally {
        undo()
      }
    },
  },
  {
    name: 'a kept local version and a merged feature are pushed and stay resolved, on a versioned and an unversioned remote; what a merge does not give keeps its local value',
    async run(env, expect) {
      for (const versioned of [true, false]) {
        const at = `versioned ${versioned}`
        const rl = await remoteLayer(env, expect, versioned)
        const r = (await env.remote.request('PATCH', `/api/resource/${rl}/feature/`, { body: [point(0, 0, 'mine', 1), point(1, 1, 'merge', 1)] }))
          .body.map((x: { id: number }) => x.id)
        const lid = await link(env, expect, await connect(env, expect), rl)
        const lf = await byName(env.local, lid)
        await env.local.request('PUT', `/api/resource/${lid}/feature/${lf.mine!.id}`, { body: { fields: { n: 10 } } })
        await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[0]}`, { body: { fields: { n: 100 } } })
        await env.local.request('PUT', `/api/resource/${lid}/feature/${lf.merge!.id}`, { body: { geom: 'POINT(11 11)', extensions: { description: 'here' } } })
        await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[1]}`, { body: { fields: { n: 200 } } })
        expect((await sync(env, expect, lid, 'conflicts')).conflicts, at).toBe(2)
        const list = (await env.local.request('GET', `/api/resource/${lid}/sync/conflict/`)).body as Record<string, any>[]
        const conflict = (name: string) => list.find((c) => c.local.fields.name === name)!
        const put = (c: Record<string, any>, body: unknown) => env.local.request('PUT', `/api/resource/${lid}/sync/conflict/${c.id}`, { body })
        // A merge this layer cannot take is a 422 and leaves the conflict as it was.
        expectError(expect, await put(conflict('merge'), { feature: { geom: 'LINESTRING(0 0, 1 1)' } }), 422, 'nextgisweb.core.exception.ValidationError')
        expectError(expect, await put(conflict('merge'), { feature: { fields: { n: 'many' } } }), 422, 'nextgisweb.core.exception.ValidationError')
        expect((await env.local.request('GET', `/api/resource/${lid}/sync/conflict/${conflict('merge').id}`)).status).toBe(200)
        expect((await put(conflict('mine'), { keep: 'local' })).status).toBe(200)
        // Only the fields are given: the geometry and the description stay as they are here.
        expect((await put(conflict('merge'), { feature: { fields: { n: 200 } } })).status).toBe(200)
        const merged = (await env.local.request('GET', `/api/resource/${lid}/feature/${lf.merge!.id}`)).body
        expect(merged, at).toMatchObject({ geom: 'POINT(11 11)', fields: { name: 'merge', n: 200 }, extensions: { description: 'here' } })
        const report = await sync(env, expect, lid)
        // Two features, and the merged one's description as an operation of its own.
        expect(report, at).toMatchObject({ conflicts: 0, pushed: { created: 0, updated: 3, deleted: 0 } })
        const remote = await byName(env.remote, rl)
        expect(remote.mine!.fields.n, at).toBe(10)
        expect(remote.merge, at).toMatchObject({ geom: 'POINT(11 11)', fields: { n: 200 } })
        expect((await env.remote.request('GET', `/api/resource/${rl}/feature/${r[1]}`)).body.extensions.description).toBe('here')
        // Resolved for good: the next rounds move nothing and raise nothing.
        for (let i = 0; i < 2; i++) {
          const next = await sync(env, expect, lid)
          expect(next, at).toMatchObject({ conflicts: 0, pushed: { created: 0, updated: 0 }, pulled: { created: 0, updated: 0 } })
        }
        expect((await env.local.request('GET', `/api/resource/${lid}/sync/conflict/`)).body).toEqual([])
        await agree(env, expect, lid, rl)
      }
    },
  },
  {
    name: 'the remote history reset (versioning off and on there): compared whole, nothing lost or doubled',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      await env.remote.request('PATCH', `/api/resource/${rl}/feature/`, { body: [point(0, 0, 'a'), point(1, 1, 'b')] })
      const lid = await link(env, expect, await connect(env, expect), rl)
      for (const enabled of [false, true]) {
        await env.remote.request('PUT', `/api/resource/${rl}`, { body: { feature_layer: { versioning: { enabled } } } })
      }
      await env.remote.request('POST', `/api/resource/${rl}/feature/`, { body: point(2, 2, 'c') })
      await env.local.request('POST', `/api/resource/${lid}/feature/`, { body: point(3, 3, 'd') })
      await sync(env, expect, lid)
      const names = (await features(env.remote, rl)).map((f) => f.fields.name).sort()
      expect(names).toEqual(['a', 'b', 'c', 'd'])
      await agree(env, expect, lid, rl)
    },
  },
  {
    name: 'sync errors: an unreachable server is an error report and changes nothing; an unlinked layer is 404',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      const lid = await link(env, expect, await connect(env, expect), rl)
      await env.local.request('POST', `/api/resource/${lid}/feature/`, { body: point(1, 1, 'waiting') })
      env.proxy.cut(() => true, 'before')
      const res = await env.local.request('POST', `/api/resource/${lid}/sync`)
      expect(res.body).toMatchObject({ status: 'error', error: { title: 'Remote server unreachable' } })
      await env.proxy.settled()
      expect((await env.local.request('GET', `/api/resource/${lid}/sync`)).body.local_changes.features).toBe(1)
      const plain = (await env.local.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `plain ${Math.random()}` },
        vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT' } } })).body.id
      expectError(expect, await env.local.request('POST', `/api/resource/${plain}/sync`), 404, 'outpost.sync.exception.NotLinked')
      expectError(expect, await env.local.request('POST', `/api/resource/${lid}/sync`, { auth: 'guest' }), 403, 'nextgisweb.core.exception.InsufficientPermissions')
      expectError(expect, await env.local.request('PUT', `/api/resource/${lid}`, { body: { feature_layer: { versioning: { enabled: false } } } }),
        422, 'nextgisweb.core.exception.ValidationError')
      await sync(env, expect, lid)
      await agree(env, expect, lid, rl)
    },
  },
  {
    name: 'an account that may read but not write: pulls, the push is refused plainly, the changes wait and go once write is granted',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      const r = (await env.remote.request('PATCH', `/api/resource/${rl}/feature/`, { body: [point(0, 0, 'mine'), point(1, 1, 'theirs')] }))
        .body.map((x: { id: number }) => x.id)
      const reader = await readerOf(env, expect, rl)
      const lid = await link(env, expect, await connect(env, expect, reader.login), rl)
      expect(await names(env.local, lid)).toEqual(['mine', 'theirs'])
      // Here: one change and one new feature; there: a change the pull must still bring.
      const lf = await byName(env.local, lid)
      await env.local.request('PUT', `/api/resource/${lid}/feature/${lf.mine!.id}`, { body: { fields: { n: 5 } } })
      await env.local.request('POST', `/api/resource/${lid}/feature/`, { body: point(2, 2, 'new here') })
      await env.remote.request('PUT', `/api/resource/${rl}/feature/${r[1]}`, { body: { fields: { n: 42 } } })
      const message = `The server ${env.remoteUrl} refuses changes from ${reader.keyname}: they may read this layer but not write it. `
        + 'Your 2 changes are kept here and will be sent when they are allowed.'
      for (let round = 0; round < 2; round++) {
        const report = await sync(env, expect, lid)
        expect(report.push_refused).toEqual({ title: 'Changes refused by the server', message })
        expect(report.pushed).toEqual({ created: 0, updated: 0, deleted: 0, attachments: 0 })
        expect(report.pulled).toEqual({ created: 0, updated: round ? 0 : 1, deleted: 0, attachments: 0 })
        const state = (await env.local.request('GET', `/api/resource/${lid}/sync`)).body
        expect(state).toMatchObject({ local_changes: { features: 2, attachments: 0 }, conflicts: 0, problems: [],
          push_refused: { title: 'Changes refused by the server', message }, pending: { push: false } })
        expect(state.last_sync).toBe(report.finished)
      }
      // Nothing went there, nothing was lost here, the pull came through.
      expect((await byName(env.remote, rl)).mine!.fields.n).toBeNull()
      expect(await names(env.remote, rl)).toEqual(['mine', 'theirs'])
      const here = await byName(env.local, lid)
      expect([here.mine!.fields.n, here.theirs!.fields.n, here['new here']!.fields.name]).toEqual([5, 42, 'new here'])
      // Write granted there: the next round sends them, and says nothing of a refusal.
      await reader.grant(['data.write'])
      const report = await sync(env, expect, lid)
      expect(report.push_refused).toBeUndefined()
      expect(report.pushed).toEqual({ created: 1, updated: 1, deleted: 0, attachments: 0 })
      expect((await env.local.request('GET', `/api/resource/${lid}/sync`)).body)
        .toMatchObject({ local_changes: { features: 0, attachments: 0 }, push_refused: null })
      expect((await byName(env.remote, rl)).mine!.fields.n).toBe(5)
      await agree(env, expect, lid, rl)
      // Here, the list of offline layers shows a person only those whose data they may read.
      const person = await createUser(env.local, expect)
      const listed = async () => ((await env.local.request('GET', '/api/component/outpost/sync/', { auth: person.auth })).body as { id: number }[])
        .map((l) => l.id)
      expect(await listed()).not.toContain(lid)
      await setRules(env.local, expect, lid, [rule(person.id, 'resource', 'read'), rule(person.id, 'data', 'read')])
      expect(await listed()).toContain(lid)
    },
  },
  {
    name: 'a push the remote would refuse uploads no attachment first: the round asks the remote, the changes wait, then go once write is granted',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      const reader = await readerOf(env, expect, rl)
      const lid = await link(env, expect, await connect(env, expect, reader.login), rl)
      await env.local.request('POST', `/api/resource/${lid}/feature/`, { body: { ...point(3, 3, 'with photo'),
        extensions: { attachment: [{ file_upload: await upload(env.local, 'photo taken here', 'photo.txt') }] } } })
      const uploads = () => env.proxy.count((method, path) => method !== 'GET' && path.includes('/file_upload'))
      const before = uploads()
      const report = await sync(env, expect, lid)
      expect(report.push_refused).toEqual({ title: 'Changes refused by the server', message: `The server ${env.remoteUrl} refuses changes from `
        + `${reader.keyname}: they may read this layer but not write it. Your 2 changes are kept here and will be sent when they are allowed.` })
      expect(report.pushed).toEqual({ created: 0, updated: 0, deleted: 0, attachments: 0 })
      // The remote got no file: the refusal came before any upload.
      expect(uploads()).toBe(before)
      expect((await env.local.request('GET', `/api/resource/${lid}/sync`)).body.local_changes).toEqual({ features: 1, attachments: 1 })
      await reader.grant(['data.write'])
      expect((await sync(env, expect, lid)).pushed).toEqual({ created: 1, updated: 0, deleted: 0, attachments: 1 })
      expect(uploads()).toBe(before + 1)
      const there = (await byName(env.remote, rl))['with photo']!
      expect(there.extensions!.attachment!.map((a) => a.name)).toEqual(['photo.txt'])
    },
  },
  {
    name: 'taking a layer offline needs read access there: a refusal is a 422 naming the server and the account, nothing is made',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      await env.remote.request('POST', `/api/resource/${rl}/feature/`, { body: point(0, 0, 'secret') })
      const take = async (login: { username: string; password: string }) => {
        const name = `refused ${Date.now()} ${Math.random()}`
        const res = await env.local.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: name },
          vector_layer: { remote: { connection: { id: await connect(env, expect, login) }, resource: { id: rl } } } } })
        expect(await rootNames(env)).not.toContain(name)
        expect(JSON.stringify(res.body)).not.toContain('secret')
        return res
      }
      // No rule on the layer: its reading is refused (403 there).
      const stranger = await readerOf(env, expect, rl, [])
      const none = await take(stranger.login)
      expectError(expect, none, 422, REFUSED)
      expect(none.body.message).toBe(`The server ${env.remoteUrl} does not let ${stranger.keyname} read resource ${rl}: taking a layer offline `
        + 'and syncing it need read access (resource.read and data.read) there. Ask its administrator for it, or connect with another account.')
      expect(none.body.data).toMatchObject({ url: env.remoteUrl, login: stranger.keyname, remote_status: 403, resource: rl })
      // The layer's description but not its data: the first download is refused, the new layer goes again.
      const viewer = await readerOf(env, expect, rl, ['resource.read'])
      const partial = await take(viewer.login)
      expectError(expect, partial, 422, REFUSED)
      expect(partial.body.message).toContain(`does not let ${viewer.keyname} read resource ${rl}`)
      // A wrong password (401 there) names the login.
      const wrong = await take({ username: viewer.keyname, password: 'not the password' })
      expectError(expect, wrong, 422, REFUSED)
      expect(wrong.body.message).toBe(`The server ${env.remoteUrl} did not accept the login ${viewer.keyname} (a wrong password, or a disabled account): `
        + 'check the connection\'s user name and password.')
      expect(wrong.body.data.remote_status).toBe(401)
      // With read access it is taken offline.
      await viewer.grant(['data.read'])
      const lid = await link(env, expect, await connect(env, expect, viewer.login), rl)
      expect(await names(env.local, lid)).toEqual(['secret'])
    },
  },
  {
    name: '10,000 features: the first pull, and a push of 10,000 changed features, in seconds',
    async run(env, expect) {
      const rl = await remoteLayer(env, expect)
      const body = Array.from({ length: 10_000 }, (_, i) => point(i % 1000, Math.floor(i / 1000), `f${i}`, i))
      await env.remote.request('PATCH', `/api/resource/${rl}/feature/`, { body })
      let t = Date.now()
      const lid = await link(env, expect, await connect(env, expect), rl)
      const pullMs = Date.now() - t
      expect((await env.local.request('GET', `/api/resource/${lid}/feature_count`)).body.total_count).toBe(10_000)
      const local = await features(env.local, lid)
      await env.local.request('PATCH', `/api/resource/${lid}/feature/`, { body: local.map((f) => ({ id: f.id, fields: { n: (f.fields.n as number) + 1 } })) })
      t = Date.now()
      const report = await sync(env, expect, lid)
      const pushMs = Date.now() - t
      expect(report.pushed.updated).toBe(10_000)
      const remote = await features(env.remote, rl)
      expect(remote.every((f) => f.fields.n === Number(String(f.fields.name).slice(1)) + 1)).toBe(true)
      await agree(env, expect, lid, rl)
      console.log(`[sync] 10,000 features: first pull ${pullMs} ms, push of 10,000 changes ${pushMs} ms`)
    },
  },
]
