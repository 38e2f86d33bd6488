/**
 * @module render/style
 * The style model every dialect parses into (MapServer XML, QGIS QML) and the renderer
 * draws. Sizes are pixels at the style's `dpi`; scales are denominators in that dpi.
 */
import type { Expr } from './expression.ts'

export type GeometryKind = 'point' | 'line' | 'polygon'

export interface Stroke {
  color: string
  width: number
  dash?: number[]
  cap: 'butt' | 'round' | 'square'
  join: 'miter' | 'round' | 'bevel'
}

export type MarkerShape = 'circle' | 'square' | 'triangle' | 'diamond' | 'star' | 'pentagon' | 'hexagon'
  | 'cross' | 'x' | 'line' | 'arrow' | { points: number[][]; filled: boolean }

export interface ScaleRange {
  /** Drawn when `minScale <= scale`; undefined = no lower bound. */
  minScale?: number
  /** Drawn when `scale < maxScale`; undefined = no upper bound. */
  maxScale?: number
}

export interface FillSymbolizer extends ScaleRange {
  kind: 'fill'
  color?: string
  outline?: Stroke
  /** Line hatching instead of a solid colour (MapServer `std:hatch`, QGIS brush styles). */
  hatch?: { angles: number[]; gap: number; width: number }
}

export interface LineSymbolizer extends ScaleRange {
  kind: 'line'
  stroke: Stroke
  /** A wider line drawn beneath (MapServer's OUTLINECOLOR on lines). */
  casing?: { color: string; width: number }
}

export interface MarkerSymbolizer extends ScaleRange {
  kind: 'marker'
  shape: MarkerShape
  /** Diameter in px. */
  size: number
  fill?: string
  stroke?: Stroke
  /** Degrees clockwise. */
  angle: number
}

export type Symbolizer = FillSymbolizer | LineSymbolizer | MarkerSymbolizer

export type LabelPosition = 'ul' | 'uc' | 'ur' | 'cl' | 'cc' | 'cr' | 'll' | 'lc' | 'lr'

export interface LabelStyle extends ScaleRange {
  text: Expr
  /** Font size in px. */
  size: number
  color: string
  bold: boolean
  italic: boolean
  halo?: { color: string; width: number }
  position: LabelPosition
  offset: [number, number]
}

export interface StyleRule extends ScaleRange {
  /** The legend entry's text. */
  title: string
  filter?: Expr
  /** QGIS's ELSE rule and "all other values" category: drawn when no other rule matched. */
  isElse?: boolean
  symbolizers: Symbolizer[]
  label?: LabelStyle
  /** False when the style switches the class off (QGIS `render="false"`). */
  enabled: boolean
}

export interface VectorStyle {
  kind: 'vector'
  rules: StyleRule[]
  /** MapServer draws a feature with its first matching class; QGIS with every matching rule. */
  firstMatch: boolean
  /** Labels independent of the rules (QGIS layer labeling). */
  labels: { filter?: Expr; label: LabelStyle }[]
  /** 0..1 over the whole layer. */
  opacity: number
  /** Dots per inch the scale denominators are computed at (MapServer 72, QGIS 96). */
  dpi: number
}

/** Scale denominator of a map whose pixels are `resolution` metres wide, at `dpi`. */
export function scaleDenominator(resolution: number, dpi: number): number {
  return resolution * dpi / 0.0254
}

export function inScale(r: ScaleRange, scale: number): boolean {
  return (r.minScale === undefined || scale >= r.minScale) && (r.maxScale === undefined || scale < r.maxScale)
}

export const rgba = (r: number, g: number, b: number, a = 1) =>
  `rgba(${Math.round(r)},${Math.round(g)},${Math.round(b)},${Math.round(a * 1000) / 1000})`

export const DEFAULT_STROKE: Stroke = { color: rgba(0, 0, 0), width: 1, cap: 'round', join: 'round' }

/** A style that cannot be read; `where` says which part (answered as a 422 naming it). */
export class StyleError extends Error {
  constructor(message: string, readonly where: string) {
    super(`${message} - at ${where}`)
  }
}
