/**
 * The Node host's command line for phones: `--host` and `--tls-cert/--tls-key` serve the API
 * (and the app) over HTTPS, and the host prints what to type where.
 */
import { afterAll, expect, it } from 'vitest'
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NODE_ADMIN_PASSWORD } from './node-client.ts'

const dir = mkdtempSync(join(tmpdir(), 'outpost-tls-'))
let proc: ChildProcess | undefined
afterAll(() => { proc?.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }) })

/** GET over HTTPS, trusting the test's self-signed certificate. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const auth = 'Basic ' + Buffer.from(`administrator:${NODE_ADMIN_PASSWORD}`).toString('base64')
    request(url, { rejectUnauthorized: false, headers: { authorization: auth } }, (res) => {
      let body = ''
      res.on('data', (c) => { body += c })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    }).on('error', reject).end()
  })
}

const hasOpenssl = (() => { try { execFileSync('openssl', ['version'], { stdio: 'ignore' }); return true } catch { return false } })()

// A certificate is made with openssl (Debian's `openssl`); without it there is nothing to serve.
it.skipIf(!hasOpenssl)('serves HTTPS with --tls-cert/--tls-key, absolute URLs in https, and prints how to connect the app', async () => {
  const cert = join(dir, 'cert.pem'), key = join(dir, 'key.pem')
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
    '-subj', '/CN=localhost'], { stdio: 'ignore' })
  proc = spawn(process.execPath, ['--import', 'tsx', 'sw/host/node-main.ts', '--port', '0', '--memory', '--host', '127.0.0.1',
    '--tls-cert', cert, '--tls-key', key, '--static', 'public'], { env: { ...process.env, OUTPOST_ADMIN_PASSWORD: NODE_ADMIN_PASSWORD },
    stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  const base = await new Promise<string>((resolve, reject) => {
    proc!.stdout!.on('data', (b: Buffer) => {
      out += b.toString()
      const m = /listening on (https:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m && out.includes('password')) setTimeout(() => resolve(m[1]!), 200)
    })
    proc!.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
  expect(out).toContain(`URL       ${base}`)
  expect(out).toContain('login     administrator')
  const pkg = await get(`${base}/api/component/pyramid/pkg_version`)
  expect(JSON.parse(pkg.body)).toMatchObject({ outpost_host: 'node' })
  const created = await new Promise<string>((resolve, reject) => {
    const body = JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'tls' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT' } })
    request(`${base}/api/resource/`, { method: 'POST', rejectUnauthorized: false,
      headers: { authorization: 'Basic ' + Buffer.from(`administrator:${NODE_ADMIN_PASSWORD}`).toString('base64') } }, (res) => {
      let b = ''
      res.on('data', (c) => { b += c })
      res.on('end', () => resolve(b))
    }).on('error', reject).end(body)
  })
  const id = JSON.parse(created).id
  const check = JSON.parse((await get(`${base}/api/resource/${id}/feature/changes/check`)).body)
  expect(check.fetch).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/api\/resource\/\d+\/feature\/changes\/fetch\?/)
}, 60_000)
