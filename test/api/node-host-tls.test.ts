/**
 * The Node host's command line for phones: `--host` and `--tls-cert/--tls-key` serve the API
 * (and the app) over HTTPS, and the host prints what to type where.
 */
import { afterAll, expect, it } from 'vitest'
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { NODE_ADMIN_PASSWORD, NODE_ADMIN_AUTH } from './node-client.ts'

const dir = mkdtempSync(join(tmpdir(), 'outpost-tls-'))
const procs: ChildProcess[] = []
afterAll(() => { for (const p of procs) p.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }) })

/** GET over HTTPS, trusting the test's self-signed certificate. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const auth = NODE_ADMIN_AUTH
    request(url, { rejectUnauthorized: false, headers: { authorization: auth } }, (res) => {
      let body = ''
      res.on('data', (c) => { body += c })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    }).on('error', reject).end()
  })
}

const hasOpenssl = (() => { try { execFileSync('openssl', ['version'], { stdio: 'ignore' }); return true } catch { return false } })()

/** Starts the host with `args`; resolves with its base URL and everything it printed once it listens. */
function start(args: string[]): Promise<{ base: string; out: () => string }> {
  const p = spawn(process.execPath, ['--import', 'tsx', 'sw/host/node-main.ts', '--port', '0', '--memory', '--static', 'public', ...args],
    { env: { ...process.env, OUTPOST_ADMIN_PASSWORD: NODE_ADMIN_PASSWORD }, stdio: ['ignore', 'pipe', 'pipe'] })
  procs.push(p)
  let out = ''
  p.stderr!.on('data', (b: Buffer) => { out += b.toString() })
  return new Promise((resolve, reject) => {
    p.stdout!.on('data', (b: Buffer) => {
      out += b.toString()
      const m = /listening on (https?:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m && out.includes('password  ')) setTimeout(() => resolve({ base: m[1]!, out: () => out }), 200)
    })
    p.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
}

// A certificate is made with openssl (Debian's `openssl`); without it there is nothing to serve.
it.skipIf(!hasOpenssl)('serves HTTPS with --tls-cert/--tls-key, absolute URLs in https, and prints how to connect the app', async () => {
  const cert = join(dir, 'cert.pem'), key = join(dir, 'key.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
    '-subj', '/CN=localhost'], { stdio: 'ignore' })
  const { base, out: printed } = await start(['--host', '127.0.0.1', '--tls-cert', cert, '--tls-key', key])
  const out = printed()
  expect(base).toMatch(/^https:/)
  expect(out).toContain(`URL       ${base}`)
  expect(out).toContain('login     administrator')
  // The app's button for the team's server is "Sync" (src/components/app/AppHeader.vue).
  expect(out).toContain('press "Sync"')
  const pkg = await get(`${base}/api/component/pyramid/pkg_version`)
  expect(JSON.parse(pkg.body)).toMatchObject({ outpost_host: 'node' })
  const created = await new Promise<string>((resolve, reject) => {
    const body = JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'tls' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT' } })
    request(`${base}/api/resource/`, { method: 'POST', rejectUnauthorized: false,
      headers: { authorization: NODE_ADMIN_AUTH } }, (res) => {
      let b = ''
      res.on('data', (c) => { b += c })
      res.on('end', () => resolve(b))
    }).on('error', reject).end(body)
  })
  const id = JSON.parse(created).id
  const check = JSON.parse((await get(`${base}/api/resource/${id}/feature/changes/check`)).body)
  expect(check.fetch).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/resource\/\d+\/feature\/changes\/fetch\?/)
}, 60_000)

// The machine's own network address stands in for a phone's view of it.
const lan = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address

it.skipIf(!lan)('--host 0.0.0.0 listens on the network and prints the address a phone opens (and that it needs HTTPS)', async () => {
  const { out } = await start(['--host', '0.0.0.0'])
  expect(out()).toContain(`http://${lan}:`)
  expect(out()).toContain('a phone needs HTTPS')
  const url = new RegExp(`(http://${lan!.replace(/\./g, '\\.')}:\\d+)`).exec(out())![1]
  const res = await fetch(`${url}/api/component/pyramid/pkg_version`)
  expect(res.status).toBe(200)
  expect(await res.json()).toMatchObject({ outpost_host: 'node' })
  // Without --host the same host is not reachable from the network.
  const { out: localOut } = await start([])
  const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(localOut())![1]
  await expect(fetch(`http://${lan}:${port}/api/component/pyramid/pkg_version`)).rejects.toThrow()
}, 60_000)

it('refuses --tls-cert without --tls-key, saying why', async () => {
  const p = spawn(process.execPath, ['--import', 'tsx', 'sw/host/node-main.ts', '--port', '0', '--memory', '--tls-cert', 'cert.pem'],
    { stdio: ['ignore', 'pipe', 'pipe'] })
  procs.push(p)
  let err = ''
  p.stderr!.on('data', (b: Buffer) => { err += b.toString() })
  const code = await new Promise((resolve) => p.once('exit', resolve))
  expect(code).toBe(1)
  expect(err).toContain('--tls-cert and --tls-key go together')
}, 60_000)
