/**
 * @module host/node-canvas
 * The Node host's canvas: `@napi-rs/canvas`, Skia like Chromium's OffscreenCanvas, so the
 * same drawing code gives the same pixels on both hosts (measured in docs/rendering.md).
 * Labels use DejaVu Sans, registered from the system fonts when present. PNGs are written
 * by `pngjs` (node:zlib underneath) with one "Up" filter at deflate level 3, as RGB when the
 * tile is opaque, not by Skia's encoder (level 6, adaptive filters): measured on raster tiles,
 * as small at about a quarter of the time.
 * Skia is loaded on the first drawing, not at start: its library adds 27 MiB to the process's
 * RSS (measured: import alone, 41 -> 68 MiB), and many hosts never render a tile.
 */
import type { Canvas, SKRSContext2D } from '@napi-rs/canvas'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { PNG } from 'pngjs'
import type { CanvasFactory, Ctx2D, Path2DLike, Surface } from '../image/canvas.ts'

const FONTS = ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf']
let skia: typeof import('@napi-rs/canvas') | undefined

/** @napi-rs/canvas, loaded (and the fonts registered) on first use; a CommonJS package, so `require` keeps the factory synchronous. */
function loadSkia(): typeof import('@napi-rs/canvas') {
  if (skia) return skia
  skia = createRequire(import.meta.url)('@napi-rs/canvas') as typeof import('@napi-rs/canvas')
  for (const f of FONTS) if (existsSync(f)) skia.GlobalFonts.registerFromPath(f, 'DejaVu Sans')
  return skia
}

class NodeSurface implements Surface {
  readonly canvas: Canvas
  readonly ctx: Ctx2D
  readonly #ctx: SKRSContext2D

  constructor(readonly width: number, readonly height: number) {
    this.canvas = loadSkia().createCanvas(width, height)
    this.#ctx = this.canvas.getContext('2d')
    this.ctx = this.#ctx as unknown as Ctx2D
  }

  putRgba(rgba: Uint8ClampedArray): void {
    this.#ctx.putImageData(new (loadSkia().ImageData)(rgba, this.width, this.height), 0, 0)
  }

  drawSurface(other: Surface, alpha = 1): void {
    this.#ctx.globalAlpha = alpha
    this.#ctx.drawImage((other as NodeSurface).canvas, 0, 0)
    this.#ctx.globalAlpha = 1
  }

  rgba(): Uint8ClampedArray {
    return this.#ctx.getImageData(0, 0, this.width, this.height).data
  }

  svgPath(d: string): Path2DLike {
    return new (loadSkia().Path2D)(d)
  }

  async png(): Promise<Uint8Array> {
    const rgba = this.rgba()
    const data = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength)
    return PNG.sync.write({ width: this.width, height: this.height, data } as PNG,
      { colorType: opaque(rgba) ? 2 : 6, inputColorType: 6, inputHasAlpha: true, filterType: 2, deflateLevel: 3 })
  }
}

function opaque(rgba: Uint8ClampedArray): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false
  return true
}

export const nodeCanvas: CanvasFactory = (w, h) => new NodeSurface(w, h)
