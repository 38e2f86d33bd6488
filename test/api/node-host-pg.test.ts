/**
 * The Node host on PostgreSQL (issue 23, docs/team-server.md): the shared API case groups
 * (test/api/cases) against `createApp` with the data port of `--database` (sw/host/node.ts's
 * postgresData), one fresh database per group as node-host.test.ts gives each group a fresh
 * server; and the command line's `--database` refusing a bad URL or an unreachable server.
 */
import { spawn } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Api } from './harness.ts'
import { startNodeApi } from './node-client.ts'
import { SOURCE_ENTRY } from './node-process.ts'
import { CASE_GROUPS } from './cases/index.ts'
import { postgresData } from '../../sw/host/node.ts'
import type { OutpostApp } from '../../sw/app.ts'
import { cluster } from '../pg/shared.ts'

/**
 * The groups that pass on PostgreSQL so far. Each needs the repositories its routes use:
 * every group needs principals and sessions (auth: starting the app provisions the
 * administrator) and the tree (resources: the root); the vector-layer groups wait for the
 * features on PostGIS.
 */
const PG_GROUPS: string[] = []

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
    for (const c of cases) it(c.name, () => c.run(api, expect))
  })
}

/** Runs the host's command line to its end: exit code and what it printed. */
function runHost(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  const proc = spawn(process.execPath, [...SOURCE_ENTRY, '--port', '0', ...args],
    { env: { ...process.env, OUTPOST_DATABASE_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  proc.stdout.on('data', (b: Buffer) => { out += b.toString() })
  proc.stderr.on('data', (b: Buffer) => { err += b.toString() })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000)
  return new Promise((resolve) => proc.once('exit', (code) => { clearTimeout(timer); resolve({ code, out, err }) }))
}

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
  })

  it('--database and --memory exclude each other', async () => {
    const r = await runHost(['--memory', '--database', 'postgres://me@127.0.0.1/db'])
    expect(r.code).toBe(1)
    expect(r.err.split('\n')[0]).toBe('--memory and --database exclude each other.')
  })
})
