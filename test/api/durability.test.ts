import { afterAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NODE_ADMIN_PASSWORD } from './node-client.ts'
import { apiOf, kill, startHost, type Host } from './node-process.ts'
import { bodyOf, checkAfterRestart, type Sent } from './durability-shared.ts'

// Crash test of the Node host (ARCHITECTURE.md "Storage"): the real server process is
// killed with SIGKILL in the middle of concurrent writes, restarted on the same folder, and
// must hold every acknowledged write whole and no write half-done.

const AUTH = { authorization: 'Basic ' + Buffer.from(`administrator:${NODE_ADMIN_PASSWORD}`).toString('base64') }

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, { method, headers: AUTH, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: res.status, body: await res.json() as any } // reason: tests index into arbitrary JSON
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
      const present = await checkAfterRestart(apiOf(host.base), expect, parent, all)
      console.info(`round ${round}: ${all.length} sent, ${acked.length} acknowledged, ${present} present after the restart`)
    }
    // The restarted server takes new writes.
    expect((await call(host.base, 'POST', '/api/resource/', bodyOf({ name: 'after the crashes', kind: 'layer' }, parent))).status).toBe(201)
  }, 120_000)
})
