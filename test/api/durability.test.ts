import { afterAll, describe, expect, it } from 'vitest'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { NODE_ADMIN_AUTH } from './node-client.ts'
import { apiOf, kill, startHost, type Host } from './node-process.ts'
import { bodyOf, checkAfterRestart, checkFeatures, featureRequest, featureWrite, LAYER_FIELDS, seedBody, SEED_BATCH, type FeatureSent, type Sent } from './durability-shared.ts'

// Crash test of the Node host (ARCHITECTURE.md "Storage"): the real server process is
// killed with SIGKILL in the middle of concurrent writes, restarted on the same folder, and
// must hold every acknowledged write whole and no write half-done.

const AUTH = { authorization: NODE_ADMIN_AUTH }

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

/** Fires feature edits and batches from 6 lanes until `stopAfter` are acknowledged, then SIGKILLs the host. */
async function featureWritesUntilKilled(host: Host, layer: number, firstFid: number, round: number, stopAfter: number): Promise<FeatureSent[]> {
  const sent: FeatureSent[] = []
  let acked = 0
  let killed: Promise<void> | undefined
  const lane = async (l: number) => {
    for (let i = 0; !killed; i++) {
      const s = featureWrite(round, l, i, firstFid)
      sent.push(s)
      const req = featureRequest(s, layer)
      try {
        const res = await fetch(host.base + req.path, { method: req.method, headers: AUTH, body: req.body })
        await res.text()
        if (res.status !== 200) throw new Error(`unexpected answer ${res.status}`)
        s.acked = true
        if (++acked >= stopAfter) killed ??= kill(host)
      } catch (err) {
        if (!killed) throw err
        return
      }
    }
  }
  await Promise.all(Array.from({ length: 6 }, (_, l) => lane(l)))
  await killed
  expect(sent.filter((s) => !s.acked).length).toBeGreaterThan(0)
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

  it('SIGKILL in the middle of feature edits and batches in a large layer loses no acknowledged one and leaves none half-done', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'outpost-crash-'))
    dirs.push(dir)
    let host = await startHost(dir)
    hosts.push(host)
    const layer = (await call(host.base, 'POST', '/api/resource/', { resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: 'crash layer' },
      vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: LAYER_FIELDS } })).body.id as number
    const seeded = 4 * SEED_BATCH
    for (let from = 0; from < seeded; from += SEED_BATCH) {
      const res = await fetch(`${host.base}/api/resource/${layer}/feature/`, { method: 'PATCH', headers: AUTH, body: seedBody(from, SEED_BATCH) })
      expect(res.status).toBe(200)
      await res.text()
    }
    const firstFid = (await call(host.base, 'GET', `/api/resource/${layer}/feature/?limit=1&geom=no`)).body[0].id as number
    const all: FeatureSent[] = []
    for (const [round, stopAfter] of [[1, 40], [2, 15]] as const) {
      all.push(...await featureWritesUntilKilled(host, layer, firstFid, round, stopAfter))
      host = await startHost(dir)
      hosts.push(host)
      const features = (await call(host.base, 'GET', `/api/resource/${layer}/feature/?geom=no`)).body
      const present = checkFeatures(expect, features, seeded, firstFid, all)
      console.info(`round ${round}: ${all.length} sent, ${all.filter((s) => s.acked).length} acknowledged, ${present.edits} edits and ${present.batches} batches present`)
    }
    expect((await fetch(`${host.base}/api/resource/${layer}/feature/`, { method: 'PATCH', headers: AUTH, body: seedBody(0, 10) })).status).toBe(200)
  }, 120_000)
})
