import { afterAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileStore } from '../../sw/host/node-store.ts'
import { apiOf, kill, startHost, type Host } from './node-process.ts'

// One process per data folder (issue 19 §7): a second Node host on a folder in use refuses to
// start and changes nothing; the first keeps working; a SIGKILLed holder never blocks a restart.

const dirs: string[] = []
const hosts: Host[] = []
afterAll(async () => {
  for (const h of hosts) await kill(h)
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

/** Every file under `dir` with its bytes, by path. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) { const p = join(e.parentPath, e.name); out.set(p, (await readFile(p)).toString('base64')) }
  }
  return out
}

/** Runs the Node host's command line to its end (at most 60 s) without the test's password, so a start would generate one. */
function runToExit(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const env = { ...process.env }
  delete env.OUTPOST_ADMIN_PASSWORD
  const proc = spawn(process.execPath, ['--import', 'tsx', 'sw/host/node-main.ts', '--port', '0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  proc.stdout.on('data', (b: Buffer) => { out += b.toString() })
  proc.stderr.on('data', (b: Buffer) => { err += b.toString() })
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000)
    proc.once('exit', (code) => { clearTimeout(timer); resolve({ code, out, err }) })
  })
}

const group = (name: string) => ({ body: { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: name } } })

describe('one Node host per data folder', () => {
  it('a second host on a folder in use exits 1 naming the folder and the holder\'s pid, and changes no byte; the first keeps working', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outpost-lock-'))
    dirs.push(dir)
    const a = await startHost(dir)
    hosts.push(a)
    const api = apiOf(a.base)
    const first = await api.request('POST', '/api/resource/', group('before the second start'))
    expect(first.status).toBe(201)
    await new Promise((r) => setTimeout(r, 500)) // let the first host go idle: nothing of its own is written meanwhile
    const before = await snapshot(dir)
    const second = await runToExit(['--data', dir])
    expect(second.code).toBe(1)
    expect(second.err).toContain(`The data folder ${dir} is in use by another Outpost process (pid ${a.proc.pid} `)
    expect(second.out).not.toContain('administrator password') // refused before a password was made or printed
    expect(second.out).not.toContain('listening')
    expect(await snapshot(dir)).toEqual(before)
    // The first host was not disturbed: its data and new writes.
    expect((await api.request('GET', `/api/resource/${first.body.id}`)).body.resource.display_name).toBe('before the second start')
    const next = await api.request('POST', '/api/resource/', group('after the second start'))
    expect(next.status).toBe(201)
    expect(next.body.id).toBeGreaterThan(first.body.id)
  }, 120_000)

  it('another process\'s store on a folder in use is refused too; --memory needs no lock', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outpost-lock-'))
    dirs.push(dir)
    const a = await startHost(dir)
    hosts.push(a)
    // This test process is another process: its FileStore on the folder is refused.
    expect(() => new FileStore(dir)).toThrow(`in use by another Outpost process (pid ${a.proc.pid} `)
    const memory = spawn(process.execPath, ['--import', 'tsx', 'sw/host/node-main.ts', '--port', '0', '--memory'],
      { env: { ...process.env, OUTPOST_DATA: dir }, stdio: ['ignore', 'pipe', 'pipe'] })
    const listening = await new Promise<boolean>((resolve) => {
      let out = ''
      memory.stdout.on('data', (b: Buffer) => { out += b.toString(); if (out.includes('listening on')) resolve(true) })
      memory.once('exit', () => resolve(false))
    })
    memory.kill('SIGKILL')
    expect(listening).toBe(true)
  }, 120_000)

  it('a SIGKILLed host leaves no lock behind: the restart on its folder starts at once with every acknowledged write', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outpost-lock-'))
    dirs.push(dir)
    let host = await startHost(dir)
    hosts.push(host)
    const ids: number[] = []
    for (let round = 0; round < 3; round++) {
      const res = await apiOf(host.base).request('POST', '/api/resource/', group(`round ${round}`))
      expect(res.status).toBe(201)
      ids.push(res.body.id)
      await kill(host)
      host = await startHost(dir) // rejects if the start is refused
      hosts.push(host)
      for (const [i, id] of ids.entries()) {
        expect((await apiOf(host.base).request('GET', `/api/resource/${id}`)).body.resource.display_name).toBe(`round ${i}`)
      }
    }
  }, 120_000)
})
