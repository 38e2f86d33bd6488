/**
 * @module classes/qgis_vector_style/qml-symbols
 * QGIS symbols (`<symbol type="fill|line|marker">` with SimpleFill, SimpleLine and
 * SimpleMarker layers) read into symbolizers. Properties come from `<Option>` maps (QGIS ≥ 3.26)
 * or `<prop k v>` (older); sizes in millimetres, points or pixels become pixels at 96 dpi.
 */
import { childrenOf, child, type XmlNode } from '../../render/xml.ts'
import { rgba, StyleError, type MarkerShape, type Stroke, type Symbolizer } from '../../render/style.ts'

export const QGIS_DPI = 96

/** The properties of a symbol layer, from either notation. */
export function propsOf(layer: XmlNode): Record<string, string> {
  const out: Record<string, string> = {}
  for (const p of childrenOf(layer, 'prop')) if (p.attrs.k !== undefined) out[p.attrs.k] = p.attrs.v ?? ''
  const map = child(layer, 'option')
  if (map) for (const o of childrenOf(map, 'option')) if (o.attrs.name !== undefined) out[o.attrs.name] = o.attrs.value ?? ''
  return out
}

/** A length in `unit` as pixels (map units are read as pixels: the model has no scale-dependent sizes). */
export function toPx(v: number, unit: string | undefined): number {
  switch ((unit ?? 'MM').toLowerCase()) {
    case 'pixel': case 'mapunit': case 'rendermetersinmapunits': return v
    case 'point': return (v * QGIS_DPI) / 72
    case 'inch': return v * QGIS_DPI
    default: return (v * QGIS_DPI) / 25.4
  }
}

/** `r,g,b,a` (QGIS ≥ 3.28 appends `,rgb:…`), or `#rrggbb`, times `alpha`. */
export function qgisColor(v: string | undefined, alpha: number, where: string): string | undefined {
  if (v === undefined || v === '') return undefined
  if (v.startsWith('#')) {
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(v)
    if (!m) throw new StyleError(`Invalid colour '${v}'`, where)
    return rgba(parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16), alpha)
  }
  const parts = v.split(',').slice(0, 4).map(Number)
  if (parts.length < 3 || parts.some((x) => !Number.isFinite(x))) throw new StyleError(`Invalid colour '${v}'`, where)
  const a = ((parts[3] ?? 255) / 255) * alpha
  return a > 0 ? rgba(parts[0]!, parts[1]!, parts[2]!, a) : undefined
}

const num = (v: string | undefined, fallback: number) => (v === undefined || v === '' || !Number.isFinite(Number(v)) ? fallback : Number(v))

const DASHES: Record<string, number[]> = { dash: [4, 2], dot: [1, 2], 'dash dot': [4, 2, 1, 2], 'dash dot dot': [4, 2, 1, 2, 1, 2] }

function stroke(color: string | undefined, width: number, style: string | undefined, cap: string | undefined,
  join: string | undefined, custom?: number[]): Stroke | undefined {
  if (!color || style === 'no') return undefined
  const w = Math.max(width, 0.5)
  return {
    color, width: w,
    dash: custom ?? (style && DASHES[style] ? DASHES[style]!.map((d) => d * w) : undefined),
    cap: cap === 'flat' ? 'butt' : cap === 'round' ? 'round' : cap === 'square' ? 'square' : 'round',
    join: join === 'miter' ? 'miter' : join === 'bevel' ? 'bevel' : 'round',
  }
}

const HATCH: Record<string, number[]> = { horizontal: [0], vertical: [90], cross: [0, 90], b_diagonal: [45], f_diagonal: [-45], diagonal_x: [45, -45] }
const DENSE: Record<string, number> = { dense1: 0.94, dense2: 0.88, dense3: 0.63, dense4: 0.5, dense5: 0.37, dense6: 0.12, dense7: 0.06 }

const SHAPES: Record<string, MarkerShape> = {
  circle: 'circle', square: 'square', rectangle: 'square', diamond: 'diamond', pentagon: 'pentagon', hexagon: 'hexagon',
  triangle: 'triangle', equilateral_triangle: 'triangle', star: 'star', regular_star: 'star', arrow: 'arrow',
  cross: 'cross', cross2: 'x', x: 'x', line: 'line', filled_arrowhead: 'triangle', arrowhead: 'triangle',
}

/** The symbolizers of a `<symbol>`; symbol layers of other kinds than the simple ones are left out. */
export function symbolizersOf(symbol: XmlNode, where: string): Symbolizer[] {
  const alpha = num(symbol.attrs.alpha, 1)
  const out: Symbolizer[] = []
  childrenOf(symbol, 'layer').forEach((layer, i) => {
    if (layer.attrs.enabled === '0') return
    const at = `${where}/layer[${i + 1}]`
    const p = propsOf(layer)
    const cls = layer.attrs.class ?? ''
    if (cls === 'SimpleFill') {
      const style = p.style ?? 'solid'
      const fillColor = qgisColor(p.color, alpha * (DENSE[style] ?? 1), at)
      const outline = stroke(qgisColor(p.outline_color ?? p.color_border, alpha, at),
        toPx(num(p.outline_width ?? p.width_border, 0.26), p.outline_width_unit ?? p.border_width_unit),
        p.outline_style ?? p.style_border, undefined, p.joinstyle)
      const angles = HATCH[style]
      // A hatched fill draws its lines in the fill colour instead of filling.
      out.push({ kind: 'fill', color: style === 'no' ? undefined : fillColor, outline,
        hatch: angles && fillColor ? { angles, gap: 8, width: 1 } : undefined })
    } else if (cls === 'SimpleLine') {
      const width = toPx(num(p.line_width ?? p.width, 0.26), p.line_width_unit ?? p.width_unit)
      const custom = p.use_custom_dash === '1' && p.customdash
        ? p.customdash.split(';').map((d) => toPx(num(d, 1), p.customdash_unit)) : undefined
      const s = stroke(qgisColor(p.line_color ?? p.color, alpha, at), width, p.line_style ?? p.penstyle, p.capstyle, p.joinstyle, custom)
      if (s) out.push({ kind: 'line', stroke: s })
    } else if (cls === 'SimpleMarker' || cls === 'SvgMarker' || cls === 'FontMarker') {
      const shape = cls === 'SimpleMarker' ? SHAPES[p.name ?? 'circle'] ?? 'circle' : 'circle'
      out.push({ kind: 'marker', shape,
        size: toPx(num(p.size, 2), p.size_unit),
        fill: qgisColor(p.color, alpha, at),
        stroke: stroke(qgisColor(p.outline_color ?? p.color_border, alpha, at),
          toPx(num(p.outline_width, 0), p.outline_width_unit), p.outline_style, undefined, p.joinstyle),
        angle: num(p.angle, 0) })
    }
  })
  return out
}
