import { afterAll, describe, expect, it } from 'vitest'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NODE_ADMIN_PASSWORD } from './node-client.ts'

// Crash test of the Node host (ARCHITECTURE.md "Storage"): the real server process is
// killed with SIGKILL in the middle of concurrent writes, restarted on the same folder, and
// must hold every acknowledged write whole and no write half-done.

const AUTH = { authorization: 'Basic ' + Buffer.from(`administrator:${NODE_ADMIN_PASSWORD}`).toString('base64') }
const FIELDS = ['name', 'depth', 'drilled', 'owner', 'status', 'note'].map((keyname, i) =>
  ({ keyname, datatype: ['STRING', 'REAL', 'DATE', 'STRING', 'INTEGER', 'STRING'][i] }))

interface Host { proc: ChildProcess; base: string }

/** Starts `node --import tsx sw/host/node-main.ts` (one process, so SIGKILL really kills the server). */
function startHost(dataDir: string): Promise<Host> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'sw/host/node-main.ts', '--port', '0', '--data', dataDir],
    { env: { ...process.env, OUTPOST_ADMIN_PASSWORD: NODE_ADMIN_PASSWORD }, stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (b: Buffer) => {
      out += b.toString()
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) { proc.stdout!.off('data', onData); resolve({ proc, base: m[1]! }) }
    }
    proc.stdout!.on('data', onData)
    proc.stderr!.on('data', (b: Buffer) => { out += b.toString() })
    proc.once('exit', (code) => reject(new Error(`host exited (${code}) before listening:\n${out}`)))
  })
}

function kill(host: Host): Promise<void> {
  return new Promise((resolve) => {
    if (host.proc.exitCode !== null || host.proc.signalCode !== null) return resolve()
    host.proc.once('exit', () => resolve())
    host.proc.kill('SIGKILL')
  })
}

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, { method, headers: AUTH, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: res.status, body: await res.json() as any } // reason: tests index into arbitrary JSON
}

interface Sent { name: string; kind: 'group' | 'layer'; id?: number }

function bodyOf(s: Sent, parent: number) {
  const resmeta = { items: { batch: 'crash', name: s.name, kind: s.kind } }
  return s.kind === 'group'
    ? { resource: { cls: 'resource_group', parent: { id: parent }, display_name: s.name }, resmeta }
    : { resource: { cls: 'vector_layer', parent: { id: parent }, display_name: s.name }, resmeta,
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: FIELDS } }
}

/** Fires writes from `lanes` concurrent clients until `stopAfter` are acknowledged, then SIGKILLs the host. */
async function writeUntilKilled(host: Host, parent: number, round: number, stopAfter: number): Promise<Sent[]> {
  const sent: Sent[] = []
  let acked = 0
  let killed: Promise<void> | undefined
  const lane = async (l: number) => {
    for (let i = 0; !killed; i++) {
      const s: Sent = { name: `r${round} lane${l} #${i}`, kind: (i + l) % 2 ? 'layer' : 'group' }
      sent.push(s)
      try {
        const res = await call(host.base, 'POST', '/api/resource/', bodyOf(s, parent))
        if (res.status === 201 && typeof res.body.id === 'number') {
          s.id = res.body.id
          if (++acked >= stopAfter) killed ??= kill(host)
        } else throw new Error(`unexpected answer ${res.status} ${JSON.stringify(res.body)}`)
      } catch (err) {
        if (!killed) throw err
        return // the connection died with the server: this write was not acknowledged
      }
    }
  }
  await Promise.all(Array.from({ length: 8 }, (_, l) => lane(l)))
  await killed
  // The kill came while writes were in flight, unanswered.
  expect(sent.length - acked).toBeGreaterThan(0)
  return sent
}

/** Checks one resource as read back after the restart: whole, with all its fields and resmeta. */
function expectWhole(got: any, s: Sent) { // reason: tests index into arbitrary JSON
  expect(got.resource.display_name).toBe(s.name)
  expect(got.resmeta).toEqual({ items: { batch: 'crash', kind: s.kind, name: s.name } })
  if (s.kind === 'layer') {
    expect(got.resource.cls).toBe('vector_layer')
    expect(got.vector_layer).toEqual({ srs: { id: 3857 }, geometry_type: 'POINT' })
    expect(got.feature_layer.fields.map((f: { keyname: string; datatype: string }) => [f.keyname, f.datatype]))
      .toEqual(FIELDS.map((f) => [f.keyname, f.datatype]))
  } else {
    expect(got.resource.cls).toBe('resource_group')
  }
}

const dirs: string[] = []
const hosts: Host[] = []
afterAll(async () => {
  for (const h of hosts) await kill(h)
  for (const d of dirs) await rm(d, { recursive: true, force: true })
})

describe('durability of the Node host', () => {
  it('SIGKILL in the middle of concurrent writes loses no acknowledged write and leaves none half-done', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outpost-crash-'))
    dirs.push(dir)
    let host = await startHost(dir)
    hosts.push(host)
    const parent = (await call(host.base, 'POST', '/api/resource/', { resource: { cls: 'resource_group', parent: { id: 0 }, display_name: 'crash test' } })).body.id as number
    const all: Sent[] = []
    for (const [round, stopAfter] of [[1, 25], [2, 60], [3, 7]] as const) {
      all.push(...await writeUntilKilled(host, parent, round, stopAfter))
      host = await startHost(dir)
      hosts.push(host)
      const acked = all.filter((s) => s.id !== undefined)
      expect(acked.length).toBeGreaterThanOrEqual([0, 25, 85, 92][round]!)
      // Every acknowledged write is there, whole.
      for (const s of acked) {
        const got = await call(host.base, 'GET', `/api/resource/${s.id}`)
        expect(got.status, s.name).toBe(200)
        expectWhole(got.body, s)
      }
      // Whatever else is there was sent, and is whole too (a write the server committed
      // just before it died, without answering); nothing is half-done.
      const children = (await call(host.base, 'GET', `/api/resource/?parent=${parent}`)).body as any[] // reason: JSON
      const byName = new Map(all.map((s) => [s.name, s]))
      for (const c of children) {
        const s = byName.get(c.resource.display_name)
        expect(s, c.resource.display_name).toBeDefined()
        if (s!.id !== undefined) expect(c.resource.id).toBe(s!.id)
        expectWhole((await call(host.base, 'GET', `/api/resource/${c.resource.id}`)).body, s!)
      }
      expect(children.length).toBeGreaterThanOrEqual(acked.length)
      expect(children.length).toBeLessThanOrEqual(all.length)
      console.info(`round ${round}: ${all.length} sent, ${acked.length} acknowledged, ${children.length} present after the restart`)
    }
    // The restarted server takes new writes.
    expect((await call(host.base, 'POST', '/api/resource/', bodyOf({ name: 'after the crashes', kind: 'layer' }, parent))).status).toBe(201)
  }, 120_000)
})
