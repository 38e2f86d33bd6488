/**
 * @module map/dots
 * How a crowded tile's points look (map/styles, the crowded-tile rule): small dots of the
 * layer's colour with a white rim, no labels. Shared by the page, which draws them as
 * OpenLayers polygons (`octagon`), and the decoding worker (map/mvt-worker), which paints a
 * whole tile of them once into a bitmap (`paintDots`).
 */

/** Radius of a dot, in CSS pixels. */
export const DOT_RADIUS = 4
/** Width of a dot's white rim, in CSS pixels. */
export const DOT_RIM = 1

/** The flat coordinates of a regular octagon of `radius` around (x, y): a dot as a polygon. */
export function octagon(x: number, y: number, radius: number): number[] {
  const out: number[] = []
  for (let k = 0; k <= 8; k++) {
    const a = ((k % 8) / 8) * 2 * Math.PI
    out.push(x + radius * Math.cos(a), y + radius * Math.sin(a))
  }
  return out
}

/**
 * Which dots of `coords` show: of the dots whose centres fall in the same device pixel, only
 * the last (drawn over the others, which it hides but for a sliver under a pixel wide). A
 * crowded tile of a dense layer has tens of thousands of points in a few thousand pixels;
 * painting only these keeps the worker's time per tile bounded by its pixels, not its points.
 */
export function visibleDots(coords: Float64Array, extent: readonly number[], size: number): Uint8Array {
  const scale = size / (extent[2]! - extent[0]!)
  const n = coords.length / 2
  const keep = new Uint8Array(n)
  const taken = new Uint8Array(size * size)
  for (let i = n - 1; i >= 0; i--) {
    const px = Math.floor((coords[2 * i]! - extent[0]!) * scale), py = Math.floor((extent[3]! - coords[2 * i + 1]!) * scale)
    // A point just outside the tile (its dot reaches in) is always painted.
    if (px < 0 || py < 0 || px >= size || py >= size) { keep[i] = 1; continue }
    const cell = py * size + px
    if (!taken[cell]) { taken[cell] = 1; keep[i] = 1 }
  }
  return keep
}

/**
 * Paints dots at flat XY map coordinates `coords` onto `ctx`, a square canvas of `size`
 * pixels showing `extent` (north up); `pixelRatio` device pixels per CSS pixel.
 */
export function paintDots(ctx: OffscreenCanvasRenderingContext2D, coords: Float64Array, extent: readonly number[],
  size: number, pixelRatio: number, color: string): void {
  const scale = size / (extent[2]! - extent[0]!)
  const r = DOT_RADIUS * pixelRatio
  const keep = visibleDots(coords, extent, size)
  ctx.fillStyle = color
  ctx.strokeStyle = '#fff'
  ctx.lineWidth = DOT_RIM * pixelRatio
  // Each dot filled and rimmed before the next, as OpenLayers draws a vector tile's polygons
  // (it may not batch them: they can overlap), so a later dot covers an earlier one's rim.
  for (let i = 0; i < coords.length; i += 2) {
    if (!keep[i / 2]) continue
    const ring = octagon((coords[i]! - extent[0]!) * scale, (extent[3]! - coords[i + 1]!) * scale, r)
    ctx.beginPath()
    ctx.moveTo(ring[0]!, ring[1]!)
    for (let k = 2; k < ring.length; k += 2) ctx.lineTo(ring[k]!, ring[k + 1]!)
    ctx.closePath()
    ctx.fill()
    ctx.stroke()
  }
}
