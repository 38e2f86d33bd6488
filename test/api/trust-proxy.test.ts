/**
 * Login limits behind a reverse proxy (docs/security.md, docs/team-server.md): with
 * `--trust-proxy`, a request from a trusted proxy counts against the address it forwarded in
 * `X-Forwarded-For`; from any other peer, or without the option, the header is ignored (a client
 * must not pick the address it is counted under). The Node host only: a service worker sees no
 * addresses at all (its limits are per login name, test/e2e/login-limit-sw.spec.ts).
 */
import { spawn } from 'node:child_process'
import { request as httpRequest, type Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NODE_ADMIN_PASSWORD, startNodeApi } from './node-client.ts'
import { SOURCE_ENTRY } from './node-process.ts'
import { uniq } from './harness.ts'
import { parseCidrs } from '../../sw/host/node-outbound.ts'

/** A login POSTed from local address `from`, claiming `forwarded` in X-Forwarded-For: its status. */
function login(base: string, forwarded: string | undefined, login: string, password = 'wrong', from = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (forwarded !== undefined) headers['x-forwarded-for'] = forwarded
    const req = httpRequest(`${base}/api/component/auth/login`, { method: 'POST', localAddress: from, headers },
      (res) => { res.resume(); res.on('end', () => resolve(res.statusCode!)) })
    req.on('error', reject)
    req.end(JSON.stringify({ login, password }))
  })
}

/** Twenty failures (the per-address limit's free ones) under new login names each. */
async function twentyFailures(base: string, forwarded: (i: number) => string | undefined, from?: string): Promise<void> {
  for (let i = 0; i < 20; i++) expect(await login(base, forwarded(i), uniq('guess'), 'wrong', from)).toBe(401)
}

describe('login limits behind a trusted proxy (--trust-proxy 127.0.0.1)', () => {
  let server: Server
  let base: string
  beforeAll(async () => { ({ server, base } = await startNodeApi({ serve: { trustProxy: parseCidrs(['127.0.0.1'], '--trust-proxy') } })) })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('counts per forwarded client address: one guesser locked out, the others behind the same proxy not', async () => {
    await twentyFailures(base, () => '203.0.113.7')
    expect(await login(base, '203.0.113.7', uniq('guess'))).toBe(429)
    // The same address written by the client before the proxy's own entry is still that client.
    expect(await login(base, '198.51.100.99, 203.0.113.7', uniq('guess'))).toBe(429)
    // Another client behind the proxy signs in.
    expect(await login(base, '203.0.113.8', 'administrator', NODE_ADMIN_PASSWORD)).toBe(200)
    // A guesser cannot escape its count by writing another address first: the proxy's entry is the right-most.
    expect(await login(base, '203.0.113.8, 203.0.113.7', uniq('guess'))).toBe(429)
  })

  it('ignores the header from a peer that is not a trusted proxy (127.0.0.2 here)', async () => {
    await twentyFailures(base, (i) => `192.0.2.${i + 1}`, '127.0.0.2')
    expect(await login(base, '192.0.2.200', uniq('guess'), 'wrong', '127.0.0.2')).toBe(429)
  })
})

describe('login limits without --trust-proxy', () => {
  let server: Server
  let base: string
  beforeAll(async () => { ({ server, base } = await startNodeApi()) })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('ignore X-Forwarded-For: a client claiming a new address each time is still counted as its socket peer', async () => {
    await twentyFailures(base, (i) => `203.0.113.${i + 1}`)
    expect(await login(base, '203.0.113.100', uniq('guess'))).toBe(429)
  })
})

describe('the command line', () => {
  /**
   * Starts the host with `args` and `env`; one login guessed wrong from forwarded 203.0.113.7 until
   * locked there (5 free failures of a login per address); returns that login's status forwarded
   * from 203.0.113.8: 401 when the forwarded addresses count, 429 when all are the proxy's.
   */
  async function fromAnotherClient(args: string[], env: Record<string, string>): Promise<number> {
    const proc = spawn(process.execPath, [...SOURCE_ENTRY, '--port', '0', '--memory', ...args],
      { env: { ...process.env, OUTPOST_ADMIN_PASSWORD: NODE_ADMIN_PASSWORD, OUTPOST_TRUST_PROXY: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      const base = await new Promise<string>((resolve, reject) => {
        let out = ''
        proc.stdout!.on('data', (b: Buffer) => { out += b.toString(); const m = /listening on (http:\/\/[\d.:]+)/.exec(out); if (m) resolve(m[1]!) })
        proc.stderr!.on('data', (b: Buffer) => { out += b.toString() })
        proc.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
      })
      const name = uniq('guess')
      const statuses = []
      for (let i = 0; i < 7; i++) statuses.push(await login(base, '203.0.113.7', name))
      expect(statuses.at(-1)).toBe(429)
      return await login(base, '203.0.113.8', name)
    } finally {
      proc.kill('SIGKILL')
    }
  }

  it('--trust-proxy and OUTPOST_TRUST_PROXY (comma-separated) both turn it on', async () => {
    expect(await fromAnotherClient(['--trust-proxy', '127.0.0.0/8'], {})).toBe(401)
    expect(await fromAnotherClient([], { OUTPOST_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' })).toBe(401)
  }, 120_000)

  it('refuses a range that is not one, in one line naming the option', async () => {
    const proc = spawn(process.execPath, [...SOURCE_ENTRY, '--port', '0', '--memory', '--trust-proxy', 'nginx'], { stdio: ['ignore', 'pipe', 'pipe'] })
    let err = ''
    proc.stderr!.on('data', (b: Buffer) => { err += b.toString() })
    const code = await new Promise((resolve) => proc.once('exit', resolve))
    expect([code, err.split('\n')[0]]).toEqual([1, "Invalid --trust-proxy 'nginx': an address or a CIDR range such as 10.0.0.0/8."])
  }, 30_000)
})
