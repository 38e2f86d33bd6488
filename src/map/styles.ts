/**
 * @module map/styles
 * How feature layers look: one colour per layer (from a fixed palette, by resource id),
 * styled by geometry type, with the label field's value as a decluttered label; points in
 * crowded tiles as dots without labels. Styles are made once per layer and colour.
 */
import { Circle as CircleStyle, Fill, Stroke, Style, Text } from 'ol/style.js'
import type { FeatureLike } from 'ol/Feature.js'
import Polygon from 'ol/geom/Polygon.js'
import { DOT_RADIUS, DOT_RIM, octagon } from './dots.ts'

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
  /**
   * Whether a feature came in a crowded tile (map/layer-kinds): its points are drawn into the
   * tile's image as small dots, without a label (see `featureStyle`).
   */
  crowded?: (f: FeatureLike) => boolean
}

const HIGHLIGHT = '#1c2329'

/**
 * A style function for a vector-tile layer of one resource. Styles are made once and reused
 * (labels by changing the text of a shared style, which OpenLayers reads at once): no style
 * is made per feature (a dot's polygon is). Points in crowded tiles are drawn as polygons (dots), without labels:
 * OpenLayers paints polygons into the tile's image once, but point symbols and labels again on
 * every frame of a pan, through the declutter tree — with thousands per tile that made panning
 * stutter (docs/benchmarks.md, "Map panning").
 */
export function featureStyle(o: FeatureStyleOptions): (f: FeatureLike, resolution: number) => Style {
  const make = (color: string, width: number, radius: number) => new Style({
    fill: new Fill({ color: alpha(color, 0.25) }),
    stroke: new Stroke({ color, width }),
    image: new CircleStyle({ radius, fill: new Fill({ color }), stroke: new Stroke({ color: '#fff', width: 1.5 }) }),
  })
  const normal = make(o.color, 2, 5)
  const selected = make(HIGHLIGHT, 4, 8)
  const labelled = (base: Style) => new Style({ fill: base.getFill() ?? undefined, stroke: base.getStroke() ?? undefined,
    image: base.getImage() ?? undefined, text: new Text({ font: '12px system-ui, sans-serif', fill: new Fill({ color: '#1c2329' }),
      stroke: new Stroke({ color: '#fff', width: 3 }), overflow: false }) })
  const labels = new globalThis.Map([[normal, labelled(normal)], [selected, labelled(selected)]])
  // Per tile resolution (a few): the dot's size in map units depends on it.
  const dots = new globalThis.Map<number, Style>()
  const dot = (resolution: number) => {
    let style = dots.get(resolution)
    if (!style) {
      const radius = DOT_RADIUS * resolution
      style = new Style({ fill: new Fill({ color: o.color }), stroke: new Stroke({ color: '#fff', width: DOT_RIM }),
        geometry: (f) => {
          const [x, y] = (f.getGeometry() as unknown as { getFlatCoordinates(): number[] }).getFlatCoordinates()
          return new Polygon(octagon(x!, y!, radius), 'XY', [18])
        } })
      dots.set(resolution, style)
    }
    return style
  }
  return (f, resolution) => {
    const type = f.getGeometry()?.getType()
    const base = o.selected && f.getId() === o.selected() ? selected : normal
    if (base === normal && type === 'Point' && o.crowded?.(f)) return dot(resolution)
    const label = o.labelKey ? f.get(o.labelKey) : undefined
    if (label === undefined || label === null || label === '' || o.crowded?.(f)) return base
    const style = labels.get(base)!
    const text = style.getText()!
    text.setText(String(label))
    text.setOffsetY(type?.endsWith('Point') ? -14 : 0)
    text.setPlacement(type?.includes('LineString') ? 'line' : 'point')
    return style
  }
}
