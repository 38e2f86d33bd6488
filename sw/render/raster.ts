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
import { readWindow } from './raster-blocks.ts'

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
  const window = [x0, y0, x1, y1] as const
  const data = (await readWindow(level, window, bands, signal))
    ?? await level.readRasters({ window: [...window], interleave: true, samples: Array.from({ length: bands }, (_, i) => i), signal }) as unknown as ArrayLike<number>
  signal?.throwIfAborted()
  const ww = x1 - x0, wh = y1 - y0
  const w = v.width, h = v.height
  // Level pixel coordinates of each output pixel centre, relative to the window and measured
  // from pixel centres: bilinear on the coarse grid, done once per pixel into two arrays.
  const lxs = new Float64Array(w * h), lys = new Float64Array(w * h)
  for (let j = 0; j < h; j++) {
    const fgy = (j + 0.5) / STEP, r = Math.floor(fgy), ty = fgy - r
    for (let i = 0; i < w; i++) {
      const fgx = (i + 0.5) / STEP, c = Math.min(Math.floor(fgx), cols - 2), tx = fgx - c
      const k = r * cols + c
      const px = (gx[k]! * (1 - tx) + gx[k + 1]! * tx) * (1 - ty) + (gx[k + cols]! * (1 - tx) + gx[k + cols + 1]! * tx) * ty
      const py = (gy[k]! * (1 - tx) + gy[k + 1]! * tx) * (1 - ty) + (gy[k + cols]! * (1 - tx) + gy[k + cols + 1]! * tx) * ty
      // Outside the raster: NaN, left transparent.
      const fx0 = px / factor, fy0 = py / fy
      const inside = fx0 >= 0 && fy0 >= 0 && fx0 < lw && fy0 < lh
      lxs[j * w + i] = inside ? fx0 - 0.5 - x0 : NaN
      lys[j * w + i] = fy0 - 0.5 - y0
    }
  }
  return resample(data, ww, wh, bands, lxs, lys, w, h, lv.nodata)
}

/**
 * Bilinear sampling of the window `data` (`bands` interleaved samples a pixel) at the
 * positions `lxs`, `lys` (NaN: outside), with 8-bit fixed-point weights: the loop touches
 * each output pixel once and allocates nothing.
 */
function resample(data: ArrayLike<number>, ww: number, wh: number, bands: number, lxs: Float64Array, lys: Float64Array,
  w: number, h: number, nodata: number | null): Uint8ClampedArray {
  const out = new Uint8ClampedArray(w * h * 4)
  // 1 band: grey; 2: grey + alpha; 3: RGB; 4: RGBA.
  const colorBands = bands === 2 || bands === 4 ? bands - 1 : bands
  const rowStride = ww * bands
  for (let p = 0, n = w * h; p < n; p++) {
    const lx = lxs[p]!, ly = lys[p]!
    if (lx !== lx) continue
    let ix = Math.floor(lx), iy = Math.floor(ly)
    let tx = lx - ix, ty = ly - iy
    if (ix < 0) { ix = 0; tx = 0 } else if (ix > ww - 1) { ix = ww - 1; tx = 0 }
    if (iy < 0) { iy = 0; ty = 0 } else if (iy > wh - 1) { iy = wh - 1; ty = 0 }
    const wx = (tx * 256 + 0.5) | 0, wy = (ty * 256 + 0.5) | 0
    const s00 = iy * rowStride + ix * bands
    const s10 = ix + 1 < ww ? s00 + bands : s00
    const s01 = iy + 1 < wh ? s00 + rowStride : s00
    const s11 = s01 + (s10 - s00)
    const o = p * 4
    let alpha = 255
    for (let b = 0; b < bands; b++) {
      const top = data[s00 + b]! * (256 - wx) + data[s10 + b]! * wx
      const bottom = data[s01 + b]! * (256 - wx) + data[s11 + b]! * wx
      const val = (top * (256 - wy) + bottom * wy + 32768) >> 16
      if (b === colorBands) alpha = val
      else out[o + b] = val
    }
    if (colorBands === 1) { out[o + 1] = out[o]!; out[o + 2] = out[o]! }
    if (nodata !== null && colorBands === bands) {
      const nx = Math.min(ww - 1, Math.max(0, Math.round(lx))), ny = Math.min(wh - 1, Math.max(0, Math.round(ly)))
      if (data[(ny * ww + nx) * bands] === nodata) alpha = 0
    }
    out[o + 3] = alpha
  }
  return out
}
