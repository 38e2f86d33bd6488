import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join, resolve } from 'node:path'
import { NODE_ADMIN_PASSWORD } from './node-client.ts'
import { COMPILED_ENTRY, apiOf, kill, startHost, type Host } from './node-process.ts'
import { WELLS, WELLS_SUMMARY } from './gdal-cases.ts'

// Issue 22 item 4: the Node host runs compiled JavaScript (dist-node/, `npm run build`), not
// TypeScript through tsx. The other Node suites start the sources through tsx (in CI they run
// before any build); this one builds the host as `npm run build` does and talks to a process
// started from the build, then starts it by `npm run serve`'s own command line.

const SERVE = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { serve: string } }).scripts.serve

const dirs: string[] = []
const hosts: Host[] = []
beforeAll(() => {
  // Emit only: `npm run typecheck` (before vitest in `npm test`) checks these sources, and the
  // emitted files are the same as a checked build's (compared 27 Nov); it saves ~15 s of CPU.
  const r = spawnSync(process.execPath, ['scripts/build-node.mjs', '--no-check'], { encoding: 'utf8' })
  expect(r.status, r.stderr + r.stdout).toBe(0)
}, 300_000)
afterAll(async () => {
  for (const h of hosts) await kill(h)
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

describe('the compiled Node host', () => {
  it('answers from a process started from dist-node/: login, a layer created and read back, GDAL, a shipped file', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outpost-build-'))
    dirs.push(dir)
    const host = await startHost(dir, [], COMPILED_ENTRY)
    hosts.push(host)
    const api = apiOf(host.base)

    const login = await api.request('POST', '/api/component/auth/login', { auth: 'guest', body: { login: 'administrator', password: NODE_ADMIN_PASSWORD } })
    expect(login.status).toBe(200)
    expect(login.body).toMatchObject({ keyname: 'administrator' })

    const created = await api.request('POST', '/api/resource/', { body: {
      resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'compiled wells' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: [{ keyname: 'name', datatype: 'STRING' }] } } })
    expect(created.status).toBe(201)
    const id = created.body.id as number
    const patch = await api.request('PATCH', `/api/resource/${id}/feature/`, { body: [
      { geom: 'POINT (10 20)', fields: { name: 'first' } }, { geom: 'POINT (30 40)', fields: { name: 'second' } }] })
    expect(patch.status).toBe(200)
    const read = await api.request('GET', `/api/resource/${id}/feature/?order_by=name`)
    expect(read.status).toBe(200)
    expect(read.body.map((f: { geom: string; fields: { name: string } }) => [f.geom, f.fields.name]))
      .toEqual([['POINT(10 20)', 'first'], ['POINT(30 40)', 'second']])

    // GDAL runs in its thread from the compiled worker script.
    const gdal = await api.request('POST', '/api/component/outpost/gdal/inspect?name=wells.geojson', { raw: WELLS })
    expect(gdal.status).toBe(200)
    expect(gdal.body).toEqual(WELLS_SUMMARY)

    // The basemap is a file of the project (public/ or dist/), found from the compiled location.
    const basemap = await api.request('GET', '/api/component/outpost/basemap')
    expect(basemap.status).toBe(200)
    expect(basemap.body.layers).toEqual(['land', 'boundaries', 'places'])
  })

  it("`npm run serve`'s command line starts the build, not the sources through tsx", { timeout: 120_000 }, async () => {
    expect(SERVE).toContain('scripts/serve.mjs')
    expect(SERVE).not.toContain('tsx')
    const env: NodeJS.ProcessEnv = { ...process.env, OUTPOST_ADMIN_PASSWORD: NODE_ADMIN_PASSWORD, PATH: `${resolve('node_modules/.bin')}${delimiter}${process.env.PATH}` }
    const proc = spawn(`${SERVE} --port 0 --memory`, { shell: true, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    try {
      const base = await new Promise<string>((done, fail) => {
        let out = ''
        proc.stdout!.on('data', (b: Buffer) => { out += b.toString(); const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out); if (m) done(m[1]!) })
        proc.stderr!.on('data', (b: Buffer) => { out += b.toString() })
        proc.once('exit', (code) => fail(new Error(`exited (${code}) before listening:\n${out}`)))
      })
      const me = await apiOf(base).request('GET', '/api/component/auth/current_user')
      expect(me.status).toBe(200)
      expect(me.body.keyname).toBe('administrator')
      // The server is the build: its process runs dist-node's modules, tsx's loader is not in it.
      const cmdline = readFileSync(`/proc/${proc.pid}/cmdline`, 'utf8')
      expect(cmdline).toContain('scripts/serve.mjs')
      expect(cmdline).not.toContain('tsx')
    } finally {
      await new Promise<void>((done) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return done()
        proc.once('exit', () => done())
        process.kill(-proc.pid!, 'SIGKILL')
      })
    }
  })
})
