import { afterEach, describe, expect, it, vi } from 'vitest'
import { IDBFactory, IDBKeyRange, IDBObjectStore } from 'fake-indexeddb'
import { Dexie } from 'dexie'
import { IdbStore } from '../../sw/store/idb.ts'
import { BLOCK, SEGMENT } from '../../sw/store/paged-file.ts'
import { ApiError } from '../../sw/core/error.ts'
import { contentOf, pattern, same } from './store-contract.ts'

const MiB = 2 ** 20

function stores() {
  const factory = new IDBFactory()
  const name = 'outpost-test'
  const open = () => new IdbStore({ name, deps: { indexedDB: factory, IDBKeyRange } })
  /** Rows of one table, read past the store. */
  const rows = async (table: 'chunks' | 'pages' | 'images') => {
    const d = new Dexie(name, { indexedDB: factory, IDBKeyRange })
    await d.open()
    try { return await d.table(table).toArray() } finally { d.close() }
  }
  return { open, rows, factory, name }
}

/** Counts the rows put into each object store while `fn` runs. */
async function countPuts(fn: () => Promise<void>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  const put = IDBObjectStore.prototype.put
  const spy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args) {
    counts[this.name] = (counts[this.name] ?? 0) + 1
    return put.apply(this, args)
  })
  try { await fn() } finally { spy.mockRestore() }
  return counts
}

afterEach(() => { vi.restoreAllMocks() })

describe('IndexedDB store: pages', () => {
  it('a commit stores only the blocks that changed as page rows; a reopen applies them over the segments', async () => {
    const { open, rows } = stores()
    const store = open()
    const f = await store.openDatabase('a')
    f.write(pattern(3 * MiB, 7), 0)
    expect(await countPuts(() => f.commit())).toEqual({ chunks: 3, images: 1 })
    f.write(pattern(100, 1), 5 * BLOCK + 10)
    f.write(pattern(BLOCK, 2), 600 * BLOCK)
    expect(await countPuts(() => f.commit())).toEqual({ pages: 2, images: 1 })
    expect((await rows('pages')).map((r) => r.no).sort((a, b) => a - b)).toEqual([5, 600])
    const expected = contentOf(f)
    f.close()
    const g = await open().openDatabase('a')
    same(contentOf(g), expected)
    g.close()
  })

  it('writes a segment whole when many of its blocks changed, and drops its page rows', async () => {
    const { open, rows } = stores()
    const f = await open().openDatabase('a')
    f.write(pattern(2 * MiB, 3), 0)
    await f.commit()
    f.write(pattern(BLOCK, 4), SEGMENT + 3 * BLOCK)
    await f.commit()
    expect((await rows('pages')).length).toBe(1)
    f.write(pattern(100 * BLOCK, 5), SEGMENT + 50 * BLOCK)
    expect(await countPuts(() => f.commit())).toEqual({ chunks: 1, images: 1 })
    expect(await rows('pages')).toEqual([])
    const expected = contentOf(f)
    f.close()
    same(contentOf(await open().openDatabase('a')), expected)
  })

  it('past 1/32 of the file in page rows, a large commit folds two segments back; an edit never does', async () => {
    const { open, rows } = stores()
    const f = await open().openDatabase('a')
    const size = 16 * MiB
    f.write(pattern(size, 9), 0)
    await f.commit()
    // Small commits (30 blocks spread over all 16 segments): page rows only, past the share (256).
    for (let commit = 0; commit < 10; commit++) {
      for (let i = 0; i < 30; i++) f.write(pattern(BLOCK, commit + i), ((i * 509 + commit * 31) % (size / BLOCK)) * BLOCK)
      expect(await countPuts(() => f.commit())).toEqual({ pages: 30, images: 1 })
    }
    const before = (await rows('pages')).length
    expect(before).toBeGreaterThan(256)
    // A large one (70 blocks, still under a quarter of any segment): it folds two segments too.
    for (let i = 0; i < 70; i++) f.write(pattern(BLOCK, i), ((i * 233 + 7) % (size / BLOCK)) * BLOCK)
    const puts = await countPuts(() => f.commit())
    expect(puts.chunks).toBe(2)
    expect((await rows('pages')).length).toBeLessThan(before + 70)
    const expected = contentOf(f)
    f.close()
    same(contentOf(await open().openDatabase('a')), expected)
  })

  it('folds page rows into their segments a few at a time while idle (tidy), down to the floor', async () => {
    const { open, rows } = stores()
    const f = await open().openDatabase('a')
    const size = 48 * MiB
    f.write(pattern(size, 9), 0)
    await f.commit()
    // 350 blocks spread over all 48 segments: under the commit's share (1/32 of the file).
    for (let i = 0; i < 350; i++) f.write(pattern(BLOCK, i), ((i * 337) % (size / BLOCK)) * BLOCK)
    await f.commit()
    expect((await rows('pages')).length).toBe(350)
    const tidy = f.tidy!.bind(f)
    let steps = 0
    for (let more = true; more; steps++) {
      const before = (await rows('pages')).length
      const puts = await countPuts(async () => { more = await tidy() })
      expect(puts.chunks).toBeLessThanOrEqual(4)
      expect((await rows('pages')).length).toBeLessThan(before)
    }
    expect(steps).toBeGreaterThan(1)
    expect((await rows('pages')).length).toBeLessThanOrEqual(256)
    expect(await tidy()).toBe(false)
    const expected = contentOf(f)
    f.close()
    same(contentOf(await open().openDatabase('a')), expected)
  })

  it('migrates the first layout (64 KiB chunks) on open, in one transaction', async () => {
    const { open, rows, factory, name } = stores()
    const image = pattern(5 * 65536 + 100, 13)
    const d = new Dexie(name, { indexedDB: factory, IDBKeyRange })
    d.version(1).stores({ chunks: '[db+idx]', images: 'name', blobs: 'id' })
    await d.open()
    for (let i = 0; i * 65536 < image.length; i++) await d.table('chunks').put({ db: 'main', idx: i, data: image.slice(i * 65536, (i + 1) * 65536) })
    await d.table('images').put({ name: 'main', size: image.length })
    d.close()
    const f = await open().openDatabase('main')
    same(contentOf(f), image)
    expect(await rows('images')).toEqual([{ name: 'main', size: image.length, segment: SEGMENT }])
    expect((await rows('chunks')).map((r) => [r.idx, r.data instanceof Blob])).toEqual([[0, true]])
    f.close()
    same(contentOf(await open().openDatabase('main')), image)
  })

  it('a full quota is a 507 saying so, and the store keeps what it had', async () => {
    const { open } = stores()
    const f = await open().openDatabase('a')
    f.write(pattern(MiB, 3), 0)
    await f.commit()
    f.write(pattern(BLOCK, 4), 0)
    f.write(pattern(BLOCK, 5), 100 * BLOCK)
    let n = 0
    const put = IDBObjectStore.prototype.put
    vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args) {
      // The second row of the save does not fit.
      if (++n === 2) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError')
      return put.apply(this, args)
    })
    const err = await f.commit().then(() => undefined, (e: unknown) => e)
    vi.restoreAllMocks()
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).status).toBe(507)
    expect((err as ApiError).toBody()).toMatchObject({ title: 'Insufficient storage', data: { storage: 'quota' } })
    same(contentOf(await open().openDatabase('a')), pattern(MiB, 3))
  })
})
