/**
 * @module host/offscreen-canvas
 * The service worker's canvas: `OffscreenCanvas` (Skia in Chromium), encoded to PNG by the
 * browser itself.
 */
/// <reference lib="webworker" />
import type { CanvasFactory, Ctx2D, Surface } from '../image/canvas.ts'

class OffscreenSurface implements Surface {
  readonly canvas: OffscreenCanvas
  readonly ctx: Ctx2D
  readonly #ctx: OffscreenCanvasRenderingContext2D

  constructor(readonly width: number, readonly height: number) {
    this.canvas = new OffscreenCanvas(width, height)
    this.#ctx = this.canvas.getContext('2d')!
    this.ctx = this.#ctx as unknown as Ctx2D
  }

  putRgba(rgba: Uint8ClampedArray): void {
    this.#ctx.putImageData(new ImageData(rgba as Uint8ClampedArray<ArrayBuffer>, this.width, this.height), 0, 0)
  }

  drawSurface(other: Surface, alpha = 1): void {
    this.#ctx.globalAlpha = alpha
    this.#ctx.drawImage((other as OffscreenSurface).canvas, 0, 0)
    this.#ctx.globalAlpha = 1
  }

  rgba(): Uint8ClampedArray {
    return this.#ctx.getImageData(0, 0, this.width, this.height).data
  }

  async png(): Promise<Uint8Array> {
    const blob = await this.canvas.convertToBlob({ type: 'image/png' })
    return new Uint8Array(await blob.arrayBuffer())
  }
}

export const offscreenCanvas: CanvasFactory = (w, h) => new OffscreenSurface(w, h)
