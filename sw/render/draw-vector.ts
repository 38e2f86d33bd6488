/**
 * @module render/draw-vector
 * Draws features with a vector style: each feature takes its rule(s), each rule's
 * symbolizers are drawn in order (fills, lines, markers), labels are collected and placed
 * once the features are down. Works on any `Surface`, so both hosts run this same code.
 */
import type { Ctx2D, Surface } from '../image/canvas.ts'
import { evaluate, truthy, valueToText, type Expr, type FeatureRef, type Value } from './expression.ts'
import { LabelLayer, anchorOf } from './labels.ts'
import { isLinear, traceMarker } from './markers.ts'
import { inScale, type FillSymbolizer, type LineSymbolizer, type MarkerSymbolizer, type Stroke, type StyleRule, type Symbolizer, type VectorStyle } from './style.ts'
import { toPixels, type PixelGeometry, type PixelTransform } from './wkb-pixels.ts'
import { PathBatcher, Pen, batchable, paintPath, tracePath, type PathSymbolizer } from './batch.ts'

/** One feature as the layer's R*Tree query returns it: `values` in the order of the requested fields. */
export interface FeatureRow {
  fid: number
  geom: Uint8Array
  values: Value[]
}

export interface DrawOptions {
  transform: PixelTransform
  /** Scale denominator at the style's dpi. */
  scale: number
  /** Keynames of `FeatureRow.values`. */
  fields: string[]
  /** Legend indexes of the rules to draw (`symbols[ID]`); all when undefined. */
  symbols?: Set<number>
  /** Extra condition features must meet (`filter[ID]`). */
  filter?: Expr
  signal?: AbortSignal
}

class Row implements FeatureRef {
  fid = 0
  values: Value[] = []
  constructor(private index: Map<string, number>) {}
  get(name: string): Value {
    const i = this.index.get(name)
    return i === undefined ? null : this.values[i] ?? null
  }
}

function tracePolygons(ctx: Ctx2D, g: PixelGeometry): void {
  ctx.beginPath()
  tracePath(ctx, g)
}

function drawFill(pen: Pen, g: PixelGeometry, s: FillSymbolizer): void {
  if (g.kind !== 'polygon') return
  const ctx = pen.ctx
  tracePolygons(ctx, g)
  if (!s.hatch) return paintPath(pen, [s], g.kind)
  ctx.save()
  ctx.clip('evenodd')
  hatch(ctx, g, s.hatch, s.color ?? 'rgba(0,0,0,1)')
  ctx.restore()
  if (s.outline && s.outline.width > 0) {
    tracePolygons(ctx, g)
    pen.stroke(s.outline)
    ctx.stroke()
  }
}

function hatch(ctx: Ctx2D, g: PixelGeometry, h: NonNullable<FillSymbolizer['hatch']>, color: string): void {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity
  for (const p of g.parts) {
    for (let i = 0; i < p.length; i += 2) {
      minX = Math.min(minX, p[i]!); maxX = Math.max(maxX, p[i]!)
      minY = Math.min(minY, p[i + 1]!); maxY = Math.max(maxY, p[i + 1]!)
    }
  }
  const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2, r = Math.hypot(maxX - minX, maxY - minY) / 2 + 1
  ctx.strokeStyle = color
  ctx.lineWidth = h.width
  ctx.setLineDash([])
  const gap = Math.max(h.gap, 1)
  for (const deg of h.angles) {
    const a = (-deg * Math.PI) / 180
    const dx = Math.cos(a), dy = Math.sin(a)
    ctx.beginPath()
    for (let o = -r; o <= r; o += gap) {
      // Lines along (dx, dy), offset along the normal; anchored at multiples of `gap` so neighbouring tiles meet.
      const ox = cx - dy * o, oy = cy + dx * o
      ctx.moveTo(ox - dx * r, oy - dy * r)
      ctx.lineTo(ox + dx * r, oy + dy * r)
    }
    ctx.stroke()
  }
}

function drawLine(pen: Pen, g: PixelGeometry, s: LineSymbolizer): void {
  if (g.kind === 'point') return
  tracePolygons(pen.ctx, g)
  paintPath(pen, [s], g.kind)
}

function drawMarkers(pen: Pen, g: PixelGeometry, s: MarkerSymbolizer): void {
  const ctx = pen.ctx
  const at = g.kind === 'point' ? g.parts.map((p) => [p[0]!, p[1]!] as const) : [anchorOf(g)].filter((a) => !!a) as [number, number][]
  const linear = isLinear(s.shape)
  for (const [x, y] of at) {
    traceMarker(ctx, s.shape, x, y, s.size, s.angle)
    if (s.fill && !linear) {
      pen.fill(s.fill)
      ctx.fill()
    }
    const stroke = s.stroke ?? (linear && s.fill ? { color: s.fill, width: 1, cap: 'butt', join: 'miter' } as Stroke : undefined)
    if (stroke && stroke.width > 0) {
      pen.stroke(stroke)
      ctx.stroke()
    }
  }
}

/** The rules (with their legend indexes) a style draws at `scale`, after `symbols[]`. */
function activeRules(style: VectorStyle, o: DrawOptions): { rule: StyleRule; index: number }[] {
  return style.rules.map((rule, index) => ({ rule, index }))
    .filter(({ rule, index }) => rule.enabled && inScale(rule, o.scale) && (!o.symbols || o.symbols.has(index)))
}

/**
 * Draws `features` on `surface` with `style` (its layer opacity is the caller's: the layer is
 * composited as a whole); returns whether anything was drawn (an empty tile is answered by
 * `nd`). Throws `signal.reason` when aborted.
 */
export function drawVector(surface: Surface, style: VectorStyle, features: Iterable<FeatureRow>, o: DrawOptions): boolean {
  const ctx = surface.ctx
  const rules = activeRules(style, o)
  const elseRules = rules.filter((r) => r.rule.isElse)
  const plainRules = rules.filter((r) => !r.rule.isElse)
  const layerLabels = style.labels.filter((l) => inScale(l.label, o.scale))
  if (!rules.length && !layerLabels.length) return false
  const labels = new LabelLayer(ctx, surface.width, surface.height)
  const row = new Row(new Map(o.fields.map((f, i) => [f, i])))
  let drawn = false
  let n = 0
  ctx.save()
  const pen = new Pen(ctx)
  const batcher = new PathBatcher(pen, surface)
  // The symbolizers each rule draws at this scale; plain fills and lines are batched.
  const drawsOf = new Map<StyleRule, { syms: Symbolizer[]; batch?: PathSymbolizer[] }>()
  for (const { rule } of rules) {
    const syms = rule.symbolizers.filter((s) => inScale(s, o.scale))
    drawsOf.set(rule, { syms, batch: syms.length && batchable(syms) ? syms : undefined })
  }
  const matched: StyleRule[] = []
  for (const f of features) {
    if ((++n & 1023) === 0) o.signal?.throwIfAborted()
    row.fid = f.fid
    row.values = f.values
    if (o.filter && !truthy(evaluate(o.filter, row))) continue
    matched.length = 0
    for (const { rule } of plainRules) {
      if (rule.filter && !truthy(evaluate(rule.filter, row))) continue
      matched.push(rule)
      if (style.firstMatch) break
    }
    if (!matched.length) for (const { rule } of elseRules) matched.push(rule)
    if (!matched.length && !layerLabels.length) continue
    const g = toPixels(f.geom, o.transform)
    if (!g || !g.parts.length) continue
    for (const rule of matched) {
      const draws = drawsOf.get(rule)!
      if (draws.batch && g.kind !== 'point') {
        batcher.add(draws.batch, g)
        drawn = true
      } else if (draws.syms.length) {
        batcher.flush()
        for (const s of draws.syms) {
          if (s.kind === 'fill') drawFill(pen, g, s)
          else if (s.kind === 'line') drawLine(pen, g, s)
          else drawMarkers(pen, g, s)
        }
        drawn = true
      }
      if (rule.label && inScale(rule.label, o.scale)) addLabel(labels, rule.label, g, row)
    }
    for (const l of layerLabels) {
      if (!l.filter || truthy(evaluate(l.filter, row))) addLabel(labels, l.label, g, row)
    }
  }
  batcher.flush()
  ctx.setLineDash([])
  if (labels.draw()) drawn = true
  ctx.restore()
  return drawn
}

function addLabel(labels: LabelLayer, style: VectorStyle['labels'][number]['label'], g: PixelGeometry, row: Row): void {
  const a = anchorOf(g)
  if (a) labels.add(valueToText(evaluate(style.text, row)), style, a[0], a[1])
}
