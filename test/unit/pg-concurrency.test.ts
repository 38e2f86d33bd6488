/**
 * The tree's invariants with two processes writing one PostgreSQL database at once (issue 23):
 * two ports (two pools, as two Node hosts) on the same URL. Units of work of every process run
 * one at a time under the main advisory lock (sw/postgres/uow.ts), so a move's cycle check sees
 * the other process's committed move; the second process hears of the first's commit on its
 * next `tokens.refresh()`.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { afterEach, describe, expect, it } from 'vitest'
import { openPostgresData, type PostgresPort } from '../../sw/postgres/port.ts'
import type { NewResource } from '../../sw/resource/repository.ts'
import { ApiError } from '../../sw/core/error.ts'
import { cluster } from '../pg/shared.ts'

const asyncLocal = new AsyncLocalStorage<unknown>()
const open = (url: string) => openPostgresData(url, { asyncContext: () => asyncLocal as AsyncLocalStorage<never> })
const opened: PostgresPort[] = []

afterEach(async () => { await Promise.all(opened.splice(0).map((p) => p.close())) })

const row = (id: number | undefined, parentId: number | null, displayName: string): NewResource => ({
  id, cls: 'resource_group', parentId, keyname: null, displayName, description: null, ownerUserId: 4,
  creationDate: '2026-01-01T00:00:00', permissions: '[]',
})

/** Two ports on one new database: the first made the root and `groups` groups under it (ids 1…groups). */
async function twoPorts(groups: number): Promise<[PostgresPort, PostgresPort]> {
  const url = await (await cluster()).database('conc')
  const [a, b] = await Promise.all([open(url), open(url)])
  opened.push(a, b)
  await a.unitOfWork(async (tx) => {
    await tx.resources.insert(row(0, null, 'Root'))
    for (let i = 1; i <= groups; i++) await tx.resources.insert(row(i, 0, `g${i}`))
  })
  return [a, b]
}

/** Moves `id` under `parent` as the service does: a read, a pause (another process may write meanwhile), the write. */
const move = (port: PostgresPort, id: number, parent: number) => port.unitOfWork(async (tx) => {
  await tx.resources.parentOf(parent)
  await new Promise((r) => setTimeout(r, 20))
  await tx.resources.update(id, { parentId: parent })
})

/** Every resource's walk up reaches the root without meeting itself. */
async function isTree(port: PostgresPort): Promise<boolean> {
  const parents = new Map((await port.pool.query<{ id: number; parent_id: number | null }>('SELECT id, parent_id FROM resource')).rows
    .map((r) => [r.id, r.parent_id]))
  for (const start of parents.keys()) {
    const seen = new Set<number>()
    for (let at: number | null | undefined = start; at !== 0; at = parents.get(at)) {
      if (at === null || at === undefined || seen.has(at)) return false
      seen.add(at)
    }
  }
  return true
}

describe('PostgreSQL: two processes on one database', () => {
  it('moving A under B in one and B under A in the other at once: one succeeds, the other gets the cycle 422, the tree stays a tree', async () => {
    const [a, b] = await twoPorts(6)
    // Three pairs of groups, each pair moved into each other from both sides at once.
    for (const [x, y] of [[1, 2], [3, 4], [5, 6]] as const) {
      const results = await Promise.allSettled([move(a, x, y), move(b, y, x)])
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
      const refused = (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason as ApiError
      expect(refused).toBeInstanceOf(ApiError)
      expect([refused.status, refused.exception, refused.message]).toEqual([422, 'nextgisweb.resource.exception.HierarchyError',
        'A resource cannot be moved into itself or into one of its descendants.'])
      const parents = await b.read(async (tx) => [await tx.resources.parentOf(x), await tx.resources.parentOf(y)])
      expect([[y, 0], [0, x]]).toContainEqual(parents)
    }
    expect(await isTree(a)).toBe(true)
    expect((await a.read((tx) => tx.resources.subtree(0))).sort()).toEqual([0, 1, 2, 3, 4, 5, 6])
  })

  it('the second process sees the first\'s commit at once after tokens.refresh(), its ACL token too', async () => {
    const [a, b] = await twoPorts(2)
    await b.tokens.refresh()
    const [mainBefore, aclBefore] = [b.tokens.current('main'), await b.read((tx) => tx.acl.token())]
    await a.unitOfWork((tx) => tx.resources.update(2, { parentId: 1 }))
    expect(b.tokens.current('main')).toBe(mainBefore)
    await b.tokens.refresh()
    expect(b.tokens.current('main')).not.toBe(mainBefore)
    expect(await b.read(async (tx) => [await tx.resources.parentOf(2), await tx.acl.token()])).toEqual([1, aclBefore + 1])
    expect((await b.read((tx) => tx.acl.changes(aclBefore))).map((c) => c.resourceId)).toEqual([2])
  })

  it('ids made and reserved by both at once are never the same', async () => {
    const [a, b] = await twoPorts(1)
    const made = await Promise.all([a, b, a, b].map((p, i) => p.unitOfWork(async (tx) => {
      const first = await tx.resources.reserveIds(3)
      const ids = [first, first + 1, first + 2]
      for (let k = 0; k < 3; k++) ids.push(await tx.resources.insert(row(undefined, 1, `n${i}-${k}`)))
      return ids
    })))
    const all = made.flat()
    expect(new Set(all).size).toBe(all.length)
  })
})
