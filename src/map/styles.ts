/**
 * @module map/styles
 * How feature layers look: one colour per layer (from a fixed palette, by resource id),
 * styled by geometry type, with the label field's value as a decluttered label. Styles are
 * made once per layer and colour; only labelled features get a style of their own.
 */
import { Circle as CircleStyle, Fill, Stroke, Style, Text } from 'ol/style.js'
import type { FeatureLike } from 'ol/Feature.js'

const PALETTE = ['#e8590c', '#1971c2', '#2f9e44', '#9c36b5', '#c2255c', '#0c8599', '#f08c00', '#5c940d', '#3b5bdb', '#862e9c']

/** The layer's colour: stable for a resource id. */
export const layerColor = (resourceId: number) => PALETTE[resourceId % PALETTE.length]!

/** `#rrggbb` with an alpha. */
function alpha(hex: string, a: number): string {
  const n = Number.parseInt(hex.slice(1), 16)
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${a})`
}

export type GeometryKind = 'point' | 'line' | 'polygon'

/** `MULTIPOLYGONZ` → `polygon`. */
export function geometryKind(layerType: string): GeometryKind {
  const base = layerType.replace(/Z$/, '').replace(/^MULTI/, '')
  return base === 'POINT' ? 'point' : base === 'LINESTRING' ? 'line' : 'polygon'
}

export interface FeatureStyleOptions {
  color: string
  /** Attribute whose value labels each feature. */
  labelKey?: string
  /** Feature id drawn highlighted (the one whose form is open). */
  selected?: () => number | null
}

const HIGHLIGHT = '#1c2329'

/** A style function for a vector-tile layer of one resource. */
export function featureStyle(o: FeatureStyleOptions): (f: FeatureLike) => Style {
  const make = (color: string, width: number, radius: number) => new Style({
    fill: new Fill({ color: alpha(color, 0.25) }),
    stroke: new Stroke({ color, width }),
    image: new CircleStyle({ radius, fill: new Fill({ color }), stroke: new Stroke({ color: '#fff', width: 1.5 }) }),
  })
  const normal = make(o.color, 2, 5)
  const selected = make(HIGHLIGHT, 4, 8)
  const textFill = new Fill({ color: '#1c2329' })
  const textStroke = new Stroke({ color: '#fff', width: 3 })
  return (f) => {
    const base = o.selected && f.getId() === o.selected() ? selected : normal
    const label = o.labelKey ? f.get(o.labelKey) : undefined
    if (label === undefined || label === null || label === '') return base
    const point = f.getGeometry()?.getType().endsWith('Point')
    return new Style({ fill: base.getFill() ?? undefined, stroke: base.getStroke() ?? undefined, image: base.getImage() ?? undefined,
      text: new Text({ text: String(label), font: '12px system-ui, sans-serif', fill: textFill, stroke: textStroke,
        offsetY: point ? -14 : 0, overflow: false, placement: f.getGeometry()?.getType().includes('LineString') ? 'line' : 'point' }) })
  }
}
