import { describe, expect, it } from 'vitest'
import { visibleDots } from '../../src/map/dots.ts'

// A 4-pixel tile over 0..400 map units: one pixel is 100 units.
const EXTENT = [0, 0, 400, 400]

describe('visibleDots (a crowded tile painted in the worker)', () => {
  it('keeps, of the points in one pixel, only the last (the one drawn on top)', () => {
    const coords = new Float64Array([10, 390, 50, 350, 150, 390, 90, 310])
    // Points 0, 1 and 3 are all in pixel (0, 0); point 2 is in pixel (1, 0).
    expect([...visibleDots(coords, EXTENT, 4)]).toEqual([0, 0, 1, 1])
  })

  it('keeps a point outside the tile (its dot reaches in) and points in every other pixel', () => {
    const coords = new Float64Array([-20, 200, 410, 200, 50, 50, 350, 350])
    expect([...visibleDots(coords, EXTENT, 4)]).toEqual([1, 1, 1, 1])
  })

  it('paints at most one dot per pixel however many points a tile has', () => {
    const n = 100_000, coords = new Float64Array(2 * n)
    for (let i = 0; i < n; i++) { coords[2 * i] = 1 + ((i * 7919) % 398); coords[2 * i + 1] = 1 + ((i * 104_729) % 398) }
    const kept = visibleDots(coords, EXTENT, 4).reduce((s, k) => s + k, 0)
    expect(kept).toBe(16)
  })
})
