import { describe, expect, it } from 'vitest'
import { IDBKeyRange, indexedDB } from 'fake-indexeddb'
import { IdbStore } from '../../sw/store/idb.ts'
import { CHUNK_SIZE } from '../../sw/store/store.ts'

const chunk = (fill: number, n = CHUNK_SIZE) => new Uint8Array(n).fill(fill)

describe('IndexedDB store', () => {
  it('saves changed chunks in one transaction, drops chunks past a shrunken end, and loads the image back', async () => {
    const store = new IdbStore({ name: `t-${Math.random()}`, deps: { indexedDB, IDBKeyRange } })
    await store.saveImage('a', { size: 3 * CHUNK_SIZE, chunks: new Map([[0, chunk(1)], [1, chunk(2)], [2, chunk(3)]]) })
    await store.saveImage('b', { size: 100, chunks: new Map([[0, chunk(9, 100)]]) })
    await store.saveImage('a', { size: 2 * CHUNK_SIZE - 4096, chunks: new Map([[1, chunk(5, CHUNK_SIZE - 4096)]]) })
    const a = (await store.loadImage('a'))!
    expect(a.length).toBe(2 * CHUNK_SIZE - 4096)
    expect([a[0], a[CHUNK_SIZE - 1], a[CHUNK_SIZE], a[a.length - 1]]).toEqual([1, 1, 5, 5])
    expect((await store.loadImage('b'))).toEqual(chunk(9, 100))
    expect((await store.listImages()).sort()).toEqual(['a', 'b'])
    // Growing again brings its own chunk 2.
    await store.saveImage('a', { size: 3 * CHUNK_SIZE, chunks: new Map([[2, chunk(7)]]) })
    expect((await store.loadImage('a'))![2 * CHUNK_SIZE]).toBe(7)
    await store.deleteImage('a')
    expect(await store.loadImage('a')).toBeUndefined()
    expect(await store.listImages()).toEqual(['b'])
    await store.close()
  })
})
