import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FileStore, readJournal, writeJournal } from '../../sw/host/node-store.ts'
import { CHUNK_SIZE, type ImageSave } from '../../sw/store/store.ts'

const dirs: string[] = []
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }) })

function tempStore() {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-journal-'))
  dirs.push(dir)
  return { dir, store: new FileStore(dir), main: join(dir, 'db', 'x.sqlite'), journal: join(dir, 'db', 'x.journal') }
}

/** An image of `chunks` chunks (the last one `tail` bytes short), each filled with its index + `seed`. */
function image(chunks: number, seed: number, tail = 0): Uint8Array {
  const img = new Uint8Array(chunks * CHUNK_SIZE - tail)
  for (let i = 0; i < chunks; i++) img.fill((i + seed) & 0xff, i * CHUNK_SIZE, Math.min(img.length, (i + 1) * CHUNK_SIZE))
  return img
}

/** Asserts byte equality (vitest's deep equality is slow on megabytes). */
function same(actual: Uint8Array | undefined, expected: Uint8Array): void {
  expect(actual && Buffer.compare(Buffer.from(actual), Buffer.from(expected))).toBe(0)
}

/** The save that turns image `from` into image `to`: the chunks that differ. */
function diff(from: Uint8Array, to: Uint8Array): ImageSave {
  const chunks = new Map<number, Uint8Array>()
  for (let i = 0; i * CHUNK_SIZE < to.length; i++) {
    const c = to.subarray(i * CHUNK_SIZE, Math.min(to.length, (i + 1) * CHUNK_SIZE))
    const old = from.subarray(i * CHUNK_SIZE, Math.min(from.length, (i + 1) * CHUNK_SIZE))
    if (Buffer.compare(Buffer.from(c), Buffer.from(old)) !== 0) chunks.set(i, c.slice())
  }
  return { size: to.length, chunks }
}

describe('file store redo journal', () => {
  it('writes only the changed chunks into the database file and keeps it whole', async () => {
    const { store, main, journal } = tempStore()
    const a = image(5, 0)
    await store.saveImage('x', diff(new Uint8Array(0), a))
    same(readFileSync(main), a)
    const b = a.slice()
    b.fill(200, 2 * CHUNK_SIZE, 2 * CHUNK_SIZE + 100)
    const save = diff(a, b)
    expect([...save.chunks.keys()]).toEqual([2])
    await store.saveImage('x', save)
    same(readFileSync(main), b)
    expect(statSync(journal).size).toBe(0) // applied and emptied
    // Shrinking and growing again.
    const c = image(3, 9, 4096)
    await store.saveImage('x', diff(b, c))
    same(new Uint8Array(readFileSync(main)), c)
    same(await new FileStore(store.dir).loadImage('x'), c)
    expect(await store.listImages()).toEqual(['x'])
  })

  it('replays a complete journal after a crash between its fsync and applying it', async () => {
    const { store, main, journal } = tempStore()
    const a = image(6, 0)
    await store.saveImage('x', diff(new Uint8Array(0), a))
    const b = image(7, 50, 8192)
    // The crash: the journal is durable, the main file not yet touched.
    await writeJournal(journal, diff(a, b))
    same(readFileSync(main), a)
    const reopened = new FileStore(store.dir)
    same(await reopened.loadImage('x'), b)
    same(new Uint8Array(readFileSync(main)), b)
    expect(statSync(journal).size).toBe(0)
    // Replaying is idempotent: a crash halfway through applying is repaired the same way.
    const c = image(7, 90)
    const save = diff(b, c)
    await writeJournal(journal, save)
    const [first] = save.chunks
    const half = readFileSync(main)
    half.set(first![1], first![0] * CHUNK_SIZE)
    writeFileSync(main, half)
    same(await new FileStore(store.dir).loadImage('x'), c)
  })

  it('ignores a torn or corrupt journal: the previous save stays', async () => {
    const { store, journal } = tempStore()
    const a = image(4, 0)
    await store.saveImage('x', diff(new Uint8Array(0), a))
    const b = image(4, 33)
    const cut = async (size: number) => {
      await writeJournal(journal, diff(a, b))
      truncateSync(journal, size)
      same(await new FileStore(store.dir).loadImage('x'), a)
    }
    const full = (await writeJournal(journal, diff(a, b)), statSync(journal).size)
    for (const size of [1, 16, 100, CHUNK_SIZE, full - 8, full - 1]) await cut(size)
    // A flipped byte in the middle fails the checksum.
    await writeJournal(journal, diff(a, b))
    const bytes = readFileSync(journal)
    bytes[1000] ^= 0xff
    writeFileSync(journal, bytes)
    expect(readJournal(bytes)).toBeUndefined()
    same(await new FileStore(store.dir).loadImage('x'), a)
    // And the store keeps working after it.
    await store.saveImage('x', diff(a, b))
    same(await new FileStore(store.dir).loadImage('x'), b)
  })

  it('a database whose first save crashed before the journal was complete reads as empty', async () => {
    const { store, journal, main } = tempStore()
    await writeJournal(journal, diff(new Uint8Array(0), image(2, 1)))
    truncateSync(journal, 50)
    writeFileSync(main, new Uint8Array(0))
    expect((await store.loadImage('x'))?.length ?? 0).toBe(0)
    await store.deleteImage('x')
    expect(await store.loadImage('x')).toBeUndefined()
    expect(await store.listImages()).toEqual([])
  })
})
