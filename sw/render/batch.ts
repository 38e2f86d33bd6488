/**
 * @module render/batch
 * Fewer canvas calls for many small features: features drawn with the same solid fills and
 * lines go into one path, filled and stroked once, as long as they do not overlap; a feature
 * whose pixel box overlaps one still waiting flushes what waits first, so overlapping
 * features keep their drawing order exactly. At small scales (10,000 polygons in a tile) this
 * turns a fill, a stroke and a colour change per feature into a few per class; in Node every
 * one of those crosses into Skia. Features entirely off the image are not drawn at all.
 */
import type { Ctx2D, Path2DLike, Surface } from '../image/canvas.ts'
import type { FillSymbolizer, LineSymbolizer, Stroke, Symbolizer } from './style.ts'
import type { PixelGeometry } from './wkb-pixels.ts'

/** Sets the context's state only when it changes (a property write in Node crosses into Skia and parses the colour again). */
export class Pen {
  #fill = ''
  #stroke = ''
  #width = -1
  #cap = ''
  #join = ''
  #dash = ''
  constructor(readonly ctx: Ctx2D) {}

  fill(color: string): void {
    if (color !== this.#fill) { this.ctx.fillStyle = color; this.#fill = color }
  }

  stroke(s: Stroke, width = s.width, color = s.color): void {
    const ctx = this.ctx
    if (color !== this.#stroke) { ctx.strokeStyle = color; this.#stroke = color }
    if (width !== this.#width) { ctx.lineWidth = width; this.#width = width }
    if (s.cap !== this.#cap) { ctx.lineCap = s.cap; this.#cap = s.cap }
    if (s.join !== this.#join) { ctx.lineJoin = s.join; this.#join = s.join }
    const dash = s.dash ? s.dash.join(',') : ''
    if (dash !== this.#dash) { ctx.setLineDash(s.dash ?? []); this.#dash = dash }
  }

  /** Forgets what it set: someone else changed the context. */
  reset(): void {
    this.#fill = this.#stroke = this.#cap = this.#join = this.#dash = ''
    this.#width = -1
  }
}

export type PathSymbolizer = FillSymbolizer | LineSymbolizer

/** Symbolizers drawn as a fill and/or strokes of the geometry's own path (no hatch, no markers). */
export function batchable(syms: readonly Symbolizer[]): syms is PathSymbolizer[] {
  return syms.every((s) => s.kind === 'line' || (s.kind === 'fill' && !s.hatch))
}

/** Adds the geometry's rings or lines to the current path. */
export function tracePath(ctx: Ctx2D, g: PixelGeometry): void {
  for (const p of g.parts) {
    if (p.length < 4) continue
    ctx.moveTo(p[0]!, p[1]!)
    for (let i = 2; i < p.length; i += 2) ctx.lineTo(p[i]!, p[i + 1]!)
    if (g.kind === 'polygon') ctx.closePath()
  }
}

/** Fills and strokes `path` (the current path when absent) with `syms`, in order; the path holds geometries of `kind`. */
export function paintPath(pen: Pen, syms: readonly PathSymbolizer[], kind: PixelGeometry['kind'], path?: Path2DLike,
  rule: 'evenodd' | 'nonzero' = 'evenodd'): void {
  const ctx = pen.ctx
  const stroke = () => (path ? ctx.stroke(path) : ctx.stroke())
  for (const s of syms) {
    if (s.kind === 'fill') {
      if (kind !== 'polygon') continue
      if (s.color) { pen.fill(s.color); if (path) ctx.fill(path, rule); else ctx.fill(rule) }
      if (s.outline && s.outline.width > 0) { pen.stroke(s.outline); stroke() }
    } else {
      if (s.casing) { pen.stroke(s.stroke, s.casing.width, s.casing.color); stroke() }
      pen.stroke(s.stroke)
      stroke()
    }
  }
}

/** Pixels beyond a geometry's vertices its strokes may reach (half the widest, plus antialiasing). */
function reachOf(syms: readonly PathSymbolizer[]): number {
  let pad = 1
  for (const s of syms) pad = Math.max(pad, (s.kind === 'fill' ? s.outline?.width ?? 0 : Math.max(s.casing?.width ?? 0, s.stroke.width)) / 2 + 1)
  return pad
}

/**
 * Batched vertices are snapped to 1/16 pixel on both hosts (SVG path data in Node is
 * written with that precision): far below what antialiasing shows.
 */
const SNAP = 16

interface Pending {
  syms: PathSymbolizer[]
  kind: PixelGeometry['kind']
  /** Snapped flat coordinates of every part, and each part's length. */
  coords: Float64Array
  used: number
  parts: number[]
}

export class PathBatcher {
  readonly width: number
  readonly height: number
  /** Per pixel, the generation of the waiting features covering it. */
  readonly #owner: Uint32Array
  #gen = 1
  /** Waiting batches by symbolizers, then by geometry kind; in the order they began. */
  readonly #pending = new Map<PathSymbolizer[], Pending[]>()
  #order: Pending[] = []
  readonly #reach = new Map<PathSymbolizer[], number>()

  constructor(readonly pen: Pen, readonly surface: Surface) {
    this.width = surface.width
    this.height = surface.height
    this.#owner = new Uint32Array(this.width * this.height)
  }

  /** Queues `g` to be drawn with `syms` (which `batchable` accepted). */
  add(syms: PathSymbolizer[], g: PixelGeometry): void {
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity
    const parts = g.parts
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k]!
      for (let i = 0; i < p.length; i += 2) {
        const x = p[i]!, y = p[i + 1]!
        if (x < minX) minX = x
        if (x > maxX) maxX = x
        if (y < minY) minY = y
        if (y > maxY) maxY = y
      }
    }
    // Off the image, strokes included: nothing to draw.
    let pad = this.#reach.get(syms)
    if (pad === undefined) this.#reach.set(syms, pad = reachOf(syms))
    if (maxX < -pad || maxY < -pad || minX > this.width + pad || minY > this.height + pad) return
    // The pixels inside the geometry's box: any of them already waiting means an overlap.
    // Boxes meeting in one edge pixel (neighbours a pixel apart, shared borders) do not
    // count: there only antialiased edges meet, whatever their order.
    const x0 = Math.max(0, Math.ceil(minX)), x1 = Math.min(this.width, Math.floor(maxX))
    const y0 = Math.max(0, Math.ceil(minY)), y1 = Math.min(this.height, Math.floor(maxY))
    const owner = this.#owner, w = this.width
    let gen = this.#gen
    scan: for (let y = y0; y < y1; y++) {
      for (let i = y * w + x0, e = y * w + x1; i < e; i++) {
        if (owner[i] === gen) { this.flush(); gen = this.#gen; break scan }
      }
    }
    for (let y = y0; y < y1; y++) for (let i = y * w + x0, e = y * w + x1; i < e; i++) owner[i] = gen
    let list = this.#pending.get(syms)
    if (!list) this.#pending.set(syms, list = [])
    let batch = list.length === 1 && list[0]!.kind === g.kind ? list[0] : list.find((b) => b.kind === g.kind)
    if (!batch) {
      list.push(batch = { syms, kind: g.kind, coords: new Float64Array(4096), used: 0, parts: [] })
      this.#order.push(batch)
    }
    let ring = 0, rings = g.rings?.[0] ?? 1, polygon = 0
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k]!
      // Rings in one orientation (outer clockwise on screen, holes counter-clockwise), so the
      // batch fills with "nonzero": features that touch add up instead of cancelling out
      // as "evenodd" would make them; each polygon's holes stay holes.
      let reverse = false
      if (g.kind === 'polygon') {
        let area = 0
        for (let i = 0, n = p.length - 2; i < n; i += 2) area += p[i]! * p[i + 3]! - p[i + 2]! * p[i + 1]!
        reverse = ring === 0 ? area < 0 : area > 0
        if (++ring >= rings) { ring = 0; rings = g.rings?.[++polygon] ?? 1 }
      }
      if (p.length < 4) continue
      if (batch.used + p.length > batch.coords.length) {
        const grown = new Float64Array(Math.max(batch.coords.length * 2, batch.used + p.length))
        grown.set(batch.coords.subarray(0, batch.used))
        batch.coords = grown
      }
      const c = batch.coords
      if (reverse) {
        for (let i = 0, o = batch.used, n = p.length; i < n; i += 2) {
          c[o + i] = Math.round(p[n - 2 - i]! * SNAP) / SNAP
          c[o + i + 1] = Math.round(p[n - 1 - i]! * SNAP) / SNAP
        }
      } else for (let i = 0, o = batch.used; i < p.length; i++) c[o + i] = Math.round(p[i]! * SNAP) / SNAP
      batch.used += p.length
      batch.parts.push(p.length)
    }
  }

  /** Draws everything waiting, in the order the batches began (they do not overlap). */
  flush(): void {
    const ctx = this.pen.ctx
    for (const b of this.#order) {
      const c = b.coords, close = b.kind === 'polygon'
      if (this.surface.svgPath) {
        // One call for the whole batch: SVG path data of the snapped vertices.
        const d: string[] = []
        let o = 0
        for (const n of b.parts) {
          let s = 'M' + c[o] + ' ' + c[o + 1]
          for (let i = o + 2; i < o + n; i += 2) s += 'L' + c[i] + ' ' + c[i + 1]
          d.push(close ? s + 'Z' : s)
          o += n
        }
        paintPath(this.pen, b.syms, b.kind, this.surface.svgPath(d.join('')), 'nonzero')
        continue
      }
      ctx.beginPath()
      let o = 0
      for (const n of b.parts) {
        ctx.moveTo(c[o]!, c[o + 1]!)
        for (let i = o + 2; i < o + n; i += 2) ctx.lineTo(c[i]!, c[i + 1]!)
        if (close) ctx.closePath()
        o += n
      }
      paintPath(this.pen, b.syms, b.kind, undefined, 'nonzero')
    }
    this.#order = []
    this.#pending.clear()
    this.#gen++
  }
}
