/**
 * @module render/labels
 * Labels of one style: candidates are collected while features are drawn, then placed in
 * order on a coarse grid that rejects a label overlapping one already placed, and drawn
 * with their halo on top of the features (as MapServer's label cache does).
 */
import { LABEL_FONT_FAMILY, type Ctx2D } from '../image/canvas.ts'
import type { PixelGeometry } from './wkb-pixels.ts'
import type { LabelStyle } from './style.ts'

const CELL = 32
/** No glyph of the label fonts is narrower than this share of the font size. */
const MIN_GLYPH = 0.25
/**
 * A text is never narrower than this share of its characters' advances summed (kerning and
 * ligatures take a few per cent), nor wider than `MAX_SUM` of it plus one em.
 */
const MIN_SUM = 0.8
const MAX_SUM = 1.25
/** Marks and other zero-width characters: a sum of lone characters' widths is no bound there. */
const UNBOUNDED = /[\p{M}\p{Cf}]/u
/** Character widths by font, kept across tiles (the same few characters label every tile). */
const CHAR_WIDTHS = new Map<string, Map<string, number>>()
const MAX_CHAR_WIDTHS = 20_000

interface Candidate { text: string; style: LabelStyle; x: number; y: number }
type Box = [number, number, number, number]

export function fontOf(s: Pick<LabelStyle, 'size' | 'bold' | 'italic'>): string {
  return `${s.italic ? 'italic ' : ''}${s.bold ? 'bold ' : ''}${Math.round(s.size * 10) / 10}px ${LABEL_FONT_FAMILY}`
}

/** Where a geometry's label goes, in pixels: the point, the middle of the longest line, inside the polygon. */
export function anchorOf(g: PixelGeometry): [number, number] | undefined {
  if (g.kind === 'point') return g.parts[0] ? [g.parts[0][0]!, g.parts[0][1]!] : undefined
  if (g.kind === 'line') return lineMiddle(g.parts)
  return polygonInside(g)
}

function lineMiddle(parts: Float64Array[]): [number, number] | undefined {
  let best: Float64Array | undefined, bestLen = -1
  for (const p of parts) {
    let len = 0
    for (let i = 2; i < p.length; i += 2) len += Math.hypot(p[i]! - p[i - 2]!, p[i + 1]! - p[i - 1]!)
    if (len > bestLen) { bestLen = len; best = p }
  }
  if (!best || best.length < 2) return undefined
  let half = bestLen / 2
  for (let i = 2; i < best.length; i += 2) {
    const seg = Math.hypot(best[i]! - best[i - 2]!, best[i + 1]! - best[i - 1]!)
    if (seg >= half && seg > 0) {
      const t = half / seg
      return [best[i - 2]! + (best[i]! - best[i - 2]!) * t, best[i - 1]! + (best[i + 1]! - best[i - 1]!) * t]
    }
    half -= seg
  }
  return [best[0]!, best[1]!]
}

/** The middle of the widest span of the largest polygon along the horizontal through its box centre. */
function polygonInside(g: PixelGeometry): [number, number] | undefined {
  let ringIndex = 0, best: Float64Array[] | undefined, bestArea = -1
  for (const n of g.rings ?? []) {
    const rings = g.parts.slice(ringIndex, ringIndex + n)
    ringIndex += n
    const outer = rings[0]
    if (!outer || outer.length < 6) continue
    let a = 0
    for (let i = 0, j = outer.length - 2; i < outer.length; j = i, i += 2) a += (outer[j]! + outer[i]!) * (outer[j + 1]! - outer[i + 1]!)
    if (Math.abs(a) > bestArea) { bestArea = Math.abs(a); best = rings }
  }
  if (!best) return undefined
  const outer = best[0]!
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity
  for (let i = 0; i < outer.length; i += 2) {
    minX = Math.min(minX, outer[i]!); maxX = Math.max(maxX, outer[i]!)
    minY = Math.min(minY, outer[i + 1]!); maxY = Math.max(maxY, outer[i + 1]!)
  }
  const y = (minY + maxY) / 2 + 1e-7
  const xs: number[] = []
  for (const r of best) {
    for (let i = 0, j = r.length - 2; i < r.length; j = i, i += 2) {
      const y1 = r[j + 1]!, y2 = r[i + 1]!
      if ((y1 > y) !== (y2 > y)) xs.push(r[j]! + ((y - y1) * (r[i]! - r[j]!)) / (y2 - y1))
    }
  }
  xs.sort((a, b) => a - b)
  let bx = (minX + maxX) / 2, bw = -1
  for (let i = 0; i + 1 < xs.length; i += 2) {
    if (xs[i + 1]! - xs[i]! > bw) { bw = xs[i + 1]! - xs[i]!; bx = (xs[i]! + xs[i + 1]!) / 2 }
  }
  return [bx, y]
}

export class LabelLayer {
  #candidates: Candidate[] = []
  #grid = new Map<number, Box[]>()
  #widths = new Map<string, number>()

  constructor(private ctx: Ctx2D, private width: number, private height: number) {}

  add(text: string, style: LabelStyle, x: number, y: number): void {
    if (text !== '') this.#candidates.push({ text, style, x, y })
  }

  /** Places and draws the collected labels; returns whether any was drawn. */
  draw(): boolean {
    const { ctx } = this
    let drawn = false
    ctx.save()
    ctx.textBaseline = 'middle'
    ctx.textAlign = 'left'
    ctx.lineJoin = 'round'
    let font = ''
    for (const c of this.#candidates) {
      const s = c.style
      const f = fontOf(s)
      if (f !== font) { ctx.font = f; font = f }
      const h = s.size
      const pad = s.halo ? s.halo.width : 0
      const v = s.position[0], hz = s.position[1]
      const x = c.x + s.offset[0], y = c.y + s.offset[1]
      const cy = v === 'u' ? y - h / 2 : v === 'l' ? y + h / 2 : y
      const boxOf = (w: number): Box => {
        const left = hz === 'l' ? x - w : hz === 'c' ? x - w / 2 : x
        return [left - pad, cy - h / 2 - pad, left + w + pad, cy + h / 2 + pad]
      }
      // Most candidates of a crowded tile collide or lie beyond its edge: test boxes narrower
      // and wider than the text can be before asking the canvas to measure it (a call into
      // Skia that shapes the text; in Node it was most of a crowded tile's time). The bounds
      // come from the widths of its characters, each measured once per font.
      // First the crudest bounds, from the length alone: no glyph is wider than 2 em or
      // narrower than MIN_GLYPH.
      const crude = boxOf(c.text.length * s.size * 2)
      if (crude[2] < 0 || crude[0] > this.width || crude[3] < 0 || crude[1] > this.height) continue
      if (this.#collides(boxOf(c.text.length * s.size * MIN_GLYPH))) continue
      const sum = UNBOUNDED.test(c.text) ? undefined : this.#sumOfChars(c.text, f)
      const wide = sum === undefined ? crude : boxOf(sum * MAX_SUM + s.size)
      if (wide[2] < 0 || wide[0] > this.width || wide[3] < 0 || wide[1] > this.height) continue
      if (this.#collides(boxOf(sum === undefined ? c.text.length * s.size * MIN_GLYPH : sum * MIN_SUM))) continue
      const w = this.#measure(c.text, f)
      const box = boxOf(w)
      if (box[2] < 0 || box[0] > this.width || box[3] < 0 || box[1] > this.height) continue
      if (this.#collides(box)) continue
      this.#insert(box)
      if (s.halo && s.halo.width > 0) {
        ctx.strokeStyle = s.halo.color
        ctx.lineWidth = s.halo.width * 2
        ctx.strokeText(c.text, box[0] + pad, cy)
      }
      ctx.fillStyle = s.color
      ctx.fillText(c.text, box[0] + pad, cy)
      drawn = true
    }
    ctx.restore()
    this.#candidates = []
    return drawn
  }

  /** The advances of `text`'s characters measured one by one (each character once per font). */
  #sumOfChars(text: string, font: string): number {
    let widths = CHAR_WIDTHS.get(font)
    if (!widths || widths.size >= MAX_CHAR_WIDTHS) CHAR_WIDTHS.set(font, widths = new Map())
    let sum = 0
    for (const ch of text) {
      let w = widths.get(ch)
      if (w === undefined) {
        w = this.ctx.measureText(ch).width
        widths.set(ch, w)
      }
      sum += w
    }
    return sum
  }

  #measure(text: string, font: string): number {
    const key = font + '\u0000' + text
    let w = this.#widths.get(key)
    if (w === undefined) {
      w = this.ctx.measureText(text).width
      this.#widths.set(key, w)
    }
    return w
  }

  #cells(b: Box, fn: (key: number) => boolean | void): boolean {
    for (let cx = Math.floor(b[0] / CELL); cx <= Math.floor(b[2] / CELL); cx++) {
      for (let cy = Math.floor(b[1] / CELL); cy <= Math.floor(b[3] / CELL); cy++) {
        if (fn((cx + 1024) * 4096 + cy + 1024)) return true
      }
    }
    return false
  }

  #collides(b: Box): boolean {
    return this.#cells(b, (k) => this.#grid.get(k)?.some((o) => b[0] < o[2] && b[2] > o[0] && b[1] < o[3] && b[3] > o[1]))
  }

  #insert(b: Box): void {
    this.#cells(b, (k) => {
      let list = this.#grid.get(k)
      if (!list) this.#grid.set(k, (list = []))
      list.push(b)
    })
  }
}
