/**
 * @module render/legend
 * Legends of vector styles: one icon per rule (`legend_symbols`, reference §9) drawn with
 * the rule's own symbolizers, and the legend as one PNG (icons with their titles).
 */
import type { CanvasFactory, Surface } from '../image/canvas.ts'
import { fontOf } from './labels.ts'
import { isLinear, traceMarker } from './markers.ts'
import type { StyleRule, Symbolizer, VectorStyle } from './style.ts'
import { toBase64 } from '../core/bytes.ts'

export interface LegendSymbol {
  index: number
  render: boolean | null
  display_name: string
  icon: { format: 'png'; data: string }
}

function drawSymbolizer(s: Surface, sym: Symbolizer, size: number): void {
  const ctx = s.ctx
  ctx.setLineDash([])
  if (sym.kind === 'fill') {
    const inset = Math.max(1, Math.round(size / 8))
    ctx.beginPath()
    ctx.rect(inset, inset, size - 2 * inset, size - 2 * inset)
    if (sym.color) { ctx.fillStyle = sym.color; ctx.fill() }
    if (sym.outline) {
      ctx.strokeStyle = sym.outline.color
      ctx.lineWidth = Math.min(sym.outline.width, size / 4)
      ctx.stroke()
    }
  } else if (sym.kind === 'line') {
    ctx.beginPath()
    ctx.moveTo(1, size / 2)
    ctx.lineTo(size - 1, size / 2)
    ctx.lineCap = 'butt'
    if (sym.casing) { ctx.strokeStyle = sym.casing.color; ctx.lineWidth = Math.min(sym.casing.width, size / 2); ctx.stroke() }
    ctx.strokeStyle = sym.stroke.color
    ctx.lineWidth = Math.min(sym.stroke.width, size / 2)
    ctx.setLineDash(sym.stroke.dash ?? [])
    ctx.stroke()
  } else {
    traceMarker(ctx, sym.shape, size / 2, size / 2, Math.min(sym.size, size - 2), sym.angle)
    if (sym.fill && !isLinear(sym.shape)) { ctx.fillStyle = sym.fill; ctx.fill() }
    const stroke = sym.stroke ?? (isLinear(sym.shape) && sym.fill ? { color: sym.fill, width: 1 } : undefined)
    if (stroke) { ctx.strokeStyle = stroke.color; ctx.lineWidth = Math.min(stroke.width, size / 4); ctx.stroke() }
  }
}

function drawIcon(s: Surface, rule: StyleRule, opacity: number, size: number, dx = 0, dy = 0): void {
  s.ctx.save()
  s.ctx.translate(dx, dy)
  s.ctx.globalAlpha = opacity
  for (const sym of rule.symbolizers) drawSymbolizer(s, sym, size)
  s.ctx.restore()
}

export async function legendSymbols(style: VectorStyle, canvas: CanvasFactory, iconSize: number): Promise<LegendSymbol[]> {
  const out: LegendSymbol[] = []
  for (const [index, rule] of style.rules.entries()) {
    const s = canvas(iconSize, iconSize)
    drawIcon(s, rule, style.opacity, iconSize)
    out.push({ index, render: rule.enabled ? true : null, display_name: rule.title,
      icon: { format: 'png', data: toBase64(await s.png()) } })
  }
  return out
}

const ICON = 16
const ROW = 22
const FONT = { size: 12, bold: false, italic: false }

/** The size of `legendImage`'s image, without drawing it (a WMS LegendURL states it). */
export function legendSize(style: VectorStyle, canvas: CanvasFactory): { width: number; height: number } {
  const rules = style.rules.filter((r) => r.enabled)
  const measure = canvas(1, 1)
  measure.ctx.font = fontOf(FONT)
  const textWidth = Math.max(0, ...rules.map((r) => measure.ctx.measureText(r.title).width))
  return { width: Math.ceil(ICON + 12 + textWidth + 4), height: Math.max(1, rules.length * ROW + 4) }
}

/** The legend as one image: a row per rule with its icon and title. */
export async function legendImage(style: VectorStyle, canvas: CanvasFactory): Promise<Uint8Array> {
  const rules = style.rules.filter((r) => r.enabled)
  const { width, height } = legendSize(style, canvas)
  const s = canvas(width, height)
  rules.forEach((r, i) => {
    const y = 2 + i * ROW
    drawIcon(s, r, style.opacity, ICON, 2, y + (ROW - ICON) / 2)
    s.ctx.font = fontOf(FONT)
    s.ctx.textBaseline = 'middle'
    s.ctx.textAlign = 'left'
    s.ctx.fillStyle = 'rgba(0,0,0,1)'
    s.ctx.fillText(r.title, ICON + 10, y + ROW / 2)
  })
  return s.png()
}

/**
 * A raster style's legend: a fixed 16 px icon, as the original's raster_style answers (it
 * draws no preview of the raster, which may be slow): four shaded cells, a raster's pixels.
 */
export function rasterLegendIcon(canvas: CanvasFactory): Promise<Uint8Array> {
  const s = canvas(16, 16)
  const cells = [[1, 1, 'rgba(76,140,74,1)'], [8, 1, 'rgba(160,196,110,1)'], [1, 8, 'rgba(214,196,140,1)'], [8, 8, 'rgba(120,96,64,1)']] as const
  for (const [x, y, colour] of cells) {
    s.ctx.fillStyle = colour
    s.ctx.beginPath()
    s.ctx.rect(x, y, 7, 7)
    s.ctx.fill()
  }
  return s.png()
}
