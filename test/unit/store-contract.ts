/**
 * The storage port's contract (sw/store/store.ts), run by `store.test.ts` against every
 * store: MemoryStore, IdbStore over fake-indexeddb and the Node FileStore in a temporary
 * folder. A store that passes can carry the database.
 */
import { describe, expect, it } from 'vitest'
import { CHUNK_SIZE, type ImageSave, type Store } from '../../sw/store/store.ts'

export interface StoreUnderTest {
  /** A new, empty store. */
  fresh(): Promise<Store>
  /** Another instance over the same data as `store` (a restart), when the store persists. */
  reopen?(store: Store): Promise<Store>
}

/** An image of `size` bytes where byte i is (i * seed) & 255. */
function image(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size)
  for (let i = 0; i < size; i++) out[i] = (i * seed + (i >> 16)) & 255
  return out
}

/** What the database sends: the chunks that differ from `before`, and the whole image. */
function saveOf(before: Uint8Array, after: Uint8Array): ImageSave {
  const chunks = new Map<number, Uint8Array>()
  for (let i = 0; i * CHUNK_SIZE < after.length; i++) {
    const a = after.subarray(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE)
    const b = before.subarray(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE)
    if (a.length !== b.length || a.some((x, j) => x !== b[j])) chunks.set(i, a.slice())
  }
  return { size: after.length, chunks }
}

export function storeContract(name: string, sut: StoreUnderTest): void {
  describe(`store contract: ${name}`, () => {
    it('has no image or blob before anything is saved', async () => {
      const s = await sut.fresh()
      expect(await s.loadImage('main')).toBeUndefined()
      expect(await s.listImages()).toEqual([])
      expect(await s.getBlob('nothing')).toBeUndefined()
    })

    it('returns a saved image byte for byte, and a later save of some chunks only', async () => {
      const s = await sut.fresh()
      const v1 = image(3 * CHUNK_SIZE + 1234, 7)
      await s.saveImage('main', saveOf(new Uint8Array(0), v1))
      expect(await s.loadImage('main')).toEqual(v1)
      const v2 = v1.slice()
      v2[CHUNK_SIZE + 5] = 99
      v2[v2.length - 1] = 42
      const save = saveOf(v1, v2)
      expect([...save.chunks.keys()]).toEqual([1, 3])
      await s.saveImage('main', save)
      expect(await s.loadImage('main')).toEqual(v2)
    })

    it('grows and shrinks an image; chunks past the end are gone', async () => {
      const s = await sut.fresh()
      const big = image(5 * CHUNK_SIZE, 3)
      await s.saveImage('main', saveOf(new Uint8Array(0), big))
      const small = big.slice(0, CHUNK_SIZE + 10)
      await s.saveImage('main', saveOf(big, small))
      expect(await s.loadImage('main')).toEqual(small)
      const again = image(4 * CHUNK_SIZE, 5)
      await s.saveImage('main', saveOf(small, again))
      expect(await s.loadImage('main')).toEqual(again)
    })

    it('keeps images apart by name, lists and deletes them', async () => {
      const s = await sut.fresh()
      const a = image(CHUNK_SIZE + 1, 11)
      const b = image(100, 13)
      await s.saveImage('a', saveOf(new Uint8Array(0), a))
      await s.saveImage('b', saveOf(new Uint8Array(0), b))
      expect((await s.listImages()).sort()).toEqual(['a', 'b'])
      expect(await s.loadImage('a')).toEqual(a)
      expect(await s.loadImage('b')).toEqual(b)
      await s.deleteImage('a')
      expect(await s.loadImage('a')).toBeUndefined()
      expect(await s.listImages()).toEqual(['b'])
      await s.deleteImage('a')
    })

    it('stores blobs by id as private copies', async () => {
      const s = await sut.fresh()
      const data = image(1000, 17)
      await s.putBlob('upload-1', data)
      data[0] = 255 - data[0]!
      const got = await s.getBlob('upload-1')
      expect(got).toEqual(image(1000, 17))
      got![1] = 1
      expect(await s.getBlob('upload-1')).toEqual(image(1000, 17))
      await s.putBlob('upload-1', image(10, 19))
      expect(await s.getBlob('upload-1')).toEqual(image(10, 19))
      await s.deleteBlob('upload-1')
      expect(await s.getBlob('upload-1')).toBeUndefined()
    })

    it('writes a blob from a stream of chunks, whole or not at all', async () => {
      const s = await sut.fresh()
      // Past two of IndexedDB's 1 MiB parts; compared as Buffers (deep equality is slow at this size).
      const data = image(2 * 1024 * 1024 + 5, 37)
      const same = (got: Uint8Array | undefined, want: Uint8Array) => expect(!!got && Buffer.from(want).equals(got)).toBe(true)
      async function* pieces(upTo = data.length, fail = false) {
        for (let at = 0; at < upTo; at += 70_000) yield data.slice(at, Math.min(at + 70_000, upTo))
        if (fail) throw new Error('the client went away')
      }
      expect(await s.putBlobStream('up-1', pieces())).toBe(data.length)
      same(await s.getBlob('up-1'), data)
      // A failed stream leaves the blob as it was, and an unknown id stays unknown.
      await expect(s.putBlobStream('up-1', pieces(1_500_000, true))).rejects.toThrow('went away')
      await expect(s.putBlobStream('up-2', pieces(100, true))).rejects.toThrow('went away')
      same(await s.getBlob('up-1'), data)
      expect(await s.getBlob('up-2')).toBeUndefined()
      // Streams and whole writes replace one another; empty streams are empty blobs.
      await s.putBlobStream('up-1', pieces(10))
      same(await s.getBlob('up-1'), data.slice(0, 10))
      await s.putBlob('up-1', image(5, 3))
      same(await s.getBlob('up-1'), image(5, 3))
      await s.putBlobStream('up-1', pieces(1_100_000))
      same(await s.getBlob('up-1'), data.slice(0, 1_100_000))
      expect(await s.putBlobStream('empty', pieces(0))).toBe(0)
      same(await s.getBlob('empty'), new Uint8Array(0))
      await s.deleteBlob('up-1')
      expect(await s.getBlob('up-1')).toBeUndefined()
    })

    it('a saved image does not change when the caller reuses its buffers', async () => {
      const s = await sut.fresh()
      const v1 = image(2 * CHUNK_SIZE, 23)
      const save = saveOf(new Uint8Array(0), v1)
      await s.saveImage('main', save)
      for (const c of save.chunks.values()) c.fill(0)
      expect(await s.loadImage('main')).toEqual(v1)
    })

    if (sut.reopen) {
      it('everything saved is there after a restart', async () => {
        const s = await sut.fresh()
        const v1 = image(2 * CHUNK_SIZE + 77, 29)
        await s.saveImage('main', saveOf(new Uint8Array(0), v1))
        const v2 = v1.slice(0, CHUNK_SIZE + 3)
        v2[0] = 1
        await s.saveImage('main', saveOf(v1, v2))
        await s.putBlob('b1', image(50, 31))
        const again = await sut.reopen!(s)
        expect(await again.loadImage('main')).toEqual(v2)
        expect(await again.getBlob('b1')).toEqual(image(50, 31))
        expect(await again.listImages()).toEqual(['main'])
      })
    }
  })
}
