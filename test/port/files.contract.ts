/**
 * The stored files' intent records in the data port's contract (sw/files/repository.ts), run
 * by test/unit/port.test.ts through portContract's write modes (as is, and with `fn` replayed).
 */
import { describe, expect, it } from 'vitest'
import type { DataPort } from '../../sw/port/port.ts'

const NOW = new Date('2026-01-01T00:00:00.000Z')
const byKey = <T extends { key: string }>(rows: T[]) => [...rows].sort((a, b) => a.key.localeCompare(b.key))

export function filesContract(fresh: () => Promise<{ port: DataPort }>, mode: string): void {
  describe(`file records (${mode})`, () => {
    it('a staged file is recorded until adopted; released ones are found by key until forgotten', async () => {
      const { port } = await fresh()
      await port.unitOfWork(async (tx) => {
        await tx.files.stage({ key: 'a', size: 10 }, NOW)
        await tx.files.stage({ key: 'b', size: 20 }, NOW)
      })
      expect(byKey(await port.read((tx) => tx.files.all()))).toEqual([{ key: 'a', size: 10 }, { key: 'b', size: 20 }])
      // Staged is not released.
      expect(await port.read((tx) => tx.files.released(['a', 'b']))).toEqual([])
      await port.unitOfWork((tx) => tx.files.adopt(['a']))
      expect(await port.read((tx) => tx.files.all())).toEqual([{ key: 'b', size: 20 }])
      // Released: an adopted file (no record) and a staged one (its record changes state).
      await port.unitOfWork((tx) => tx.files.release([{ key: 'a', size: 10 }, { key: 'b', size: 20 }]))
      expect(byKey(await port.read((tx) => tx.files.released(['a', 'b', 'c'])))).toEqual([{ key: 'a', size: 10 }, { key: 'b', size: 20 }])
      expect(await port.read((tx) => tx.files.released(['b']))).toEqual([{ key: 'b', size: 20 }])
      await port.unitOfWork((tx) => tx.files.forget(['a', 'b']))
      expect(await port.read((tx) => tx.files.all())).toEqual([])
    })

    it('a key released twice in one call is recorded once, as said last; sizes pass 4 GiB', async () => {
      const { port } = await fresh()
      const big = 5 * 2 ** 30
      await port.unitOfWork(async (tx) => {
        await tx.files.stage({ key: 'big', size: big }, NOW)
        await tx.files.release([{ key: 'x', size: 1 }, { key: 'x', size: 2 }])
      })
      expect(byKey(await port.read((tx) => tx.files.all()))).toEqual([{ key: 'big', size: big }, { key: 'x', size: 2 }])
      expect(await port.read((tx) => tx.files.released(['x', 'big']))).toEqual([{ key: 'x', size: 2 }])
    })

    it('a release in a rolled-back unit of work leaves no record', async () => {
      const { port } = await fresh()
      await port.unitOfWork(async (tx) => { await tx.files.release([{ key: 'x', size: 1 }]); throw new Error('no') }).catch(() => undefined)
      expect(await port.read((tx) => tx.files.released(['x']))).toEqual([])
    })
  })
}
