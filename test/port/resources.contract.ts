/**
 * The resource tree in the data port's contract (sw/resource/repository.ts), run by
 * test/unit/port.test.ts through portContract's write modes (as is, and with `fn` replayed).
 * What a client notices is covered by the API cases; these pin what an implementation must
 * answer, including the tree's invariants as the original's 422s.
 */
import { describe, expect, it } from 'vitest'
import type { DataPort, MainWrite } from '../../sw/port/port.ts'
import type { NewResource } from '../../sw/resource/repository.ts'
import { ApiError } from '../../sw/core/error.ts'

const row = (id: number, parentId: number | null, displayName: string, more: Partial<NewResource> = {}): NewResource => ({
  id, cls: 'resource_group', parentId, keyname: null, displayName, description: null, ownerUserId: 4,
  creationDate: '2026-01-01T00:00:00', permissions: '[]', ...more,
})

/** root 0 → a 1 → b 2, root → c 3 (a vector layer with resmeta). */
async function tree(port: DataPort): Promise<void> {
  await port.unitOfWork(async (tx) => {
    await tx.resources.insert(row(0, null, 'Root'))
    await tx.resources.insert(row(1, 0, 'a', { keyname: 'key-a' }))
    await tx.resources.insert(row(2, 1, 'b'))
    await tx.resources.insert(row(3, 0, 'c', { cls: 'vector_layer' }))
    await tx.resources.setData(3, { versioning: { epoch: 7 } })
    await tx.resources.setResmeta(3, { color: 'red', n: 2, ok: true })
  })
}

/** The ApiError a unit of work ends with (and that it changed nothing is checked by the caller). */
async function refusal(port: DataPort, fn: (tx: MainWrite) => Promise<unknown>): Promise<ApiError> {
  const err = await port.unitOfWork(fn).catch((e: unknown) => e)
  expect(err).toBeInstanceOf(ApiError)
  return err as ApiError
}

const HIERARCHY = 'nextgisweb.resource.exception.HierarchyError'

export function resourcesContract(fresh: () => Promise<{ port: DataPort }>, mode: string): void {
  describe(`resources (${mode})`, () => {
    it('reads rows, refs, children, names, parents, subtrees and breadcrumbs', async () => {
      const { port } = await fresh()
      await tree(port)
      await port.read(async (tx) => {
        expect(await tx.resources.get(1)).toMatchObject({ id: 1, cls: 'resource_group', parent_id: 0, keyname: 'key-a', display_name: 'a', permissions: '[]' })
        expect(await tx.resources.get(99)).toBeUndefined()
        const refs = await tx.resources.refs([3, 99, 1])
        expect(refs.sort((x, y) => x.id - y.id)).toEqual([
          { id: 1, cls: 'resource_group', parentId: 0, displayName: 'a', data: {} },
          { id: 3, cls: 'vector_layer', parentId: 0, displayName: 'c', data: { versioning: { epoch: 7 } } },
        ])
        expect((await tx.resources.children(0)).sort((x, y) => x.id - y.id)).toEqual([{ id: 1, cls: 'resource_group' }, { id: 3, cls: 'vector_layer' }])
        expect([...(await tx.resources.names([3, 1])).entries()].sort()).toEqual([[1, 'a'], [3, 'c']])
        expect([await tx.resources.hasChildren(1), await tx.resources.hasChildren(2)]).toEqual([true, false])
        expect([await tx.resources.parentOf(0), await tx.resources.parentOf(2), await tx.resources.parentOf(99)]).toEqual([null, 1, undefined])
        const sub = await tx.resources.subtree(0)
        expect(sub.sort()).toEqual([0, 1, 2, 3])
        expect(sub.indexOf(2)).toBeGreaterThan(sub.indexOf(1))
        expect(await tx.resources.path(2)).toEqual([{ id: 0, display_name: 'Root' }, { id: 1, display_name: 'a' }])
        expect((await tx.resources.ofClass('vector_layer')).map((r) => r.id)).toEqual([3])
        expect(await tx.resources.resmeta(3)).toEqual({ color: 'red', n: 2, ok: true })
        expect(await tx.resources.maxDataNumber('versioning.epoch')).toBe(7)
      })
    })

    it('finds a taken keyname anywhere and a taken display name among siblings only', async () => {
      const { port } = await fresh()
      await tree(port)
      await port.read(async (tx) => {
        expect(await tx.resources.nameTaken({ keyname: 'key-a', exceptId: -1 })).toBe(1)
        expect(await tx.resources.nameTaken({ keyname: 'key-a', exceptId: 1 })).toBeUndefined()
        expect(await tx.resources.nameTaken({ parentId: 0, displayName: 'c', exceptId: -1 })).toBe(3)
        expect(await tx.resources.nameTaken({ parentId: 1, displayName: 'c', exceptId: -1 })).toBeUndefined()
      })
    })

    it('refuses a root moved or deleted, a cycle and a missing parent with the original 422s, changing nothing', async () => {
      const { port } = await fresh()
      await tree(port)
      expect((await refusal(port, (tx) => tx.resources.update(0, { parentId: 2 }))).exception).toBe(HIERARCHY)
      const cycle = await refusal(port, (tx) => tx.resources.update(1, { parentId: 2 }))
      expect([cycle.status, cycle.exception, cycle.message]).toEqual([422, HIERARCHY, 'A resource cannot be moved into itself or into one of its descendants.'])
      expect((await refusal(port, (tx) => tx.resources.insert(row(9, null, 'orphan')))).exception).toBe(HIERARCHY)
      // The root in a larger delete: the other ids stay too.
      expect((await refusal(port, (tx) => tx.resources.delete([2, 0]))).exception).toBe('nextgisweb.resource.exception.ResourceRootDeleteError')
      expect((await port.read((tx) => tx.resources.subtree(0))).sort()).toEqual([0, 1, 2, 3])
      expect(await port.read((tx) => tx.resources.parentOf(1))).toBe(0)
    })

    it('updates, moves and deletes; a delete takes the resmeta with it', async () => {
      const { port } = await fresh()
      await tree(port)
      await port.unitOfWork(async (tx) => {
        await tx.resources.update(2, { parentId: 0, displayName: 'b2', keyname: 'kb', description: 'd', ownerUserId: 5, permissions: '[1]', data: { x: 1 } })
        await tx.resources.setResmeta(3, { only: null })
      })
      expect(await port.read((tx) => tx.resources.get(2))).toMatchObject({ parent_id: 0, display_name: 'b2', keyname: 'kb', description: 'd',
        owner_user_id: 5, permissions: '[1]', data: '{"x":1}' })
      expect(await port.read((tx) => tx.resources.resmeta(3))).toEqual({ only: null })
      await port.unitOfWork((tx) => tx.resources.delete([3]))
      expect(await port.read(async (tx) => [await tx.resources.get(3), await tx.resources.resmeta(3)])).toEqual([undefined, {}])
    })

    it('reserved ids are never handed out again', async () => {
      const { port } = await fresh()
      await tree(port)
      const first = await port.unitOfWork((tx) => tx.resources.reserveIds(3))
      expect(first).toBe(4)
      expect(await port.unitOfWork((tx) => tx.resources.insert(row(undefined as never, 0, 'next')))).toBe(7)
    })

    it('searches by column, resmeta and subtree, in order, with a page and the total of all matches', async () => {
      const { port } = await fresh()
      await tree(port)
      const ids = (q: Parameters<MainWrite['resources']['search']>[0]) => port.read(async (tx) => {
        const { rows, total } = await tx.resources.search(q)
        return [rows.map((r) => r.id), total]
      })
      const base = { columns: [], resmeta: [], roots: [], order: [{ key: 'name' as const, desc: false }] }
      expect(await ids(base)).toEqual([[0, 1, 2, 3], 4])
      expect(await ids({ ...base, order: [{ key: 'name', desc: true }], page: { limit: 2, offset: 1 } })).toEqual([[2, 1], 4])
      expect(await ids({ ...base, columns: [{ column: 'cls', op: 'in', value: ['vector_layer'] }] })).toEqual([[3], 1])
      expect(await ids({ ...base, columns: [{ column: 'cls', op: 'in', value: [] }] })).toEqual([[], 0])
      expect(await ids({ ...base, columns: [{ column: 'parent_id', op: 'eq', value: 0 }] })).toEqual([[1, 3], 2])
      // like is case-sensitive with %/_ wildcards (GLOB's own specials are literal); ilike is not.
      expect(await ids({ ...base, columns: [{ column: 'keyname', op: 'like', value: 'key-_' }] })).toEqual([[1], 1])
      expect(await ids({ ...base, columns: [{ column: 'keyname', op: 'like', value: 'KEY%' }] })).toEqual([[], 0])
      expect(await ids({ ...base, columns: [{ column: 'keyname', op: 'ilike', value: 'KEY%' }] })).toEqual([[1], 1])
      expect(await ids({ ...base, resmeta: [{ key: 'color', op: 'has' }] })).toEqual([[3], 1])
      expect(await ids({ ...base, resmeta: [{ key: 'color', op: 'has_not' }] })).toEqual([[0, 1, 2], 3])
      expect(await ids({ ...base, resmeta: [{ key: 'n', op: 'eq', value: 2 }] })).toEqual([[3], 1])
      expect(await ids({ ...base, resmeta: [{ key: 'n', op: 'eq', value: '2' }] })).toEqual([[], 0])
      expect(await ids({ ...base, resmeta: [{ key: 'color', op: 'like', value: 'r%' }] })).toEqual([[3], 1])
      expect(await ids({ ...base, roots: [1] })).toEqual([[1, 2], 2])
      // A rank (`order=type` by the names answers use): the classes in its order, the id breaking ties; with a filter and a page.
      const rank = { key: 'type' as const, desc: false, rank: ['vector_layer', 'resource_group'] }
      expect(await ids({ ...base, order: [rank] })).toEqual([[3, 0, 1, 2], 4])
      expect(await ids({ ...base, order: [{ ...rank, desc: true }, { key: 'name', desc: true }], columns: [{ column: 'parent_id', op: 'eq', value: 0 }],
        page: { limit: 1, offset: 1 } })).toEqual([[3], 2])
    })

    it('writes a page of composite objects as JSON text and as its UTF-8 bytes, in the order asked', async () => {
      const { port } = await fresh()
      await tree(port)
      const classes = new Map([['resource_group', { identity: 'resource_group', tail: ',"interfaces":[],"scopes":["resource"]' }],
        ['vector_layer', { identity: 'vector_layer', tail: ',"interfaces":["IFeatureLayer"],"scopes":["data","resource"]' }]])
      const q = { ids: [3, 2], classes, full: true, members: new Map([[3, '"vector_layer":{"n":1}']]) }
      const [text, bytes] = await port.read(async (tx) => [await tx.resources.page(q), await tx.resources.pageBytes(q)] as const)
      expect(new TextDecoder().decode(bytes)).toBe(text)
      const page = JSON.parse(text) as Array<Record<string, any>>
      expect(page.map((p) => p.resource.id)).toEqual([3, 2])
      expect(page[0]).toEqual({
        resource: { id: 3, cls: 'vector_layer', creation_date: '2026-01-01T00:00:00', parent: { id: 0, parent: { id: null } },
          owner_user: { id: 4 }, permissions: [], keyname: null, display_name: 'c', description: null, children: false,
          interfaces: ['IFeatureLayer'], scopes: ['data', 'resource'] },
        resmeta: { items: { color: 'red', n: 2, ok: true } }, social: { image_exists: false, description: null }, vector_layer: { n: 1 },
      })
      expect(page[1]!.resource.parent).toEqual({ id: 1, parent: { id: 0 } })
      const short = JSON.parse(await port.read((tx) => tx.resources.page({ ids: [1], classes, full: false })))
      expect(short).toEqual([{ resource: expect.objectContaining({ id: 1, children: true }) }])
      expect(await port.read((tx) => tx.resources.page({ ids: [], classes, full: true }))).toBe('[]')
    })
  })
}
