/**
 * The Node host on PostgreSQL (issue 23, docs/team-server.md): the shared API case groups
 * (test/api/cases) against `createApp` with the data port of `--database` (sw/host/node.ts's
 * postgresData), one fresh database per group as node-host.test.ts gives each group a fresh
 * server; and the command line's `--database` refusing a bad URL or an unreachable server.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Api } from './harness.ts'
import { startNodeApi } from './node-client.ts'
import { SOURCE_ENTRY } from './node-process.ts'
import { CASE_GROUPS } from './cases/index.ts'
import { ensureQms, qmsData } from './cases/catalogue-data.ts'
import { postgresData } from '../../sw/host/node.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { openSqliteData } from '../../sw/sqlite/port.ts'
import { cluster } from '../pg/shared.ts'

/**
 * The API case groups run on PostgreSQL (each on a fresh schema). Not here: 'storage' (the SQLite
 * heap diagnostics); the sync cases run with the local host on PostgreSQL in sync-pg.test.ts.
 */
const PG_GROUPS: string[] = ['auth', 'catalogue', 'permissions', 'resource', 'pyramid', 'upload', 'blueprint', 'feature',
  'feature-bulk', 'attachment', 'identify', 'export', 'render', 'hardening', 'hardening-auth', 'hardening-values', 'mvt', 'versioning',
  'compat', 'ingest', 'idempotency', 'webmap', 'wmsclient', 'wms', 'render-raster']

/** Cases that assert what only SQLite's storage does (its R*Tree and the tile index cut from it). */
const SQLITE_ONLY = new Set(['tiles come from the layer\'s tile index once it is built, and show every edit at once'])

for (const group of PG_GROUPS) {
  const cases = CASE_GROUPS[group]!
  describe(`API on the Node host on PostgreSQL: ${group}`, () => {
    let api: Api
    let server: Server
    let app: OutpostApp
    beforeAll(async () => {
      const url = await (await cluster()).database(group.replace(/\W/g, '_'))
      ;({ api, server, app } = await startNodeApi({ app: { data: postgresData(url, { maxConnections: 4 }) } }))
    })
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await (await app.services()).data.close()
    })
    for (const c of cases) if (!SQLITE_ONLY.has(c.name)) it(c.name, () => c.run(api, expect))
  })
}

describe("the host's choice of data port (AppOptions.data)", () => {
  it('is the port the app uses, and its change tokens are refreshed once per request, before the request is answered', async () => {
    let opened = 0
    let refreshed = 0
    const { api, server } = await startNodeApi({ app: { data: async (platform) => {
      opened++
      const port = await openSqliteData(platform.sqlite, { store: platform.store })
      // SQLite has no refresh (one process); this one counts, as PostgreSQL's would query.
      return { ...port, tokens: { current: (scope) => port.tokens.current(scope), refresh: async () => { refreshed++ } } }
    } } })
    try {
      for (let i = 1; i <= 3; i++) {
        const res = await api.request('GET', '/api/component/auth/current_user', { auth: 'guest' })
        expect([res.status, refreshed]).toEqual([200, i])
      }
      const bad = await api.request('GET', '/api/resource/999999', { auth: 'guest' })
      expect([bad.status, refreshed, opened]).toEqual([404, 4, 1])
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

/** Starting the app needs principals and the tree (provisioning): the same repositories as 'auth'. */
const STARTS = PG_GROUPS.includes('auth')

describe.runIf(STARTS)('two Node hosts on one PostgreSQL database', () => {
  const hosts: { api: Api; server: Server; app: OutpostApp }[] = []
  let url: string
  beforeAll(async () => {
    url = await (await cluster()).separateDatabase('two')
    for (let i = 0; i < 2; i++) hosts.push(await startNodeApi({ app: { data: postgresData(url, { maxConnections: 4 }) } }))
  })
  afterAll(async () => {
    for (const h of hosts) {
      await new Promise<void>((resolve) => h.server.close(() => resolve()))
      await (await h.app.services()).data.close()
    }
  })

  it("an import through one is served by the other on its very next request (the change counters, read once per request)", async () => {
    const [a, b] = hosts.map((h) => h.api) as [Api, Api]
    const count = async (api: Api) => (await api.request('GET', '/api/v1/geoservices/?limit=1', { auth: 'guest' })).body.count
    const before = await count(b)
    expect(before).not.toBe(qmsData().geoservices.length)
    await ensureQms(a)
    expect(await count(b)).toBe(qmsData().geoservices.length)
  })

  it('the health check answers 200 on both, and 503 with the JSON error body once the database is gone', async () => {
    for (const { api } of hosts) {
      const ok = await api.request('GET', '/api/component/pyramid/healthcheck', { auth: 'guest' })
      expect([ok.status, ok.body]).toEqual([200, { success: true, component: { outpost: { success: true } } }])
    }
    const admin = await (await cluster()).client()
    try { await admin.query(`DROP DATABASE ${new URL(url).pathname.slice(1)} WITH (FORCE)`) } finally { await admin.end() }
    for (const { api } of hosts) {
      const gone = await api.request('GET', '/api/component/pyramid/healthcheck', { auth: 'guest' })
      expect(gone.status).toBe(503)
      expect(gone.body.exception).toBe('nextgisweb.core.exception.OperationalError')
    }
  })
})

/** Hosts started by runHost and not yet ended: a test that times out must not leave one running. */
const running = new Set<ChildProcess>()
afterAll(() => { for (const p of running) p.kill('SIGKILL') })

/** Runs the host's command line to its end (killed after 20 s): exit code and what it printed. */
function runHost(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  const proc = spawn(process.execPath, [...SOURCE_ENTRY, '--port', '0', ...args],
    { env: { ...process.env, OUTPOST_DATABASE_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  proc.stdout.on('data', (b: Buffer) => { out += b.toString() })
  proc.stderr.on('data', (b: Buffer) => { err += b.toString() })
  running.add(proc)
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20_000)
  return new Promise((resolve) => proc.once('exit', (code) => { clearTimeout(timer); running.delete(proc); resolve({ code, out, err }) }))
}

describe('the PostgreSQL port in a process of its own', () => {
  it('keeps no process alive with its idle connections (a host that closed its server ends, even without closing the port)', async () => {
    const url = await (await cluster()).database('idle')
    const script = `const { openPostgresData } = await import('./sw/postgres/port.ts')
      const p = await openPostgresData(process.env.URL)
      await p.ping(); await (await p.catalogue()).load()
      console.log('idle at', Date.now())`
    const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script],
      { env: { ...process.env, URL: url }, stdio: ['ignore', 'pipe', 'pipe'] })
    running.add(proc)
    let out = ''
    proc.stdout.on('data', (b: Buffer) => { out += b.toString() })
    proc.stderr.on('data', (b: Buffer) => { out += b.toString() })
    const code = await new Promise((resolve) => proc.once('exit', resolve))
    running.delete(proc)
    const idleAt = Number(/idle at (\d+)/.exec(out)?.[1])
    expect([code, out.replace(/idle at \d+\n/, '')]).toEqual([0, ''])
    // pg's pool would otherwise hold them for its idle timeout (10 s).
    expect(Date.now() - idleAt).toBeLessThan(5000)
  }, 60_000)
})

describe('the Node host with --database', () => {
  let dir: string
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'outpost-pghost-')) })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('refuses a URL that is not postgres://… in one line, exit 1, without the password and without writing the data folder', async () => {
    const r = await runHost(['--data', join(dir, 'bad'), '--database', 'mysql://me:s3cret@127.0.0.1/db'])
    expect(r.code).toBe(1)
    expect(r.err.trim()).toBe(`Invalid database URL 'mysql://me:***@127.0.0.1/db': expected postgres://user:password@host:port/database.`)
    expect(r.out + r.err).not.toContain('s3cret')
    expect(readdirSync(dir)).not.toContain('bad')
  })

  it('exits 1 with one line naming the database when its server cannot be reached (OUTPOST_DATABASE_URL too)', async () => {
    // A port that refuses: one we listened on and closed.
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as { port: number }).port
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const url = `postgres://me:s3cret@127.0.0.1:${port}/outpost`
    for (const r of [await runHost(['--data', join(dir, 'a'), '--database', url]), await runHost(['--data', join(dir, 'b')], { OUTPOST_DATABASE_URL: url })]) {
      expect(r.code).toBe(1)
      const lines = r.err.trim().split('\n')
      expect(lines).toEqual([`Cannot open the database postgres://me:***@127.0.0.1:${port}/outpost: connect ECONNREFUSED 127.0.0.1:${port}`])
      expect(r.out + r.err).not.toContain('s3cret')
      expect(r.out).not.toContain('listening on')
    }
  }, 60_000)

  it('--database and --memory exclude each other', async () => {
    const r = await runHost(['--memory', '--database', 'postgres://me@127.0.0.1/db'])
    expect(r.code).toBe(1)
    expect(r.err.split('\n')[0]).toBe('--memory and --database exclude each other.')
  })
})
