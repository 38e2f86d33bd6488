/**
 * Several Node host processes on one PostgreSQL database (issue 23 item 2; docs/team-server.md):
 * - a process SIGKILLed inside a 20,000-feature write leaves nothing of it, and the other process
 *   goes on (reads, writes, versions), finishing a sync push retried against it as one commit;
 * - two sync rounds of one layer in two processes do not run at once (the second is refused as in
 *   one process), and a killed process's round does not keep the layer locked;
 * - the connect timeout (a database that accepts but never answers) at start and while serving, a
 *   database lost while serving (503, the JSON error body) and the process recovering when it returns.
 * Real processes (node-process.ts) and a real PostgreSQL + PostGIS (test/pg/cluster.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect as netConnect, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net'
import type { Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import pg from 'pg'
import type { Api } from './harness.ts'
import { apiOf, kill, SOURCE_ENTRY, startHost, type Host } from './node-process.ts'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import { FaultProxy } from './fault-proxy.ts'
import { pointWkb, versionedLayer } from './cases/versioning.ts'
import { postgresData } from '../../sw/host/node.ts'
import { MAIN_LOCK } from '../../sw/postgres/uow.ts'
import { layerLock } from '../../sw/postgres/tx.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { cluster } from '../pg/shared.ts'

/** Processes started here and not yet ended: a failing test must not leave one running. */
const started = new Set<Host>()
const dirs: string[] = []
afterAll(async () => {
  for (const h of started) await kill(h)
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

/** A host process on database `url`; all of a test's hosts share one `--data` folder (its secret.key). */
async function pgHost(dir: string, url: string): Promise<Host & { api: Api }> {
  const host = await startHost(dir, ['--database', url])
  const h = { ...host, api: apiOf(host.base) }
  started.add(h)
  return h
}

async function killHost(h: Host): Promise<void> {
  await kill(h)
  started.delete(h)
}

const tempDir = () => { const d = mkdtempSync(join(tmpdir(), 'outpost-teamproc-')); dirs.push(d); return d }

/** Polls `check` every 20 ms until it is true (or fails after `ms`). */
async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms
  while (!await check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Sessions of process `pid` (the host names its connections `outpost <pid>`, sw/postgres/conn.ts) matching `where`. */
async function sessions(admin: pg.Client, pid: number, where = 'true'): Promise<number> {
  return (await admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND ${where}`,
    [`outpost ${pid}`])).rows[0]!.n
}

/** What a client sees of a layer and the tree: counts, the version, the root's children. */
async function picture(api: Api, layer: number) {
  const res = (await api.request('GET', `/api/resource/${layer}`)).body
  return {
    count: (await api.request('GET', `/api/resource/${layer}/feature_count`)).body.total_count as number,
    versioning: res.feature_layer.versioning as { enabled: boolean; epoch: number; latest: number },
    tree: ((await api.request('GET', '/api/resource/?parent=0')).body as { resource: { id: number; display_name: string } }[])
      .map((r) => [r.resource.id, r.resource.display_name]),
  }
}

/**
 * Holds every commit at its last statement: a write moves its change counter (`outpost_change`,
 * sw/postgres/tokens.ts) right before COMMIT, which waits while this lock is held. So a process
 * can be killed with all of its write done and nothing committed, every time. Readers pass.
 */
async function holdCommits(db: string): Promise<pg.Client> {
  const holder = await (await cluster()).client(db)
  await holder.query('BEGIN')
  await holder.query('LOCK TABLE outpost_change IN SHARE MODE')
  return holder
}

/** Process `pid` inside a transaction that has written (it has a transaction id) and now waits at its commit. */
const atCommit = (admin: pg.Client, pid: number) => async () =>
  await sessions(admin, pid, `backend_xid IS NOT NULL AND wait_event_type = 'Lock'`) > 0

const points = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ geom: `POINT(${from + i} ${i % 97})`, fields: { name: `f${from + i}` } }))

describe('two host processes on one database: one killed mid-transaction', () => {
  let url: string
  let db: string
  let dir: string
  let admin: pg.Client
  beforeAll(async () => {
    url = await (await cluster()).separateDatabase('killed')
    db = new URL(url).pathname.slice(1)
    dir = tempDir()
    admin = await (await cluster()).client(db)
  })
  afterAll(async () => { await admin?.end() })

  it('a process SIGKILLed inside a 20,000-feature write leaves nothing of it; the other reads, writes and versions on', async () => {
    const a = await pgHost(dir, url)
    const b = await pgHost(dir, url)
    const { layer } = await versionedLayer(b.api, expect)
    expect((await b.api.request('PATCH', `/api/resource/${layer}/feature/`, { body: points(10) })).status).toBe(200)
    const before = await picture(b.api, layer)
    expect(before.count).toBe(10)

    const holder = await holdCommits(db)
    const big = a.api.request('PATCH', `/api/resource/${layer}/feature/`, { body: points(20_000, 100) }).then((r) => r.status, () => 'cut')
    // Inside the transaction: the 20,000 rows written, the commit not yet made.
    await until('A at its commit', atCommit(admin, a.proc.pid!), 120_000)
    await killHost(a)
    await holder.query('ROLLBACK')
    await holder.end()
    expect(await big).toBe('cut')
    // The server ends the dead process's sessions (its socket closed), and with them its locks.
    await until('A\'s sessions gone', async () => await sessions(admin, a.proc.pid!) === 0, 10_000)

    expect(await picture(b.api, layer)).toEqual(before)
    expect((await b.api.request('GET', `/api/resource/${layer}/feature/?limit=20000`)).body).toHaveLength(10)
    // Writes go on at once on B (nothing waits for a lock of A's), as the next version.
    const edit = await b.api.request('PATCH', `/api/resource/${layer}/feature/`, { body: points(5, 50) })
    expect(edit.status).toBe(200)
    const after = await picture(b.api, layer)
    expect([after.count, after.versioning.latest]).toEqual([15, before.versioning.latest + 1])
    const child = await b.api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'after the kill' } } })
    expect(child.status).toBe(201)
    await killHost(b)
  }, 180_000)

  it('a sync push whose commit was cut by SIGKILL, retried against the other process, is one commit', async () => {
    const a = await pgHost(dir, url)
    const b = await pgHost(dir, url)
    const { layer, epoch, fieldIds } = await versionedLayer(b.api, expect)
    const before = await picture(b.api, layer)
    // 5,000 operations: 20,000 took 175 s here under load (the batches sent twice and the commit), too long for the suite.
    const N = 5_000
    const ops = Array.from({ length: N }, (_, i) => [i, { action: 'feature.create', geom: pointWkb(i, i % 89), fields: [[fieldIds.name!, `p${i}`]] }])
    // A device's push (sw/sync/push.ts): a transaction, its operations in batches of 1,000, the commit.
    const start = await a.api.request('POST', `/api/resource/${layer}/feature/transaction/`, { body: { epoch } })
    expect(start.status).toBe(200)
    const item = `/api/resource/${layer}/feature/transaction/${start.body.id}`
    const put = async (api: Api) => {
      for (let i = 0; i < N; i += 1000) expect((await api.request('PUT', item, { body: ops.slice(i, i + 1000) })).status).toBe(200)
    }
    let t = Date.now()
    await put(a.api)
    const sent = Date.now() - t
    const holder = await holdCommits(db)
    const commit = a.api.request('POST', item).then((r) => r.status, () => 'cut')
    await until('A at the commit', atCommit(admin, a.proc.pid!), 120_000)
    await killHost(a)
    await holder.query('ROLLBACK')
    await holder.end()
    expect(await commit).toBe('cut')

    // The device retries against B as resumePush does: asks what became of the transaction (not
    // committed: 422), sends its operations again (taken as the same), commits.
    const fate = await b.api.request('GET', item)
    expect(fate.status, JSON.stringify(fate.body)).toBe(422)
    t = Date.now()
    await put(b.api)
    const resent = Date.now() - t
    t = Date.now()
    const again = await b.api.request('POST', item)
    expect([again.status, again.body.status]).toEqual([200, 'committed'])
    console.log(`push of ${N} operations: sent to A in ${sent} ms, again to B in ${resent} ms, committed by B in ${Date.now() - t} ms`)
    const results = (await b.api.request('GET', item)).body as [number, { action: string }][]
    expect(results).toHaveLength(N)
    const after = await picture(b.api, layer)
    expect([after.count, after.versioning.latest]).toEqual([before.count + N, before.versioning.latest + 1])
    // Once more changes nothing: the transaction is committed.
    const twice = await b.api.request('POST', item)
    expect(twice.status).not.toBe(500)
    expect((await picture(b.api, layer)).count).toBe(before.count + N)
    await killHost(b)
  }, 180_000)
})

describe('two host processes on one database: sync rounds of one layer', () => {
  let remote: { api: Api; server: Server; base: string }
  let proxy: FaultProxy
  let url: string
  let dir: string
  beforeAll(async () => {
    remote = await startNodeApi()
    proxy = await new FaultProxy(remote.base).start()
    url = await (await cluster()).separateDatabase('rounds')
    dir = tempDir()
  })
  afterAll(async () => {
    await proxy?.close()
    await new Promise<void>((resolve) => remote?.server.close(() => resolve()))
  })

  /** A layer on the team's server, and its offline copy linked through host `h` (the proxy in between). */
  async function linked(h: { api: Api }): Promise<number> {
    const { layer: rl } = await versionedLayer(remote.api, expect)
    expect((await remote.api.request('PATCH', `/api/resource/${rl}/feature/`, { body: points(3) })).status).toBe(200)
    const conn = await h.api.request('POST', '/api/resource/', { body: { resource: { cls: 'remote_connection', parent: { id: 0 },
      display_name: `team ${Math.random()}` }, remote_connection: { url: proxy.base, username: 'administrator', password: NODE_ADMIN_PASSWORD } } })
    expect(conn.status).toBe(201)
    const local = await h.api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 },
      display_name: `offline ${Math.random()}` }, vector_layer: { remote: { connection: { id: conn.body.id }, resource: { id: rl } } } } })
    expect(local.status, JSON.stringify(local.body)).toBe(201)
    return local.body.id as number
  }

  /** Holds the next request to the team's server until the returned function is called (then cuts it). */
  function holdNext(): { held: Promise<void>; release: () => void } {
    let release!: () => void
    let arrived!: () => void
    const gate = new Promise<void>((resolve) => { release = resolve })
    const held = new Promise<void>((resolve) => { arrived = resolve })
    proxy.cut(() => true, 'before', async () => { arrived(); await gate })
    return { held, release }
  }

  const withoutId = (body: Record<string, unknown>) => { const { request_id: _r, guru_meditation: _g, ...rest } = body; return rest }

  it('a round started in process B while A\'s runs is refused as a second round in one process is (409 SyncRunning); B\'s next one runs', async () => {
    const a = await pgHost(dir, url)
    const b = await pgHost(dir, url)
    const layer = await linked(a)
    const gate = holdNext()
    const first = a.api.request('POST', `/api/resource/${layer}/sync`)
    await gate.held
    const same = await a.api.request('POST', `/api/resource/${layer}/sync`)
    const other = await b.api.request('POST', `/api/resource/${layer}/sync`)
    expect(same.status).toBe(409)
    expect(withoutId(same.body)).toEqual({ title: 'Sync running', message: `A sync of layer ${layer} is already running.`,
      contact: 'support', status_code: 409, exception: 'outpost.sync.exception.SyncRunning', data: { resource_id: layer } })
    expect([other.status, withoutId(other.body)]).toEqual([same.status, withoutId(same.body)])
    // Background sync of every layer in B skips it, as it skips one running in B itself.
    const all = await b.api.request('POST', '/api/component/outpost/sync/')
    expect([all.status, all.body]).toEqual([200, []])
    gate.release()
    expect((await first).status).toBe(200)
    await proxy.settled()
    const next = await b.api.request('POST', `/api/resource/${layer}/sync`)
    expect([next.status, next.body.status]).toEqual([200, 'ok'])
    for (const h of [a, b]) await killHost(h)
  }, 120_000)

  it('a round of a process SIGKILLed mid-round does not keep the layer: the other process\'s next round runs', async () => {
    const a = await pgHost(dir, url)
    const b = await pgHost(dir, url)
    const layer = await linked(a)
    const gate = holdNext()
    void a.api.request('POST', `/api/resource/${layer}/sync`).catch(() => undefined)
    await gate.held
    expect((await b.api.request('POST', `/api/resource/${layer}/sync`)).status).toBe(409)
    await killHost(a)
    gate.release()
    await proxy.settled()
    // The lock was A's session's: the server ends it with the process (at once: the idle session reads its socket's end).
    let next!: Awaited<ReturnType<Api['request']>>
    await until('B\'s round to run', async () => (next = await b.api.request('POST', `/api/resource/${layer}/sync`)).status !== 409, 10_000)
    expect([next.status, next.body.status]).toEqual([200, 'ok'])
    for (const h of [a, b]) await killHost(h)
  }, 120_000)
})

/**
 * A TCP door to the cluster's Unix socket that can be closed ('down': open connections cut,
 * new ones cut at once, as a stopped server) or made 'silent' (new connections accepted and
 * never answered, as an address that drops packets); 'up' forwards.
 */
class DbDoor {
  mode: 'up' | 'down' | 'silent' = 'up'
  readonly #open = new Set<Socket>()
  #server: NetServer | undefined
  port = 0
  constructor(readonly socketPath: string) {}

  async start(): Promise<this> {
    this.#server = createNetServer((client) => {
      this.#open.add(client)
      client.on('close', () => this.#open.delete(client))
      client.on('error', () => undefined)
      if (this.mode === 'down') return void client.destroy()
      if (this.mode === 'silent') return
      const server = netConnect(this.socketPath)
      this.#open.add(server)
      server.on('close', () => { this.#open.delete(server); client.destroy() })
      server.on('error', () => client.destroy())
      client.on('close', () => server.destroy())
      client.pipe(server).pipe(client)
    })
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve))
    this.port = (this.#server.address() as { port: number }).port
    return this
  }

  /** Cuts every open connection; new ones are treated as `mode` says. */
  set(mode: DbDoor['mode']): void {
    this.mode = mode
    if (mode !== 'up') for (const s of this.#open) s.destroy()
  }

  close(): Promise<void> {
    this.set('down')
    return new Promise((resolve) => this.#server?.close(() => resolve()) ?? resolve())
  }
}

/** Runs the host's command line to its end (killed after 60 s): exit code, output, and how long it took. */
function runHost(args: string[]): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const t0 = Date.now()
  const proc: ChildProcess = spawn(process.execPath, [...SOURCE_ENTRY, '--port', '0', ...args],
    { env: { ...process.env, OUTPOST_DATABASE_URL: '', OUTPOST_ADMIN_PASSWORD: NODE_ADMIN_PASSWORD }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  proc.stdout!.on('data', (b: Buffer) => { out += b.toString() })
  proc.stderr!.on('data', (b: Buffer) => { err += b.toString() })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000)
  return new Promise((resolve) => proc.once('exit', (code) => { clearTimeout(timer); resolve({ code, out, err, ms: Date.now() - t0 }) }))
}

describe('two host processes on one database: a layer or a field deleted under a request in flight', () => {
  /** The next statement of this process's host that `table` matches waits for `open`, once set. */
  let gate: { table: RegExp; open: Promise<void>; held: () => void } | undefined
  const query = pg.Client.prototype.query
  let b: Awaited<ReturnType<typeof startNodeApi>>
  let a: Host & { api: Api }
  beforeAll(async () => {
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { text?: string }
      const g = gate
      if (g && g.table.test(typeof q === 'string' ? q : q.text ?? '')) {
        gate = undefined
        g.held()
        return g.open.then(() => (query as (...x: unknown[]) => unknown).apply(this, args))
      }
      return (query as (...x: unknown[]) => unknown).apply(this, args)
    } as typeof query
    const url = await (await cluster()).database('deleted')
    b = await startNodeApi({ app: { data: postgresData(url, { maxConnections: 4 }) } })
    a = await pgHost(tempDir(), url)
  })
  afterAll(async () => {
    pg.Client.prototype.query = query
    await new Promise<void>((resolve) => b?.server.close(() => resolve()))
    await (await b?.app.services())?.data.close()
  })

  /**
   * B's request has found the layer (its resource, its opened tables) and is about to send its
   * statement on the feature table when A's DELETE of the layer commits. It was a 500
   * (`relation "layer_<id>" does not exist`, 42P01); it is the 404 the request would get a moment later.
   */
  it('a read and a write of a layer that process A deleted meanwhile answer B\'s 404 ResourceNotFound, not a 500', async () => {
    // The read is held at its statement on the feature table; the write before it takes the layer's lock (A's delete takes it too).
    const held = (layer: number) => ({ GET: new RegExp(`\\blayer_${layer} f\\b`), PATCH: new RegExp(`^BEGIN; SELECT pg_advisory_xact_lock\\(${layerLock(layer)}\\)$`) })
    for (const [method, path, body] of [['GET', 'feature_count', undefined], ['PATCH', 'feature/', points(3)]] as const) {
      const layer = (await b.api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `gone ${method}` },
        vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } } })).body.id as number
      expect((await b.api.request('PATCH', `/api/resource/${layer}/feature/`, { body: points(2) })).status).toBe(200)
      let release!: () => void
      const waiting = new Promise<void>((resolve) => {
        gate = { table: held(layer)[method], open: new Promise((r) => { release = r }), held: resolve }
      })
      const inFlight = b.api.request(method, `/api/resource/${layer}/${path}`, body ? { body } : {})
      await waiting
      expect((await a.api.request('DELETE', `/api/resource/${layer}`)).status).toBe(200)
      release()
      const res = await inFlight
      expect(res.status, JSON.stringify(res.body)).toBe(404)
      expect(res.body).toMatchObject({ exception: 'nextgisweb.resource.exception.ResourceNotFound', data: { resource_id: layer } })
    }
  }, 60_000)

  /** A field deleted through A, whose next open drops its column, under B's read that still lists it: 409, and sent again, 200. */
  it('a read of a field that process A deleted meanwhile answers B\'s 409 FieldsChanged, not a 500; sent again it reads the fields as they are', async () => {
    const layer = (await b.api.request('POST', '/api/resource/', { body: { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'fields go' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'extra', datatype: 'INTEGER' }] } } })).body.id as number
    expect((await b.api.request('PATCH', `/api/resource/${layer}/feature/`, { body: [{ geom: 'POINT(1 2)', fields: { name: 'a', extra: 7 } }] })).status).toBe(200)
    const list = () => b.api.request('GET', `/api/resource/${layer}/feature/?limit=5`)
    expect((await list()).body[0].fields).toEqual({ name: 'a', extra: 7 })
    let release!: () => void
    const waiting = new Promise<void>((resolve) => {
      gate = { table: new RegExp(`\\blayer_${layer} f\\b`), open: new Promise((r) => { release = r }), held: resolve }
    })
    const inFlight = list()
    await waiting
    const extra = ((await a.api.request('GET', `/api/resource/${layer}`)).body.feature_layer.fields as { id: number; keyname: string }[])
      .find((f) => f.keyname === 'extra')!.id
    expect((await a.api.request('PUT', `/api/resource/${layer}`, { body: { feature_layer: { fields: [{ id: extra, delete: true }] } } })).status).toBe(200)
    // A's next read opens the layer with the new fields: the column goes.
    expect((await a.api.request('GET', `/api/resource/${layer}/feature/?limit=1`)).status).toBe(200)
    release()
    const res = await inFlight
    expect(res.status, JSON.stringify(res.body)).toBe(409)
    expect(res.body).toMatchObject({ exception: 'outpost.feature_layer.exception.FieldsChanged', data: { resource_id: layer } })
    const again = await list()
    expect([again.status, again.body[0].fields]).toEqual([200, { name: 'a' }])
  }, 60_000)
})

describe('the database unreachable or lost', () => {
  let door: DbDoor
  let name: string
  beforeAll(async () => {
    const c = await cluster()
    name = new URL(await c.separateDatabase('door')).pathname.slice(1)
    door = await new DbDoor(`${c.host}/.s.PGSQL.${c.port}`).start()
  })
  afterAll(async () => { await door?.close() })

  /** The database through the door, over TCP, with a connect timeout of `seconds` when given. */
  const viaDoor = (seconds?: number) => `postgres://postgres@127.0.0.1:${door.port}/${name}${seconds ? `?connect_timeout=${seconds}` : ''}`

  it('at start, a database that accepts but never answers stops the host within seconds with one line naming it (not a hang)', async () => {
    door.set('silent')
    try {
      const r = await runHost(['--data', tempDir(), '--database', viaDoor(2)])
      expect(r.code).toBe(1)
      expect(r.err.trim().split('\n')).toEqual([`Cannot open the database ${viaDoor(2)}: no answer within the connect timeout`])
      expect(r.out).not.toContain('listening on')
      // 2 s of timeout, plus starting Node and loading the sources (16 s under a load of 15 on 2 cores);
      // without the timeout it waits until runHost kills it (60 s).
      expect(r.ms).toBeLessThan(40_000)
    } finally {
      door.set('up')
    }
  }, 90_000)

  describe('while serving', () => {
    let api: Api
    let server: Server
    let app: OutpostApp
    beforeAll(async () => {
      ;({ api, server, app } = await startNodeApi({ app: { data: postgresData(viaDoor(2), { maxConnections: 4 }) } }))
    })
    afterAll(async () => {
      door.set('up')
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await (await app.services()).data.close()
    })

    const group = (display_name: string) => api.request('POST', '/api/resource/', { body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name } } })
    const names = async () => ((await api.request('GET', '/api/resource/?parent=0')).body as { resource: { display_name: string } }[]).map((r) => r.resource.display_name)
    const unavailable = (res: { status: number; body: Record<string, unknown> }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(503)
      expect(res.body).toMatchObject({ title: 'Service unavailable', status_code: 503, exception: 'nextgisweb.core.exception.OperationalError' })
      expect(res.body.message).toMatch(/^The database does not answer: /)
    }

    it('a database lost in the middle of a write is a 503 with the JSON error body, nothing of the write kept, and the host recovers', async () => {
      expect((await group('before')).status).toBe(201)
      // The write waits for the main lock (held here), inside its transaction; then the database goes.
      const holder = await (await cluster()).client(name)
      try {
        await holder.query('SELECT pg_advisory_lock($1)', [MAIN_LOCK])
        const write = group('lost half-way')
        await until('the write waiting inside its transaction', async () => (await holder.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [`outpost ${process.pid}`])).rows[0]!.n > 0)
        door.set('down')
        unavailable(await write)
      } finally {
        await holder.end()
      }
      unavailable(await api.request('GET', '/api/resource/0'))
      unavailable(await group('while down'))
      door.set('up')
      // Back: the pool dropped the dead connections and opens new ones.
      expect((await api.request('GET', '/api/resource/0')).status).toBe(200)
      expect((await group('after')).status).toBe(201)
      const now = await names()
      expect(now).toEqual(expect.arrayContaining(['before', 'after']))
      expect(now).not.toContain('lost half-way')
      expect(now).not.toContain('while down')
    }, 60_000)

    it('a database that stops answering new connections is a 503 after the connect timeout, not a hang', async () => {
      door.set('silent')
      // The pool hears its cut connections end and drops them; then every connection is a new one.
      await new Promise((r) => setTimeout(r, 500))
      const t0 = Date.now()
      const res = await api.request('GET', '/api/resource/0')
      const ms = Date.now() - t0
      door.set('up')
      unavailable(res)
      expect(res.body.message).toContain('no answer within the connect timeout')
      expect(ms).toBeLessThan(6_000)
      expect((await api.request('GET', '/api/resource/0')).status).toBe(200)
    }, 60_000)
  })
})
