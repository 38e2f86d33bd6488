import { describe, expect, it } from 'vitest'
import { fromArrayBuffer } from 'geotiff'
import { rasterLevels, readRasterView } from '../../sw/render/raster.ts'
import { openRaster } from '../../sw/render/raster-style.ts'
import { transformer } from '../../sw/geo/reproject.ts'
import { makeCog } from './cog.ts'
import { inflateSync } from 'node:zlib'
import { decode } from 'fast-png'
import { useHostInflate } from '../../sw/render/raster-blocks.ts'
import { nodeCanvas } from '../../sw/host/node-canvas.ts'
import { deflateSync } from 'node:zlib'

const ORIGIN = 20037508.342789244

async function levelsOf(bytes: Uint8Array) {
  return rasterLevels(await fromArrayBuffer(bytes.slice().buffer))
}

/** Tile z/x/y extent in EPSG:3857. */
function tileExtent(z: number, x: number, y: number): [number, number, number, number] {
  const s = (2 * ORIGIN) / 2 ** z
  return [-ORIGIN + x * s, ORIGIN - (y + 1) * s, -ORIGIN + (x + 1) * s, ORIGIN - y * s]
}

const px = (rgba: Uint8ClampedArray, w: number, i: number, j: number) => Array.from(rgba.subarray((j * w + i) * 4, (j * w + i) * 4 + 4))

describe('render/raster', () => {
  // 1024 px over tile 2/2/1 (x 0…10018754, y 0…10018754): 4 px per tile-z-4 pixel... left half red, right half blue,
  // with a 1-pixel black/white checkerboard in the bottom-left quarter.
  const size = 1024
  const [x0, , x1, y1] = tileExtent(2, 2, 1)
  const res = (x1 - x0) / size
  const cog = makeCog({ width: size, height: size, bands: 3, originX: x0, originY: y1, res, srs: 3857,
    pixel: (x, y) => (x >= 512 && y < 512 ? [20, 20, 230] : y >= 512 && x < 512 ? ((x + y) % 2 ? [255, 255, 255] : [0, 0, 0]) : [230, 20, 20]) })

  it('reads the stored tiling and its overviews', async () => {
    const lv = await levelsOf(await cog)
    expect(lv.images.map((i) => i.getWidth())).toEqual([1024, 512, 256])
    expect(lv.bands).toBe(3)
    expect(lv.originX).toBeCloseTo(x0, 3)
    expect(lv.resX).toBeCloseTo(res, 6)
  })

  it('draws a tile at native resolution with the raster pixels in place and transparency outside', async () => {
    const lv = await levelsOf(await cog)
    // Tile 3/4/2 is the top-left quarter of tile 2/2/1 → red, 512 source pixels on 256.
    const red = await readRasterView(lv, { extent: tileExtent(3, 4, 2), width: 256, height: 256 })
    expect(px(red!, 256, 10, 10)).toEqual([230, 20, 20, 255])
    // 256 source pixels on 256 across the red/blue seam at source column 512 → output column 128.
    const top = await readRasterView(lv, { extent: [x0 + 384 * res, y1 - 256 * res, x0 + 640 * res, y1], width: 256, height: 256 })
    expect(px(top!, 256, 126, 50)).toEqual([230, 20, 20, 255])
    expect(px(top!, 256, 129, 50)).toEqual([20, 20, 230, 255])
    // A tile beside the raster draws nothing.
    expect(await readRasterView(lv, { extent: tileExtent(2, 1, 1), width: 256, height: 256 })).toBeUndefined()
    // Half outside: transparent where the raster is not.
    const edge = await readRasterView(lv, { extent: [x0 - (x1 - x0) / 2, 0, x0 + (x1 - x0) / 2, y1], width: 256, height: 256 })
    expect(px(edge!, 256, 10, 10)[3]).toBe(0)
    expect(px(edge!, 256, 200, 10)).toEqual([230, 20, 20, 255])
  })

  it('uses the averaged overview when zoomed out: a 1-pixel checkerboard turns grey, not black or white', async () => {
    const lv = await levelsOf(await cog)
    // Tile 2/2/1 shows 1024 px in 256: 4 source pixels per output pixel → the 256-wide overview.
    const out = await readRasterView(lv, { extent: tileExtent(2, 2, 1), width: 256, height: 256 })
    const p = px(out!, 256, 60, 200)
    expect(p[0]).toBeGreaterThan(100)
    expect(p[0]).toBeLessThan(155)
    expect(px(out!, 256, 200, 60)).toEqual([20, 20, 230, 255])
  })

  it('interpolates bilinearly between pixel centres when zoomed in', async () => {
    const lv = await levelsOf(await cog)
    // 64 source px on 256: 4 output px per source px, across the red/blue seam at source column 512.
    const seam = await readRasterView(lv, { extent: [x0 + 480 * res, y1 - 64 * res, x0 + 544 * res, y1], width: 256, height: 256 })
    const row = [124, 126, 127, 128, 129, 131].map((i) => px(seam!, 256, i, 10)[0])
    expect(row[0]).toBe(230)
    expect(row[5]).toBe(20)
    // Monotonic blend across the seam, not a hard step.
    expect(row[2]! > row[3]! && row[3]! > 20 && row[2]! < 230).toBe(true)
  })

  it('reprojects a raster stored in EPSG:4326 into a Web Mercator tile', async () => {
    // 360 × 165 px, one degree each from 85° N to 80° S: green north of the equator, yellow south.
    const geo = await makeCog({ width: 360, height: 165, bands: 4, originX: -180, originY: 85, res: 1, srs: 4326,
      pixel: (_x, y) => (y < 85 ? [20, 200, 20, 255] : [240, 220, 0, 255]) })
    const lv = await levelsOf(geo)
    const t = transformer(3857, 4326)
    const out = await readRasterView(lv, { extent: tileExtent(1, 0, 0), width: 256, height: 256, toRaster: (x, y) => t([x, y]) as [number, number] })
    expect(px(out!, 256, 100, 100)).toEqual([20, 200, 20, 255])
    const south = await readRasterView(lv, { extent: tileExtent(1, 0, 1), width: 256, height: 256, toRaster: (x, y) => t([x, y]) as [number, number] })
    expect(px(south!, 256, 100, 100)).toEqual([240, 220, 0, 255])
    // South of 80° the raster ends (row 198.5 of the tile): transparent.
    expect(px(south!, 256, 100, 254)[3]).toBe(0)
  })

  it('reads a stored raster by byte ranges: a tile reads its window, not the file', async () => {
    // Noise does not compress: the file is megabytes, of which a quarter-tile needs a few blocks.
    const noise = (x: number, y: number) => { const h = Math.imul(x * 73856093 ^ y * 19349663, 2654435761) >>> 0; return [h & 255, (h >> 8) & 255, (h >> 16) & 255] }
    const bytes = await makeCog({ width: size, height: size, bands: 3, originX: x0, originY: y1, res, srs: 3857,
      pixel: (x, y) => (x < 512 && y < 512 ? [230, 20, 20] : noise(x, y)) })
    expect(bytes.length).toBeGreaterThan(1_000_000)
    let read = 0
    const lv = await openRaster({ srs: 3857, key: `range-test-${Math.random()}`, size: bytes.length,
      read: async (start, end) => { read += end - start; return bytes.slice(start, end) } })
    const red = await readRasterView(lv, { extent: tileExtent(4, 8, 4), width: 256, height: 256 })
    expect(px(red!, 256, 10, 10)).toEqual([230, 20, 20, 255])
    expect(read).toBeLessThan(bytes.length / 2)
  })

  it('decodes DEFLATE blocks with the host inflate once, then serves them from the block cache', async () => {
    let calls = 0
    useHostInflate((d) => { calls++; return inflateSync(d) })
    const lv = await openRaster({ srs: 3857, key: `inflate-test-${Math.random()}`, size: (await cog).length, read: async (s, e) => (await cog).slice(s, e) })
    const first = await readRasterView(lv, { extent: tileExtent(3, 4, 2), width: 256, height: 256 })
    expect(px(first!, 256, 10, 10)).toEqual([230, 20, 20, 255])
    expect(calls).toBeGreaterThan(0)
    const after = calls
    // The same tile again, and a neighbour inside the same blocks: nothing decoded anew.
    const again = await readRasterView(lv, { extent: tileExtent(3, 4, 2), width: 256, height: 256 })
    expect(Array.from(again!)).toEqual(Array.from(first!))
    await readRasterView(lv, { extent: [x0, y1 - 256 * res, x0 + 256 * res, y1], width: 128, height: 128 })
    expect(calls).toBe(after)
  })
})

describe('the Node host canvas PNGs', () => {
  const fill = (alpha: (i: number) => number) => {
    const d = new Uint8ClampedArray(37 * 23 * 4)
    for (let i = 0; i < 37 * 23; i++) d.set([(i * 7) & 255, (i * 13) & 255, (i * 29) & 255, alpha(i)], i * 4)
    return d
  }
  const pngOf = async (img: Uint8ClampedArray) => {
    const s = nodeCanvas(37, 23)
    s.putRgba(img)
    return decode(await s.png())
  }

  it('writes opaque images as RGB and decodes back to the same pixels', async () => {
    const img = fill(() => 255)
    const png = await pngOf(img)
    expect([png.width, png.height, png.channels, png.depth]).toEqual([37, 23, 3, 8])
    for (let i = 0; i < 37 * 23; i++) expect(Array.from(png.data.subarray(i * 3, i * 3 + 3))).toEqual(Array.from(img.subarray(i * 4, i * 4 + 3)))
  })

  it('keeps alpha when any pixel is not opaque', async () => {
    const img = fill((i) => (i === 500 ? 0 : 255))
    const png = await pngOf(img)
    expect(png.channels).toBe(4)
    expect(png.data[500 * 4 + 3]).toBe(0)
    expect(Array.from(png.data.subarray(0, 400))).toEqual(Array.from(img.subarray(0, 400)))
  })
})
