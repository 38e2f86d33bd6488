/**
 * The storage port's contract (sw/store/store.ts), run by `store.test.ts` against every
 * store: MemoryStore, IdbStore over fake-indexeddb and the Node FileStore in a temporary
 * folder. A store that passes can carry the database: its files read back what was written
 * at any offset, a commit is what a reopen finds, names stay apart, blobs are kept by id.
 */
import { describe, expect, it } from 'vitest'
import type { DatabaseFile, Store } from '../../sw/store/store.ts'

export interface StoreUnderTest {
  /** A new, empty store. */
  fresh(): Promise<Store>
  /** Another instance over the same data as `store` (a restart), when the store persists. */
  reopen?(store: Store): Promise<Store>
}

/** `size` bytes where byte i is a function of i and `seed`. */
export function pattern(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size)
  for (let i = 0; i < size; i++) out[i] = (i * seed + (i >> 12)) & 255
  return out
}

/** The whole content of `file`. */
export function contentOf(file: DatabaseFile): Uint8Array {
  const out = new Uint8Array(file.size())
  expect(file.read(out, 0)).toBe(out.length)
  return out
}

/** Byte equality without vitest's slow deep diff of megabytes. */
export function same(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.length).toBe(expected.length)
  expect(Buffer.compare(Buffer.from(actual), Buffer.from(expected))).toBe(0)
}

/** Writes `data` at `offset` into `file` and into the expected copy `model`. */
function writeBoth(file: DatabaseFile, model: { bytes: Uint8Array }, data: Uint8Array, offset: number): void {
  file.write(data, offset)
  if (offset + data.length > model.bytes.length) {
    const grown = new Uint8Array(offset + data.length)
    grown.set(model.bytes)
    model.bytes = grown
  }
  model.bytes.set(data, offset)
}

export function storeContract(name: string, sut: StoreUnderTest): void {
  describe(`store contract: ${name}`, () => {
    it('has no database or blob before anything is saved', async () => {
      const s = await sut.fresh()
      expect(await s.listDatabases()).toEqual([])
      expect(await s.getBlob('nothing')).toBeUndefined()
      const f = await s.openDatabase('main')
      expect(f.size()).toBe(0)
      expect(f.read(new Uint8Array(10), 0)).toBe(0)
      f.close()
    })

    it('reads back what was written at any offset, across blocks and segments, after a reopen', async () => {
      const s = await sut.fresh()
      const model = { bytes: new Uint8Array(0) }
      let f = await s.openDatabase('main')
      writeBoth(f, model, pattern(3 * 2 ** 20 + 1234, 7), 0)
      await f.commit()
      // Small writes at odd places: inside a block, across two blocks, across a segment edge.
      writeBoth(f, model, pattern(100, 3), 5000)
      writeBoth(f, model, pattern(4096, 5), 4096 * 7 + 2000)
      writeBoth(f, model, pattern(10_000, 9), 2 ** 20 - 5000)
      same(contentOf(f), model.bytes)
      await f.commit()
      f.close()
      f = await s.openDatabase('main')
      same(contentOf(f), model.bytes)
      expect(await s.listDatabases()).toEqual(['main'])
      f.close()
    })

    it('grows and shrinks a file; what is past the end is gone', async () => {
      const s = await sut.fresh()
      let f = await s.openDatabase('main')
      f.write(pattern(5 * 2 ** 20, 3), 0)
      await f.commit()
      f.truncate(2 ** 20 + 10)
      await f.commit()
      f.close()
      f = await s.openDatabase('main')
      same(contentOf(f), pattern(5 * 2 ** 20, 3).subarray(0, 2 ** 20 + 10))
      // Growing again: the gap reads as zeros, not as the old bytes.
      f.write(pattern(10, 1), 3 * 2 ** 20)
      await f.commit()
      f.close()
      f = await s.openDatabase('main')
      const c = contentOf(f)
      expect(c.length).toBe(3 * 2 ** 20 + 10)
      expect(c.subarray(2 ** 20 + 10, 3 * 2 ** 20).every((b) => b === 0)).toBe(true)
      same(c.subarray(3 * 2 ** 20), pattern(10, 1))
      f.close()
    })

    it('keeps databases apart by name, lists and deletes them', async () => {
      const s = await sut.fresh()
      for (const [n, seed] of [['a', 11], ['b', 13]] as const) {
        const f = await s.openDatabase(n)
        f.write(pattern(70_000, seed), 0)
        await f.commit()
        f.close()
      }
      expect((await s.listDatabases()).sort()).toEqual(['a', 'b'])
      const b = await s.openDatabase('b')
      same(contentOf(b), pattern(70_000, 13))
      b.close()
      await s.deleteDatabase('a')
      expect(await s.listDatabases()).toEqual(['b'])
      const a = await s.openDatabase('a')
      expect(a.size()).toBe(0)
      a.close()
      await s.deleteDatabase('nothing')
    })

    blobContract(async () => sut.fresh())

    it('a written buffer can be reused by the caller: the file keeps its own copy', async () => {
      const s = await sut.fresh()
      const f = await s.openDatabase('main')
      const buf = pattern(8192, 23)
      f.write(buf, 0)
      await f.commit()
      buf.fill(0)
      same(contentOf(f), pattern(8192, 23))
      f.close()
    })

    if (sut.reopen) {
      it('everything committed is there after a restart', async () => {
        const s = await sut.fresh()
        const f = await s.openDatabase('main')
        f.write(pattern(2 * 2 ** 20 + 77, 29), 0)
        await f.commit()
        f.write(pattern(4096, 31), 4096 * 300)
        f.truncate(2 ** 20 + 3)
        await f.commit()
        await s.putBlob('b1', pattern(50, 31))
        const expected = contentOf(f)
        f.close()
        const again = await sut.reopen!(s)
        const g = await again.openDatabase('main')
        same(contentOf(g), expected)
        expect(await again.getBlob('b1')).toEqual(pattern(50, 31))
        expect(await again.listDatabases()).toEqual(['main'])
        g.close()
      })
    }
  })
}

/** The blob half of a store (`Store`, and the data port's `blobs`): kept by id, whole or not at all. */
export function blobContract(fresh: () => Promise<Pick<Store, 'putBlob' | 'putBlobStream' | 'getBlob' | 'deleteBlob' | 'listBlobs'>>): void {
  it('stores blobs by id as private copies', async () => {
    const s = await fresh()
    const data = pattern(1000, 17)
    await s.putBlob('upload-1', data)
    data[0] = 255 - data[0]!
    const got = await s.getBlob('upload-1')
    expect(got).toEqual(pattern(1000, 17))
    got![1] = 1
    expect(await s.getBlob('upload-1')).toEqual(pattern(1000, 17))
    await s.putBlob('upload-1', pattern(10, 19))
    expect(await s.getBlob('upload-1')).toEqual(pattern(10, 19))
    await s.deleteBlob('upload-1')
    expect(await s.getBlob('upload-1')).toBeUndefined()
  })

  it('lists blobs by id prefix; a failed stream leaves nothing listed', async () => {
    const s = await fresh()
    for (const id of ['upload-a', 'upload-b.0-ff', 'attachment-1']) await s.putBlob(id, pattern(10, 3))
    await expect(s.putBlobStream('upload-c', (async function* () { yield pattern(100, 1); throw new Error('went away') })())).rejects.toThrow('went away')
    expect((await s.listBlobs('upload-')).sort()).toEqual(['upload-a', 'upload-b.0-ff'])
    expect(await s.listBlobs('nothing-')).toEqual([])
    await s.deleteBlob('upload-a')
    expect(await s.listBlobs('upload-')).toEqual(['upload-b.0-ff'])
  })

  it('writes a blob from a stream of chunks, whole or not at all', async () => {
    const s = await fresh()
    // Past two of IndexedDB's 1 MiB parts; compared as Buffers (deep equality is slow at this size).
    const data = pattern(2 * 1024 * 1024 + 5, 37)
    const sameBlob = (got: Uint8Array | undefined, want: Uint8Array) => expect(!!got && Buffer.from(want).equals(got)).toBe(true)
    async function* pieces(upTo = data.length, fail = false) {
      for (let at = 0; at < upTo; at += 70_000) yield data.slice(at, Math.min(at + 70_000, upTo))
      if (fail) throw new Error('the client went away')
    }
    expect(await s.putBlobStream('up-1', pieces())).toBe(data.length)
    sameBlob(await s.getBlob('up-1'), data)
    // A failed stream leaves the blob as it was, and an unknown id stays unknown.
    await expect(s.putBlobStream('up-1', pieces(1_500_000, true))).rejects.toThrow('went away')
    await expect(s.putBlobStream('up-2', pieces(100, true))).rejects.toThrow('went away')
    sameBlob(await s.getBlob('up-1'), data)
    expect(await s.getBlob('up-2')).toBeUndefined()
    // Streams and whole writes replace one another; empty streams are empty blobs.
    await s.putBlobStream('up-1', pieces(10))
    sameBlob(await s.getBlob('up-1'), data.slice(0, 10))
    await s.putBlob('up-1', pattern(5, 3))
    sameBlob(await s.getBlob('up-1'), pattern(5, 3))
    await s.putBlobStream('up-1', pieces(1_100_000))
    sameBlob(await s.getBlob('up-1'), data.slice(0, 1_100_000))
    expect(await s.putBlobStream('empty', pieces(0))).toBe(0)
    sameBlob(await s.getBlob('empty'), new Uint8Array(0))
    await s.deleteBlob('up-1')
    expect(await s.getBlob('up-1')).toBeUndefined()
  })
}
