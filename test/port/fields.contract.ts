/**
 * The vector layers' field lists in the data port's contract (FieldRead/FieldWrite of
 * sw/port/features.ts), run by test/unit/port.test.ts through portContract's write modes (as
 * is, and with `fn` replayed). The implementation under test makes the layers' resource rows
 * (`PortUnderTest.layer`) until the resources' repository (WP-A) lets the contract make them.
 */
import { describe, expect, it } from 'vitest'
import type { DataPort } from '../../sw/port/port.ts'
import type { NewField } from '../../sw/port/features.ts'

const field = (keyname: string, more: Partial<NewField> = {}): NewField => ({ keyname, display_name: keyname.toUpperCase(),
  datatype: 'STRING', label_field: false, grid_visibility: true, text_search: true, lookup_table: null, ...more })

export function fieldsContract<P extends DataPort>(fresh: () => Promise<{ p: P; port: DataPort }>, mode: string, layer: (p: P) => Promise<number>): void {
  describe(`layer fields (${mode})`, () => {
    it('keeps a layer\'s fields in their order with their flags, and tells whose a field is', async () => {
      const { p, port } = await fresh()
      const LAYER = await layer(p)
      expect(await port.read((tx) => tx.fields.nextIdx(LAYER))).toBe(0)
      await port.unitOfWork(async (tx) => {
        await tx.fields.insert(LAYER, 1, field('b', { datatype: 'INTEGER', label_field: true, grid_visibility: false }))
        await tx.fields.insert(LAYER, 0, field('a', { text_search: false }))
      })
      const list = (await port.read((tx) => tx.fields.list([LAYER, 999]))).get(LAYER)!
      expect(list.map((f) => [f.keyname, f.display_name, f.datatype, f.label_field, f.grid_visibility, f.text_search, f.lookup_table]))
        .toEqual([['a', 'A', 'STRING', false, true, false, null], ['b', 'B', 'INTEGER', true, false, true, null]])
      expect(await port.read((tx) => tx.fields.list([999]))).toEqual(new Map())
      expect(await port.read((tx) => tx.fields.nextIdx(LAYER))).toBe(2)
      const [a, b] = list
      expect(await port.read(async (tx) => [await tx.fields.datatype(LAYER, b!.id), await tx.fields.datatype(999, b!.id)]))
        .toEqual(['INTEGER', undefined])
      expect(a!.id).not.toBe(b!.id)
    })

    it('changes only what a patch names, deletes, and finds a shared keyname or display name', async () => {
      const { p, port } = await fresh()
      const LAYER = await layer(p)
      await port.unitOfWork(async (tx) => {
        await tx.fields.insert(LAYER, 0, field('a'))
        await tx.fields.insert(LAYER, 1, field('b'))
      })
      const [a, b] = (await port.read((tx) => tx.fields.list([LAYER]))).get(LAYER)!
      await port.unitOfWork((tx) => tx.fields.update(a!.id, { display_name: 'Alpha', label_field: true, lookup_table: LAYER }))
      const changed = (await port.read((tx) => tx.fields.list([LAYER]))).get(LAYER)![0]!
      expect(changed).toMatchObject({ id: a!.id, keyname: 'a', display_name: 'Alpha', label_field: true, grid_visibility: true, lookup_table: { id: LAYER } })
      expect(await port.read((tx) => tx.fields.duplicate(LAYER))).toBeUndefined()
      await port.unitOfWork((tx) => tx.fields.update(b!.id, { display_name: 'Alpha' }))
      expect(await port.read((tx) => tx.fields.duplicate(LAYER))).toEqual({ column: 'display_name', value: 'Alpha' })
      await port.unitOfWork((tx) => tx.fields.update(b!.id, { keyname: 'a' }))
      expect(await port.read((tx) => tx.fields.duplicate(LAYER))).toEqual({ column: 'keyname', value: 'a' })
      await port.unitOfWork((tx) => tx.fields.delete(b!.id))
      expect((await port.read((tx) => tx.fields.list([LAYER]))).get(LAYER)!.map((f) => f.id)).toEqual([a!.id])
    })

    it('reserves ids no field gets afterwards, and a field made with a reserved id keeps it', async () => {
      const { p, port } = await fresh()
      const LAYER = await layer(p)
      const first = await port.unitOfWork((tx) => tx.fields.reserveIds(3))
      const again = await port.unitOfWork((tx) => tx.fields.reserveIds(2))
      expect(again).toBe(first + 3)
      await port.unitOfWork(async (tx) => {
        await tx.fields.insert(LAYER, 0, field('kept', { id: first + 1 }))
        await tx.fields.insert(LAYER, 1, field('new'))
      })
      const ids = (await port.read((tx) => tx.fields.list([LAYER]))).get(LAYER)!.map((f) => f.id)
      expect(ids[0]).toBe(first + 1)
      expect(ids[1]).toBeGreaterThanOrEqual(again + 2)
    })

    it('a rolled-back unit of work leaves no field and no reservation', async () => {
      const { p, port } = await fresh()
      const LAYER = await layer(p)
      const before = await port.unitOfWork((tx) => tx.fields.reserveIds(0))
      await port.unitOfWork(async (tx) => {
        await tx.fields.insert(LAYER, 0, field('gone'))
        await tx.fields.reserveIds(5)
        throw new Error('no')
      }).catch(() => undefined)
      expect(await port.read((tx) => tx.fields.list([LAYER]))).toEqual(new Map())
      expect(await port.unitOfWork((tx) => tx.fields.reserveIds(0))).toBe(before)
    })
  })
}
