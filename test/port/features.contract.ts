/**
 * The feature ports' contract (sw/feature/types.ts): what any implementation of a feature
 * layer answers, whatever keeps its features. Run by test/unit/features-port.test.ts against
 * the SQLite layer (classes/vector_layer) and the array layer (test/port/array-features.ts).
 * `make` gives a fresh, empty layer with two fields: `name` (STRING) and `n` (INTEGER).
 */
import { describe, expect, it } from 'vitest'
import type { Condition, FeatureFilter, FeatureInput, FeatureLayer, FieldValue, RowShape } from '../../sw/feature/types.ts'
import { bboxOf, type Geometry } from '../../sw/geo/geometry.ts'

const point = (x: number, y: number): Geometry => ({ type: 'Point', coordinates: [x, y] })

export function featuresContract(name: string, make: () => Promise<FeatureLayer>): void {
  describe(`feature ports: ${name}`, () => {
    const fieldsOf = (layer: FeatureLayer) => {
      const by = (k: string) => layer.meta.fields.find((f) => f.keyname === k)!
      return { name: by('name'), n: by('n') }
    }
    const input = (layer: FeatureLayer, geom: Geometry | null, name: FieldValue, n: FieldValue): FeatureInput => {
      const f = fieldsOf(layer)
      // With its box, as the request parser gives it (feature/input.ts).
      return { geom, bbox: geom && bboxOf(geom), fields: [f.name, f.n], values: [name, n] }
    }
    const shape = (layer: FeatureLayer, geom = true): RowShape => ({ geom, fields: layer.meta.fields, label: false, description: false })
    /** A layer with three features: fids in creation order. */
    const seeded = async () => {
      const layer = await make()
      const fids = await layer.write((tx) => tx.createMany([
        input(layer, point(1, 2), 'b', 1), input(layer, point(5, 6), 'a', 2), input(layer, null, 'c', 3)]))
      return { layer, fids }
    }

    it('creates in one call and reads back: list, count, extent, exists, geometry', async () => {
      const { layer, fids } = await seeded()
      expect(fids).toHaveLength(3)
      expect(new Set(fids).size).toBe(3)
      const { name, n } = fieldsOf(layer)
      const rows = await layer.read((tx) => tx.list({}, shape(layer)))
      expect(rows.map((r) => r.fid)).toEqual(fids)
      expect(rows.map((r) => [r.geom, r.values[layer.meta.fields.indexOf(name)], Number(r.values[layer.meta.fields.indexOf(n)])]))
        .toEqual([[point(1, 2), 'b', 1], [point(5, 6), 'a', 2], [null, 'c', 3]])
      expect(await layer.read(async (tx) => [await tx.count(), await tx.extent(), await tx.exists(fids[1]!), await tx.exists(999),
        await tx.geometry(fids[0]!), await tx.geometry(fids[2]!), await tx.geometry(999)]))
        .toEqual([3, [1, 2, 5, 6], true, false, point(1, 2), null, undefined])
      // One more through `create`: the next fid.
      const more = await layer.write((tx) => tx.create(input(layer, point(0, 0), 'd', 4)))
      expect(more).toBeGreaterThan(fids[2]!)
      expect(await layer.read((tx) => tx.count())).toBe(4)
    })

    it('filters, orders and pages', async () => {
      const { layer, fids } = await seeded()
      const { name } = fieldsOf(layer)
      const eq = { conditions: [{ field: name, op: 'eq' as const, value: 'a' }], filtered: true }
      const inFids = { conditions: [{ field: null, op: 'in' as const, value: [fids[0]!, fids[2]!] }], filtered: true }
      const box = { conditions: [], intersects: { type: 'Polygon', coordinates: [[[4, 5], [7, 5], [7, 7], [4, 7], [4, 5]]] } as Geometry, filtered: true }
      expect(await layer.read(async (tx) => [
        (await tx.list({ filter: eq }, shape(layer, false))).map((r) => r.fid),
        (await tx.list({ filter: inFids }, shape(layer, false))).map((r) => r.fid),
        (await tx.list({ filter: box }, shape(layer, false))).map((r) => r.fid),
        (await tx.list({ order: [{ field: name, desc: false }] }, shape(layer, false))).map((r) => r.fid),
        (await tx.list({ order: [{ field: name, desc: true }], limit: 1, offset: 1 }, shape(layer, false))).map((r) => r.fid),
        (await tx.list({ fid: fids[1] }, shape(layer, false))).map((r) => r.fid),
        await tx.count(eq), await tx.extent(inFids),
      ])).toEqual([[fids[1]], [fids[0], fids[2]], [fids[1]], [fids[1], fids[0], fids[2]], [fids[0]], [fids[1]], 1, [1, 2, 1, 2]])
    })

    it('updates and deletes; false for a feature that is not there', async () => {
      const { layer, fids } = await seeded()
      const { name } = fieldsOf(layer)
      expect(await layer.write(async (tx) => [
        await tx.update(fids[0]!, { geom: point(9, 9), bbox: [9, 9, 9, 9], fields: [name], values: ['z'] }),
        await tx.update(999, { fields: [name], values: ['y'] }),
        await tx.delete(fids[1]!), await tx.delete(fids[1]!),
      ])).toEqual([true, false, true, false])
      const rows = await layer.read((tx) => tx.list({}, shape(layer)))
      expect(rows.map((r) => [r.fid, r.geom, r.values[layer.meta.fields.indexOf(name)]]))
        .toEqual([[fids[0], point(9, 9), 'z'], [fids[2], null, 'c']])
      await layer.write((tx) => tx.deleteAll())
      expect(await layer.read(async (tx) => [await tx.count(), await tx.extent()])).toEqual([0, null])
    })

    it('creates features setting different fields in one call (the rest null), keeps descriptions, updates only what is given', async () => {
      const layer = await make()
      const { name, n } = fieldsOf(layer)
      const fids = await layer.write((tx) => tx.createMany([
        { geom: null, fields: [name], values: ['only name'], description: 'about it' },
        { geom: point(1, 1), bbox: [1, 1, 1, 1], fields: [n], values: [5] },
        { geom: null, fields: [], values: [] }]))
      expect(fids).toEqual([...fids].sort((a, b) => a - b))
      const full = { geom: true, fields: [name, n], label: false, description: true }
      const read = () => layer.read(async (tx) => (await tx.list({}, full))
        .map((r) => [r.geom, r.values.map((v) => (v === null ? v : String(v))), r.description]))
      expect(await read()).toEqual([[null, ['only name', null], 'about it'], [point(1, 1), [null, '5'], null], [null, [null, null], null]])
      await layer.write(async (tx) => {
        await tx.update(fids[0]!, { fields: [], values: [], description: null })
        await tx.update(fids[1]!, { geom: null, bbox: null, fields: [], values: [] })
        await tx.update(fids[2]!, { fields: [n], values: [7], description: 'new' })
      })
      expect(await read()).toEqual([[null, ['only name', null], null], [null, [null, '5'], null], [null, [null, '7'], 'new']])
      expect(await layer.read((tx) => tx.extent())).toBeNull()
    })

    it('compares and orders as SQL: NULLs last ascending and first descending, strings by code point, ilike folding Unicode', async () => {
      const layer = await make()
      const { name, n } = fieldsOf(layer)
      const fids = await layer.write((tx) => tx.createMany([
        input(layer, null, 'Ärger', 10), input(layer, null, 'apple', 9), input(layer, null, null, null), input(layer, null, 'Zebra', -1)]))
      const [arger, apple, none, zebra] = fids as [number, number, number, number]
      const where = (field: typeof name | null, op: Condition['op'], value: Condition['value']): FeatureFilter =>
        ({ conditions: [{ field, op, value }], filtered: true })
      const no = shape(layer, false)
      expect(await layer.read(async (tx) => [
        (await tx.list({ order: [{ field: name, desc: false }] }, no)).map((r) => r.fid),
        (await tx.list({ order: [{ field: name, desc: true }] }, no)).map((r) => r.fid),
        (await tx.list({ order: [{ field: n, desc: false }] }, no)).map((r) => r.fid),
        (await tx.list({ filter: where(name, 'ilike', 'ä%') }, no)).map((r) => r.fid),
        (await tx.list({ filter: where(name, 'ne', 'apple') }, no)).map((r) => r.fid),
        (await tx.list({ filter: where(n, 'isnull', true) }, no)).map((r) => r.fid),
        await tx.count(where(n, 'gt', 5)), await tx.count(where(name, 'isnull', false)),
      ])).toEqual([[zebra, apple, arger, none], [none, arger, apple, zebra], [zebra, apple, arger, none], [arger], [arger, zebra],
        [none], 2, 3])
    })

    it('a write that throws keeps nothing of it', async () => {
      const { layer, fids } = await seeded()
      await expect(layer.write(async (tx) => {
        await tx.delete(fids[0]!)
        await tx.createMany([input(layer, point(3, 3), 'x', 9)])
        throw new Error('changed my mind')
      })).rejects.toThrow('changed my mind')
      expect(await layer.read(async (tx) => (await tx.list({}, shape(layer, false))).map((r) => r.fid))).toEqual(fids)
    })

    it('keeps attachments: add, list, change (the old file an orphan), remove', async () => {
      const { layer, fids } = await seeded()
      const [a, b] = [fids[0]!, fids[1]!]
      const file = (blobId: string) => ({ blobId, size: 3, fileMeta: {} })
      const ids = await layer.write(async (tx) => [
        await tx.addAttachment(a, { name: 'one.txt', mime_type: 'text/plain' }, file('blob-1')),
        await tx.addAttachment(a, { name: 'two.txt', mime_type: 'text/plain', keyname: 'k' }, file('blob-2')),
        await tx.addAttachment(b, { name: 'three.txt', mime_type: 'text/plain' }, file('blob-3'))])
      const all = await layer.read((tx) => tx.attachments())
      expect([...all.keys()].sort()).toEqual([a, b].sort())
      expect(all.get(a)!.map((r) => [r.id, r.name, r.keyname, r.blob_id, r.size])).toEqual([
        [ids[0], 'one.txt', null, 'blob-1', 3], [ids[1], 'two.txt', 'k', 'blob-2', 3]])
      expect((await layer.read((tx) => tx.attachments([b]))).get(b)!.map((r) => r.id)).toEqual([ids[2]])
      expect(await layer.read((tx) => tx.attachment(b, ids[0]!))).toBeUndefined()
      const orphans = await layer.write(async (tx) => {
        await tx.changeAttachment((await tx.attachment(a, ids[0]!))!, { description: 'new' }, file('blob-4'))
        await tx.removeAttachment((await tx.attachment(b, ids[2]!))!)
        return [...tx.orphanBlobs]
      })
      expect(orphans.sort()).toEqual(['blob-1', 'blob-3'])
      expect(await layer.read((tx) => tx.attachment(a, ids[0]!))).toMatchObject({ name: 'one.txt', description: 'new', blob_id: 'blob-4' })
      expect((await layer.read((tx) => tx.attachments())).get(b)).toBeUndefined()
    })

    it('moves its token with each write, and refuses a tx used after its read or write', async () => {
      const { layer } = await seeded()
      const before = layer.token?.()
      let leaked: Parameters<Parameters<FeatureLayer['write']>[0]>[0] | undefined
      await layer.write(async (tx) => { leaked = tx; await tx.create(input(layer, null, 'x', 0)) })
      if (before !== undefined) expect(layer.token!()).not.toBe(before)
      await expect(leaked!.count()).rejects.toThrow()
      await expect(leaked!.create(input(layer, null, 'y', 0))).rejects.toThrow()
      expect(await layer.read((tx) => tx.count())).toBe(4)
      // Without versioning, a history answers none (or there is no history at all).
      expect(await layer.read(async (tx) => tx.history ? tx.history.versioning() : undefined)).toBeUndefined()
    })
  })
}

