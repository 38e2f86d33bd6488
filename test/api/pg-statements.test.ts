/**
 * Statements each kind of request sends to PostgreSQL (issue 23, docs/team-server.md
 * "Statements per request"), counted through `pg`'s own `Client.prototype.query` (every
 * connection of an in-process host goes through it), one request at a time after the same
 * request once, so each count is that request's with the caches as in use. The ceilings are the
 * documented counts: a change that adds round trips fails here. And what the cuts must not
 * break: a permission changed through one process is obeyed by the other on its next request.
 */
import type { Server } from 'node:http'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Api } from './harness.ts'
import { startNodeApi } from './node-client.ts'
import { createUser, rule } from './cases/permissions.ts'
import { postgresData } from '../../sw/host/node.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { cluster } from '../pg/shared.ts'
import { bytesOf, decodeTile } from './mvt-decode.ts'

const seen: string[] = []
/** The rows each read of the change counters answered (the pool's callback form), in order. */
const counterRows: number[] = []
const query = pg.Client.prototype.query
beforeAll(() => {
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string; name?: string }
    seen.push(typeof q === 'string' ? q : (q.text ?? q.name ?? '?'))
    const last = args.length - 1
    if (typeof q === 'object' && q.name === 'outpost_change' && typeof args[last] === 'function') {
      const cb = args[last] as (err: unknown, r?: { rows: unknown[] }) => void
      args[last] = (err: unknown, r?: { rows: unknown[] }) => { if (r) counterRows.push(r.rows.length); cb(err, r) }
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args)
  } as typeof query
})
afterAll(() => { pg.Client.prototype.query = query })

const hosts: { api: Api; server: Server; app: OutpostApp }[] = []
let a: Api
let b: Api
beforeAll(async () => {
  const url = await (await cluster()).database('statements')
  for (let i = 0; i < 2; i++) hosts.push(await startNodeApi({ app: { data: postgresData(url, { maxConnections: 4 }) } }))
  ;[a, b] = hosts.map((h) => h.api) as [Api, Api]
})
afterAll(async () => {
  for (const h of hosts) {
    await new Promise<void>((resolve) => h.server.close(() => resolve()))
    await (await h.app.services()).data.close()
  }
})

const newLayer = async (api: Api) => (await api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 },
  display_name: `counted ${Math.random()}` }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } } })).body.id as number
const points = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ geom: `POINT(${i * 1000} ${i * 500})`, fields: { name: `${tag}${i}` } }))

describe('statements per request on the PostgreSQL host', () => {
  let layer: number
  let fid: number
  beforeAll(async () => {
    layer = await newLayer(a)
    fid = (await a.request('PATCH', `/api/resource/${layer}/feature/`, { body: points(50, 'p') })).body[0].id
  })

  /** The statements of one request as the administrator (Basic), the second of two alike. */
  async function count(method: string, path: () => string, body?: () => unknown): Promise<string[]> {
    for (let i = 0; i < 2; i++) {
      seen.length = 0
      const res = await a.request(method, path(), body ? { body: body() } : {})
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300)
    }
    return [...seen]
  }

  it('a read costs the change counters and its own snapshot; the permission check none while nothing changed', async () => {
    let n = 0
    const resource = await count('GET', () => `/api/resource/${layer}`)
    const list = await count('GET', () => `/api/resource/${layer}/feature/?limit=100`)
    const one = await count('GET', () => `/api/resource/${layer}/feature/${fid}`)
    // A new extent each time: cut anew, never from the tile cache.
    const tile = await count('GET', () => `/api/component/feature_layer/mvt?resource=${layer}&z=1&x=0&y=0&extent=${1000 + n++}`)
    expect([resource.length, list.length, one.length, tile.length]).toEqual([10, 5, 5, 1])
    // The counters first (one named statement); an uncached tile's one statement reads them itself: no ACL token, no empty transaction.
    expect(resource[0]).toBe("SELECT scope, n FROM outpost_change WHERE n > $1 AND scope <> '*'")
    expect(tile[0]).toMatch(/ST_AsMVT[^]*FROM outpost_change/)
    expect([...resource, ...list, ...one, ...tile].filter((s) => s.includes('acl_state'))).toEqual([])
  })

  it('a write costs five round trips: the counters, BEGIN with the lock, one statement, the counter, COMMIT (an edit, a batch of any size)', async () => {
    let n = 0
    const edit = await count('PUT', () => `/api/resource/${layer}/feature/${fid}`, () => ({ fields: { name: `e${n++}` } }))
    const batch = await count('PATCH', () => `/api/resource/${layer}/feature/`, () => points(100, `b${n++}`))
    expect([edit.length, batch.length]).toEqual([5, 5])
    for (const w of [edit, batch]) {
      expect(w[1]).toMatch(/^BEGIN; SELECT pg_advisory_xact_lock\(\d+\)$/)
      // COMMIT on its own: sent with the counter, the server would commit a process killed while the counter waits.
      expect(w.slice(3)).toEqual([expect.stringMatching(/^WITH clock AS \(UPDATE outpost_change/), 'COMMIT'])
    }
    // The edit's one statement: which feature is there, the version, the history, `_vstate` and the UPDATE.
    expect(edit[2]).toMatch(/^WITH there AS [^]*INSERT INTO layer_\d+_version[^]*INSERT INTO layer_\d+_history[^]*UPDATE layer_\d+_vstate[^]*UPDATE layer_\d+ AS f/)
    // The feature reads back with its last edit.
    const f = await a.request('GET', `/api/resource/${layer}/feature/${fid}`)
    expect(f.body.fields.name).toBe(`e${n - 3}`)
    // The first write to a new layer makes its tables too (once per layer).
    const fresh = await newLayer(a)
    seen.length = 0
    expect((await a.request('PATCH', `/api/resource/${fresh}/feature/`, { body: points(100, 'f') })).status).toBe(200)
    console.log(`first batch into a new layer: ${seen.length} statements`)
  })

  it('the change counters a request reads are those moved since the last request, not one per layer ever written', async () => {
    const layers: number[] = []
    for (let i = 0; i < 6; i++) {
      layers.push(await newLayer(a))
      expect((await a.request('PATCH', `/api/resource/${layers[i]}/feature/`, { body: points(2, `l${i}`) })).status).toBe(200)
    }
    const refreshOf = async (api: Api, path: string) => {
      counterRows.length = 0
      const res = await api.request('GET', path)
      expect(res.status).toBe(200)
      expect(counterRows).toHaveLength(1)
      return { rows: counterRows[0], body: res.body }
    }
    await refreshOf(a, `/api/resource/${layers[0]}`)
    expect((await refreshOf(a, `/api/resource/${layers[0]}`)).rows).toBe(0)
    // One feature written through B: A's next request reads that one layer's counter, and sees the feature.
    expect((await b.request('PATCH', `/api/resource/${layers[3]}/feature/`, { body: points(1, 'fromB') })).status).toBe(200)
    const after = await refreshOf(a, `/api/resource/${layers[3]}/feature/?limit=10`)
    expect(after.rows).toBe(1)
    expect(after.body.map((f: { fields: { name: string } }) => f.fields.name)).toContain('fromB0')
    expect((await refreshOf(a, `/api/resource/${layers[3]}/feature/?limit=10`)).rows).toBe(0)
  })

  it("a permission changed through one process is obeyed by the other on its very next request, both ways", async () => {
    const u = await createUser(a, expect)
    const root = await a.request('GET', '/api/resource/0')
    const rootRules = root.body.resource.permissions
    expect((await a.request('PUT', '/api/resource/0', { body: { resource: { permissions: [...rootRules,
      rule(u.id, 'resource', 'read'), rule(u.id, 'data', 'read')] } } })).status).toBe(200)
    const id = await newLayer(a)
    const read = async () => (await b.request('GET', `/api/resource/${id}/feature/?limit=1`, { auth: u.auth })).status
    // B's evaluator holds the layer's rules now (read twice).
    expect([await read(), await read()]).toEqual([200, 200])
    expect((await a.request('PUT', `/api/resource/${id}`, { body: { resource: { permissions: [rule(u.id, 'data', 'read', true, 'deny')] } } })).status).toBe(200)
    expect([await read(), await read()]).toEqual([403, 403])
    expect((await a.request('PUT', `/api/resource/${id}`, { body: { resource: { permissions: [] } } })).status).toBe(200)
    expect(await read()).toBe(200)
    // A membership, not a rule: the user's new group is denied through A, and B obeys at once.
    const g = (await a.request('POST', '/api/component/auth/group/', { body: { keyname: `g_${u.keyname}`, display_name: `g ${u.keyname}`, members: [u.id] } })).body.id
    expect((await a.request('PUT', `/api/resource/${id}`, { body: { resource: { permissions: [rule(g, 'data', 'read', true, 'deny')] } } })).status).toBe(200)
    expect(await read()).toBe(403)
  })

  it("an uncached tile reads the counters in its own statement: another process's write shows in it, its permission changes are obeyed at once", async () => {
    const u = await createUser(a, expect)
    const rootRules = (await a.request('GET', '/api/resource/0')).body.resource.permissions
    expect((await a.request('PUT', '/api/resource/0', { body: { resource: { permissions: [...rootRules,
      rule(u.id, 'resource', 'read'), rule(u.id, 'data', 'read')] } } })).status).toBe(200)
    const id = await newLayer(a)
    expect((await a.request('PATCH', `/api/resource/${id}/feature/`, { body: points(1, 'first') })).status).toBe(200)
    let extent = 3000
    /** B's tile 0/0/0 as `u`: its status, its features' names, its statements; `extent` new unless `again` (then from B's tile cache). */
    const tile = async (again = false) => {
      seen.length = 0
      const res = await b.request('GET', `/api/component/feature_layer/mvt?resource=${id}&z=0&x=0&y=0&extent=${again ? extent : ++extent}`, { auth: u.auth })
      const names = res.status === 200 ? decodeTile(bytesOf(res.bodyBase64))[`svc:${id}`]!.features.map((f) => f.properties.name).sort() : []
      return { status: res.status, names, statements: [...seen] }
    }
    expect((await tile()).names).toEqual(['first0'])
    // Written through A: B's next uncached tile shows it, in one statement (the counters' read carried).
    expect((await a.request('PATCH', `/api/resource/${id}/feature/`, { body: points(1, 'second') })).status).toBe(200)
    const after = await tile()
    expect(after.names).toEqual(['first0', 'second0'])
    expect(after.statements).toHaveLength(1)
    // That tile was not kept (its read moved the layer's token: cached tiles are keyed on tokens before a cut); the next one
    // is, and B answers it from its tile cache with the counters only. After another write through A, that tile is not answered.
    // (Opening the layer at its new token reads its newest version first: a read of its own, as before any cut.)
    expect((await tile(true)).statements.filter((q) => !/^(BEGIN|COMMIT|SELECT coalesce\(max\(id\))/.test(q))).toEqual([expect.stringMatching(/ST_AsMVT/)])
    expect(await tile(true)).toMatchObject({ names: ['first0', 'second0'], statements: [expect.stringMatching(/^SELECT scope, n FROM outpost_change/)] })
    expect((await a.request('PATCH', `/api/resource/${id}/feature/`, { body: points(1, 'third') })).status).toBe(200)
    expect((await tile(true)).names).toEqual(['first0', 'second0', 'third0'])
    // Denied through A while B's caches allow: B's next tile is refused (answered anew once the carried read showed the change)…
    expect((await a.request('PUT', `/api/resource/${id}`, { body: { resource: { permissions: [rule(u.id, 'data', 'read', true, 'deny')] } } })).status).toBe(200)
    expect((await tile()).status).toBe(403)
    expect((await tile()).status).toBe(403)
    // …and allowed again through A while B's caches refuse: B's next tile is answered.
    expect((await a.request('PUT', `/api/resource/${id}`, { body: { resource: { permissions: [] } } })).status).toBe(200)
    expect(await tile()).toMatchObject({ status: 200, names: ['first0', 'second0', 'third0'] })
  })
})
