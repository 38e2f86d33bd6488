/**
 * The pool that brings a map's basemap tiles (sw/sync/webmap/basemap-tiles.ts `fetchTiles`):
 * its bounds and fairness cannot be seen through a team's server that answers from its tile
 * cache faster than requests overlap, so the sources here answer after a set delay.
 */
import { describe, expect, it } from 'vitest'
import { fetchTiles, type BasemapFetch, type TileSource } from '../../sw/sync/webmap/basemap-tiles.ts'
import { tileBlobId, tileCount, tilesOf, type Bbox4326 } from '../../sw/sync/webmap/tiles.ts'

const BBOX: Bbox4326 = [9.8, 49.8, 10.2, 50.2]
const ZOOMS: [number, number] = [8, 12]
const TOTAL = tileCount(BBOX, ZOOMS)

/** A source answering each tile after `ms` (or failing), counting what it has under way. */
function source(ms: number, fail = false) {
  const s = { now: 0, peak: 0, asked: 0 }
  const src: TileSource = {
    async get() {
      s.asked++
      s.peak = Math.max(s.peak, ++s.now)
      await new Promise((r) => setTimeout(r, ms))
      s.now--
      if (fail) throw new Error('HTTP 503')
      return new Uint8Array([1, 2, 3])
    },
  }
  return { s, src }
}

function run(basemaps: BasemapFetch[], signal = new AbortController().signal) {
  const blobs = new Map<string, Uint8Array>()
  const counts: number[] = []
  let done = 0
  let peak = 0
  let now = 0
  const wrapped = basemaps.map((b) => ({ ...b, source: { get: async (z: number, x: number, y: number, sig: AbortSignal) => {
    peak = Math.max(peak, ++now)
    try { return await b.source.get(z, x, y, sig) } finally { now-- }
  } } }))
  const reports = fetchTiles(wrapped, { putBlob: async (id, data) => { blobs.set(id, data) } }, 7, BBOX, ZOOMS, signal, [],
    (n) => counts.push(done += n))
  return { reports, blobs, counts, peak: () => peak }
}

describe('fetchTiles', () => {
  it('brings two basemaps at once, at most 6 fetches in all and 4 from one, the progress ending at the total', async () => {
    const a = source(5)
    const b = source(5)
    const r = run([{ source: a.src, slot: 0 }, { source: b.src, slot: 1 }])
    const reports = await r.reports
    expect(reports.map((x) => x.tiles)).toEqual([TOTAL, TOTAL])
    expect(r.blobs.size).toBe(2 * TOTAL)
    expect(r.peak()).toBe(6)
    expect(a.s.peak).toBeLessThanOrEqual(4)
    expect(b.s.peak).toBeLessThanOrEqual(4)
    expect(a.s.peak + b.s.peak).toBeGreaterThan(4)
    expect(r.counts.at(-1)).toBe(2 * TOTAL)
  })

  it('a dead basemap is given up without holding the other up; its rest counts as done, so the progress is exact', async () => {
    const dead = source(1, true)
    const live = source(3)
    const r = run([{ source: dead.src, slot: 0 }, { source: live.src, slot: 1 }])
    const [d, l] = await r.reports
    expect(d).toMatchObject({ tiles: 0, given_up: true })
    expect(dead.s.asked).toBeLessThan(TOTAL)
    expect(l).toMatchObject({ tiles: TOTAL, failed: 0, given_up: false })
    expect(r.counts.at(-1)).toBe(2 * TOTAL)
  })

  it('tiles kept before are not asked again and count first', async () => {
    const a = source(1)
    const kept = new Set([...tilesOf(BBOX, ZOOMS)].filter((_, i) => i % 40 === 1).map(([z, x, y]) => tileBlobId(7, 0, z, x, y)))
    expect(kept.size).toBe(3)
    const r = run([{ source: a.src, slot: 0, kept: { ids: kept, bytes: 10 } }])
    expect(await r.reports).toEqual([{ tiles: TOTAL, bytes: 10 + 3 * (TOTAL - 3), failed: 0, given_up: false }])
    expect(a.s.asked).toBe(TOTAL - 3)
    expect(r.counts[0]).toBe(3)
    expect(r.counts.at(-1)).toBe(TOTAL)
  })

  it('a resumed basemap given up counts its unseen kept tiles once: the progress still ends at the total', async () => {
    const dead = source(1, true)
    const kept = new Set([...tilesOf(BBOX, ZOOMS)].filter((_, i) => i % 40 === 1).map(([z, x, y]) => tileBlobId(7, 0, z, x, y)))
    const r = run([{ source: dead.src, slot: 0, kept: { ids: kept, bytes: 10 } }])
    const [d] = await r.reports
    expect(d).toMatchObject({ tiles: 3, bytes: 10, given_up: true })
    expect(d!.failed).toBeGreaterThanOrEqual(20)
    expect(r.counts.at(-1)).toBe(TOTAL)
  })
})
