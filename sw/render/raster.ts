/**
 * @module render/raster
 * Raster tiles from a tiled GeoTIFF with overviews (the stored raster layer): for an output
 * image, pick the overview whose pixels are the finest not finer than the output's, read
 * only the window under the image, and resample bilinearly at pixel centres (reprojecting
 * through a coarse grid when the raster's SRS is not the image's). 3 bands are RGB (opaque
 * where the raster is), 4 are RGBA; GDAL's nodata value is transparent.
 */
import type { GeoTIFF, GeoTIFFImage } from 'geotiff'
import type { Bbox } from '../geo/geometry.ts'

export interface RasterView {
  extent: Bbox
  width: number
  height: number
  /** View coordinates → raster coordinates; undefined when both are the same SRS. */
  toRaster?: (x: number, y: number) => [number, number]
}

export interface RasterLevels {
  /** Full resolution first, then overviews (masks left out). */
  images: GeoTIFFImage[]
  /** Origin and pixel size of the full-resolution image, in the raster's SRS (north up). */
  originX: number
  originY: number
  resX: number
  resY: number
  width: number
  height: number
  bands: number
  nodata: number | null
}

export async function rasterLevels(tiff: GeoTIFF): Promise<RasterLevels> {
  const n = await tiff.getImageCount()
  const images: GeoTIFFImage[] = []
  for (let i = 0; i < n; i++) {
    const img = await tiff.getImage(i)
    // GDAL writes masks as IFDs of their own (NewSubfileType bit 4).
    const subfile = Number(img.fileDirectory.getValue?.('NewSubfileType') ?? (img.fileDirectory as unknown as Record<string, unknown>).NewSubfileType ?? 0)
    if (subfile & 4) continue
    images.push(img)
  }
  const full = images[0]!
  const [originX, originY] = full.getOrigin() as [number, number]
  const [resX, resY] = full.getResolution() as [number, number]
  images.sort((a, b) => b.getWidth() - a.getWidth())
  return { images, originX, originY, resX, resY: Math.abs(resY), width: full.getWidth(), height: full.getHeight(),
    bands: full.getSamplesPerPixel(), nodata: full.getGDALNoData() }
}

/** Maps output pixel centres to full-resolution raster pixel coordinates, on a grid every `STEP` pixels. */
const STEP = 16

function pixelGrid(lv: RasterLevels, v: RasterView): { gx: Float64Array; gy: Float64Array; cols: number } {
  const cols = Math.ceil(v.width / STEP) + 1, rows = Math.ceil(v.height / STEP) + 1
  const gx = new Float64Array(cols * rows), gy = new Float64Array(cols * rows)
  const rx = (v.extent[2] - v.extent[0]) / v.width, ry = (v.extent[3] - v.extent[1]) / v.height
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let x = v.extent[0] + Math.min(c * STEP, v.width) * rx
      let y = v.extent[3] - Math.min(r * STEP, v.height) * ry
      if (v.toRaster) [x, y] = v.toRaster(x, y)
      gx[r * cols + c] = (x - lv.originX) / lv.resX
      gy[r * cols + c] = (lv.originY - y) / lv.resY
    }
  }
  return { gx, gy, cols }
}

/**
 * The view as unpremultiplied RGBA, or `undefined` when the raster does not reach it.
 * Throws `signal.reason` when aborted.
 */
export async function readRasterView(lv: RasterLevels, v: RasterView, signal?: AbortSignal): Promise<Uint8ClampedArray | undefined> {
  const { gx, gy, cols } = pixelGrid(lv, v)
  // Full-resolution pixel position of output pixel centre (i + .5, j + .5), bilinear on the grid.
  const at = (i: number, j: number, out: Float64Array) => {
    const fx = (i + 0.5) / STEP, fy = (j + 0.5) / STEP
    const c = Math.min(Math.floor(fx), cols - 2), r = Math.floor(fy)
    const tx = fx - c, ty = fy - r
    const k = r * cols + c
    out[0] = (gx[k]! * (1 - tx) + gx[k + 1]! * tx) * (1 - ty) + (gx[k + cols]! * (1 - tx) + gx[k + cols + 1]! * tx) * ty
    out[1] = (gy[k]! * (1 - tx) + gy[k + 1]! * tx) * (1 - ty) + (gy[k + cols]! * (1 - tx) + gy[k + cols + 1]! * tx) * ty
  }
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity
  for (let k = 0; k < gx.length; k++) {
    minX = Math.min(minX, gx[k]!); maxX = Math.max(maxX, gx[k]!)
    minY = Math.min(minY, gy[k]!); maxY = Math.max(maxY, gy[k]!)
  }
  if (maxX <= 0 || maxY <= 0 || minX >= lv.width || minY >= lv.height) return undefined
  // Raster pixels per output pixel decide the overview: the coarsest one still at least as fine.
  const perPixel = Math.min((maxX - minX) / v.width, (maxY - minY) / v.height)
  let level = lv.images[0]!
  let factor = 1
  for (const img of lv.images) {
    const f = lv.width / img.getWidth()
    if (f <= perPixel * 1.0001) { level = img; factor = f }
  }
  const lw = level.getWidth(), lh = level.getHeight()
  const fy = lv.height / lh
  const x0 = Math.max(0, Math.floor(minX / factor) - 1), y0 = Math.max(0, Math.floor(minY / fy) - 1)
  const x1 = Math.min(lw, Math.ceil(maxX / factor) + 1), y1 = Math.min(lh, Math.ceil(maxY / fy) + 1)
  if (x1 <= x0 || y1 <= y0) return undefined
  const bands = Math.min(lv.bands, 4)
  const data = await level.readRasters({ window: [x0, y0, x1, y1], interleave: true,
    samples: Array.from({ length: bands }, (_, i) => i), signal }) as unknown as ArrayLike<number>
  signal?.throwIfAborted()
  const ww = x1 - x0, wh = y1 - y0
  const out = new Uint8ClampedArray(v.width * v.height * 4)
  const p = new Float64Array(2)
  const nodata = lv.nodata
  const sample = (x: number, y: number, b: number) => data[(y * ww + x) * bands + b]!
  const colorBands = bands === 2 || bands === 4 ? bands - 1 : bands
  for (let j = 0; j < v.height; j++) {
    for (let i = 0; i < v.width; i++) {
      at(i, j, p)
      // Level pixel coordinates relative to the window, measured from pixel centres.
      const lx = p[0]! / factor - 0.5 - x0, ly = p[1]! / fy - 0.5 - y0
      const fx0 = p[0]! / factor, fy0 = p[1]! / fy
      if (fx0 < 0 || fy0 < 0 || fx0 >= lw || fy0 >= lh) continue
      const ix = Math.max(0, Math.min(ww - 1, Math.floor(lx))), iy = Math.max(0, Math.min(wh - 1, Math.floor(ly)))
      const ix1 = Math.min(ww - 1, ix + 1), iy1 = Math.min(wh - 1, iy + 1)
      const tx = Math.max(0, Math.min(1, lx - ix)), ty = Math.max(0, Math.min(1, ly - iy))
      const o = (j * v.width + i) * 4
      // 1 band: grey; 2: grey + alpha; 3: RGB; 4: RGBA.
      let alpha = 255
      for (let b = 0; b < bands; b++) {
        const s00 = sample(ix, iy, b), s10 = sample(ix1, iy, b), s01 = sample(ix, iy1, b), s11 = sample(ix1, iy1, b)
        const val = (s00 * (1 - tx) + s10 * tx) * (1 - ty) + (s01 * (1 - tx) + s11 * tx) * ty
        if (b === colorBands) alpha = val
        else out[o + b] = val
      }
      if (colorBands === 1) { out[o + 1] = out[o]!; out[o + 2] = out[o]! }
      if (nodata !== null && colorBands === bands) {
        const nx = Math.max(0, Math.min(ww - 1, Math.round(lx))), ny = Math.max(0, Math.min(wh - 1, Math.round(ly)))
        if (sample(nx, ny, 0) === nodata) alpha = 0
      }
      out[o + 3] = alpha
    }
  }
  return out
}
