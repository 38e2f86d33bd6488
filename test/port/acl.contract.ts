/**
 * What the permission evaluator reads (`AclRead`, sw/auth/repository.ts) in the data port's
 * contract, run by test/unit/port.test.ts: the change token and its log, a node's chain, the
 * subjects and the allow rules. The evaluation itself is the API cases' (permissions).
 */
import { describe, expect, it } from 'vitest'
import type { DataPort } from '../../sw/port/port.ts'
import type { NewResource } from '../../sw/resource/repository.ts'

const ALLOW_CREATE = { action: 'allow', principal: { id: 7 }, identity: '', scope: 'resource', permission: 'create', propagate: true }
const DENY_READ = { action: 'deny', principal: { id: 8 }, identity: '', scope: 'resource', permission: 'read', propagate: false }

const row = (id: number, parentId: number | null, permissions: unknown[] = []): NewResource => ({
  id, cls: 'resource_group', parentId, keyname: null, displayName: `r${id}`, description: null, ownerUserId: 4,
  creationDate: '2026-01-01T00:00:00', permissions: JSON.stringify(permissions),
})

export function aclContract(fresh: () => Promise<{ port: DataPort }>, mode: string): void {
  describe(`acl reads (${mode})`, () => {
    it('a node\'s chain is it and its ancestors; rows by id; missing ids left out', async () => {
      const { port } = await fresh()
      await port.unitOfWork(async (tx) => {
        await tx.resources.insert(row(0, null, [ALLOW_CREATE]))
        await tx.resources.insert(row(1, 0))
        await tx.resources.insert(row(2, 1, [DENY_READ]))
      })
      await port.read(async (tx) => {
        const chain = await tx.acl.chain(2)
        expect(chain.map((r) => r.id).sort()).toEqual([0, 1, 2])
        expect(chain.find((r) => r.id === 2)).toEqual({ id: 2, parent_id: 1, cls: 'resource_group', permissions: JSON.stringify([DENY_READ]) })
        expect(await tx.acl.chain(99)).toEqual([])
        expect((await tx.acl.rows([2, 99, 0])).map((r) => r.id).sort()).toEqual([0, 2])
        expect(await tx.acl.rows([1])).toEqual([{ id: 1, parent_id: 0, cls: 'resource_group', permissions: '[]' }])
        expect(await tx.acl.allowRules()).toEqual([ALLOW_CREATE])
      })
    })

    it('the token moves with a rule change, a move and a membership change, and the log names the resources', async () => {
      const { port } = await fresh()
      await port.unitOfWork(async (tx) => {
        await tx.resources.insert(row(0, null))
        await tx.resources.insert(row(1, 0))
        await tx.resources.insert(row(2, 0))
      })
      const before = await port.read((tx) => tx.acl.token())
      // A change that touches no rule, parent or class keeps the token (caches stay).
      await port.unitOfWork((tx) => tx.resources.setData(1, { x: 1 }))
      expect(await port.read((tx) => tx.acl.token())).toBe(before)
      await port.unitOfWork((tx) => tx.resources.update(1, { permissions: JSON.stringify([DENY_READ]) }))
      await port.unitOfWork((tx) => tx.resources.update(2, { parentId: 1 }))
      const after = await port.read((tx) => tx.acl.token())
      expect(after).toBeGreaterThan(before)
      const changes = await port.read((tx) => tx.acl.changes(before))
      expect(changes.length).toBe(after - before)
      expect(changes.map((c) => c.resourceId)).toEqual([1, 2])
      expect(changes[1]!.row).toEqual({ id: 2, parent_id: 1, cls: 'resource_group', permissions: '[]' })
      // A deleted resource is logged with no row.
      await port.unitOfWork((tx) => tx.resources.delete([2]))
      expect((await port.read((tx) => tx.acl.changes(after))).at(-1)).toEqual({ resourceId: 2, row: null })
      // A write inside a unit of work is seen by its own token read.
      await port.unitOfWork(async (tx) => {
        const t = await tx.acl.token()
        await tx.resources.update(1, { permissions: '[]' })
        expect(await tx.acl.token()).toBeGreaterThan(t)
      })
    })

    it('subjects: the system principals by keyname and every membership', async () => {
      const { port } = await fresh()
      await port.unitOfWork(async (tx) => {
        for (const [id, keyname] of [[1, 'everyone'], [2, 'authenticated'], [3, 'guest']] as const) {
          await tx.principals.insert({ id, cls: 'G', keyname, displayName: keyname, description: null, system: true })
        }
        const user = await tx.principals.insert({ cls: 'U', keyname: 'u', displayName: 'U', description: null })
        const group = await tx.principals.insert({ cls: 'G', keyname: 'g', displayName: 'G', description: null })
        await tx.principals.setLinks('U', user, [group])
      })
      const { system, memberships } = await port.read((tx) => tx.acl.subjects())
      expect(system).toEqual({ everyone: 1, authenticated: 2, guest: 3 })
      expect(memberships).toHaveLength(1)
    })
  })
}
