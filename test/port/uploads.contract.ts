/**
 * The upload records' part of the data port's contract (sw/upload/repository.ts), run by
 * test/unit/port.test.ts through portContract's write modes (as is, and with `fn` replayed).
 */
import { describe, expect, it } from 'vitest'
import type { DataPort } from '../../sw/port/port.ts'
import type { UploadInfo } from '../../sw/upload/types.ts'

const T0 = new Date('2026-01-01T00:00:00.000Z')
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000)
const info = (id: string, size: number, more: Partial<UploadInfo> = {}): UploadInfo =>
  ({ id, size, received: size, incomplete: false, parts: [], ...more })

export function uploadsContract(fresh: () => Promise<{ port: DataPort }>, mode: string): void {
  describe(`uploads (${mode})`, () => {
    it('keeps what insert was given, answers it until it expires, and counts its bytes as pending', async () => {
      const { port } = await fresh()
      await port.unitOfWork(async (tx) => {
        await tx.uploads.insert(info('a', 10, { name: 'a.txt', mimeType: 'text/plain' }), at(0))
        await tx.uploads.insert(info('b', 32, { received: 0, incomplete: true }), at(5))
      })
      expect(await port.read((tx) => tx.uploads.get('a', at(0).toISOString()))).toEqual({ id: 'a', size: 10, name: 'a.txt',
        mime_type: 'text/plain', received: 10, parts: '[]', created: at(0).toISOString() })
      expect(await port.read((tx) => tx.uploads.get('b', at(0).toISOString()))).toMatchObject({ name: null, mime_type: null, received: 0 })
      // Made before `since`: expired, as if unknown.
      expect(await port.read((tx) => tx.uploads.get('a', at(1).toISOString()))).toBeUndefined()
      expect(await port.read((tx) => tx.uploads.get('nope', at(0).toISOString()))).toBeUndefined()
      expect(await port.read(async (tx) => [await tx.uploads.pendingBytes(at(0).toISOString()),
        await tx.uploads.pendingBytes(at(1).toISOString()), await tx.uploads.pendingBytes(at(9).toISOString())])).toEqual([42, 32, 0])
    })

    it('progress moves the offset and the parts, and sets the type only when one is given', async () => {
      const { port } = await fresh()
      const since = at(0).toISOString()
      await port.unitOfWork((tx) => tx.uploads.insert(info('t', 8, { received: 0, incomplete: true, mimeType: 'image/png' }), at(0)))
      await port.unitOfWork((tx) => tx.uploads.progress('t', 4, ['upload-t.0-aa']))
      expect(await port.read((tx) => tx.uploads.get('t', since))).toMatchObject({ received: 4, parts: '["upload-t.0-aa"]', mime_type: 'image/png' })
      await port.unitOfWork((tx) => tx.uploads.progress('t', 8, ['upload-t.0-aa', 'upload-t.4-bb'], 'text/csv'))
      expect(await port.read((tx) => tx.uploads.get('t', since))).toMatchObject({ received: 8, mime_type: 'text/csv',
        parts: '["upload-t.0-aa","upload-t.4-bb"]' })
    })

    it('holds sizes and offsets beyond 4 GiB', async () => {
      const { port } = await fresh()
      const big = 5 * 2 ** 30
      await port.unitOfWork(async (tx) => {
        await tx.uploads.insert(info('big', big, { received: 0, incomplete: true }), at(0))
        await tx.uploads.progress('big', big - 1, ['upload-big.0-aa'])
      })
      expect(await port.read((tx) => tx.uploads.get('big', at(0).toISOString()))).toMatchObject({ size: big, received: big - 1 })
      expect(await port.read((tx) => tx.uploads.pendingBytes(at(0).toISOString()))).toBe(big)
    })

    it('delete and a rolled-back insert leave no record', async () => {
      const { port } = await fresh()
      const since = at(0).toISOString()
      await port.unitOfWork((tx) => tx.uploads.insert(info('gone', 1), at(0)))
      await port.unitOfWork((tx) => tx.uploads.delete('gone'))
      await port.unitOfWork(async (tx) => { await tx.uploads.insert(info('lost', 1), at(0)); throw new Error('no') }).catch(() => undefined)
      expect(await port.read(async (tx) => [await tx.uploads.get('gone', since), await tx.uploads.get('lost', since)])).toEqual([undefined, undefined])
    })

    it('sweepExpired removes at most `limit` of the expired ones, oldest first, and names their blobs', async () => {
      const { port } = await fresh()
      await port.unitOfWork(async (tx) => {
        await tx.uploads.insert(info('old2', 1), at(2))
        await tx.uploads.insert(info('old1', 4, { parts: [] }), at(1))
        await tx.uploads.insert(info('new', 1), at(10))
      })
      await port.unitOfWork((tx) => tx.uploads.progress('old1', 4, ['upload-old1.0-aa', 'upload-old1.2-bb']))
      const since = at(5).toISOString()
      expect(await port.unitOfWork((tx) => tx.uploads.sweepExpired(since, 1))).toEqual(['upload-old1', 'upload-old1.0-aa', 'upload-old1.2-bb'])
      expect(await port.unitOfWork((tx) => tx.uploads.sweepExpired(since, 10))).toEqual(['upload-old2'])
      expect(await port.unitOfWork((tx) => tx.uploads.sweepExpired(since, 10))).toEqual([])
      const all = at(0).toISOString()
      expect(await port.read(async (tx) => [!!await tx.uploads.get('old1', all), !!await tx.uploads.get('old2', all),
        !!await tx.uploads.get('new', all)])).toEqual([false, false, true])
    })
  })
}
