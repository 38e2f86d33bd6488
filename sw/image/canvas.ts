/**
 * @module image/canvas
 * The small drawing interface the style engine draws through. The service worker fills it
 * with `OffscreenCanvas`, the Node host with `@napi-rs/canvas`: both are Skia behind the
 * standard 2D-context API, so one drawing code runs on both and their pixels agree.
 */

/** The part of `CanvasRenderingContext2D` the renderer uses. */
export interface Ctx2D {
  globalAlpha: number
  fillStyle: string | object
  strokeStyle: string | object
  lineWidth: number
  lineCap: string
  lineJoin: string
  font: string
  textAlign: string
  textBaseline: string
  save(): void
  restore(): void
  setLineDash(segments: number[]): void
  beginPath(): void
  closePath(): void
  moveTo(x: number, y: number): void
  lineTo(x: number, y: number): void
  arc(x: number, y: number, r: number, start: number, end: number): void
  rect(x: number, y: number, w: number, h: number): void
  fill(rule?: 'nonzero' | 'evenodd'): void
  fill(path: Path2DLike, rule?: 'nonzero' | 'evenodd'): void
  clip(rule?: 'nonzero' | 'evenodd'): void
  stroke(path?: Path2DLike): void
  translate(x: number, y: number): void
  fillText(text: string, x: number, y: number): void
  strokeText(text: string, x: number, y: number): void
  measureText(text: string): { width: number }
}

/** A `Path2D` of the host's canvas: only passed back to `fill` and `stroke`. */
export type Path2DLike = object

/** One raster the renderer draws on; `width` × `height` pixels, transparent when new. */
export interface Surface {
  readonly width: number
  readonly height: number
  readonly ctx: Ctx2D
  /** Replaces the pixels with `rgba` (premultiplication is the canvas's business). */
  putRgba(rgba: Uint8ClampedArray): void
  /** Draws `other` over this surface at (0, 0), with opacity `alpha`. */
  drawSurface(other: Surface, alpha?: number): void
  /** The pixels as unpremultiplied RGBA. */
  rgba(): Uint8ClampedArray
  png(): Promise<Uint8Array>
  /**
   * A path from SVG path data, where building one in a single call is cheaper than a call per
   * vertex (Node, where each call crosses into Skia); absent where vertex calls are cheap.
   */
  svgPath?(d: string): Path2DLike
}

export type CanvasFactory = (width: number, height: number) => Surface

/** Font families tried for labels: DejaVu Sans is on every Debian machine both hosts run on. */
export const LABEL_FONT_FAMILY = '"DejaVu Sans", "Liberation Sans", sans-serif'
