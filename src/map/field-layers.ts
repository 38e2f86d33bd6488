/**
 * @module map/field-layers
 * What field collection puts on the map: the sketch of the feature being added or edited
 * (drawn with `Draw`, reshaped with `Modify`) and the device position with its accuracy
 * circle. The chosen layer's features are drawn by the layer list from its vector tiles;
 * clicking one opens it, and the open one is highlighted there. Geometries are GeoJSON in
 * EPSG:3857, the map's projection, as the feature API returns them with `srs=3857`.
 */
import type Map from 'ol/Map.js'
import type { MapBrowserEvent } from 'ol'
import Feature from 'ol/Feature.js'
import VectorLayer from 'ol/layer/Vector.js'
import VectorSource from 'ol/source/Vector.js'
import GeoJSON from 'ol/format/GeoJSON.js'
import Draw from 'ol/interaction/Draw.js'
import Modify from 'ol/interaction/Modify.js'
import Point from 'ol/geom/Point.js'
import { circular } from 'ol/geom/Polygon.js'
import type Geometry from 'ol/geom/Geometry.js'
import { Circle as CircleStyle, Fill, Stroke, Style } from 'ol/style.js'
import { fromLonLat, transformExtent } from 'ol/proj.js'
import type { Geometry as GeoJsonGeometry } from '../api/feature.ts'
import type { LonLatExtent } from '../api/map.ts'
import type { Position } from '../composables/useGeolocation.ts'
import { layerListOf } from './layer-list.ts'

const geojson = new GeoJSON()

/** `MULTIPOLYGONZ` → `Polygon`: what a person draws for a layer of that type. */
export function drawTypeOf(layerType: string): 'Point' | 'LineString' | 'Polygon' {
  const base = layerType.replace(/Z$/, '').replace(/^MULTI/, '')
  return base === 'POINT' ? 'Point' : base === 'LINESTRING' ? 'LineString' : 'Polygon'
}

/**
 * A drawn geometry in the layer's exact type: single parts become multi for MULTI layers
 * (the API takes only the layer's type), and Z layers get a height of 0.
 */
export function toLayerGeometry(g: GeoJsonGeometry, layerType: string): GeoJsonGeometry {
  let out = g
  if (layerType.startsWith('MULTI') && !g.type.startsWith('Multi')) out = { type: `Multi${g.type}`, coordinates: [g.coordinates] }
  if (layerType.endsWith('Z')) {
    const pad = (c: unknown): unknown => Array.isArray(c) && typeof c[0] === 'number' ? [c[0], c[1], c[2] ?? 0] : (c as unknown[]).map(pad)
    out = { type: out.type, coordinates: pad(out.coordinates) }
  }
  return out
}

const sketchStyle = new Style({
  fill: new Fill({ color: 'rgba(255, 255, 255, 0.35)' }),
  stroke: new Stroke({ color: '#0b7285', width: 3, lineDash: [8, 6] }),
  image: new CircleStyle({ radius: 8, fill: new Fill({ color: '#0b7285' }), stroke: new Stroke({ color: '#fff', width: 2 }) }),
})

const positionStyles = {
  accuracy: new Style({ fill: new Fill({ color: 'rgba(51, 153, 204, 0.18)' }), stroke: new Stroke({ color: 'rgba(51, 153, 204, 0.8)', width: 1 }) }),
  point: new Style({ image: new CircleStyle({ radius: 7, fill: new Fill({ color: '#3399cc' }), stroke: new Stroke({ color: '#fff', width: 2 }) }) }),
}

export class FieldLayers {
  private readonly sketch = new VectorSource()
  private readonly position = new VectorSource()
  private readonly layers: VectorLayer[]
  private readonly modify: Modify
  private draw: Draw | null = null
  /** When the last drawing ended: the click that ended it must not also pick a feature. */
  private drawEndedAt = 0
  private selected: number | null = null
  /** The layer features are collected in. */
  private resourceId: number | null = null
  private readonly onClick: (e: MapBrowserEvent) => void

  /**
   * @param onPick a feature of the layer was clicked (not while drawing)
   * @param onSketch the sketch changed (drawn, moved, cleared)
   */
  constructor(private readonly map: Map, onPick: (fid: number) => void, private readonly onSketch: () => void) {
    this.layers = [
      new VectorLayer({ source: this.position, zIndex: 200, properties: { name: 'field-position' },
        style: (f) => (f.getGeometry() instanceof Point ? positionStyles.point : positionStyles.accuracy) }),
      new VectorLayer({ source: this.sketch, zIndex: 220, style: sketchStyle, properties: { name: 'field-sketch' } }),
    ]
    for (const l of this.layers) map.addLayer(l)
    this.modify = new Modify({ source: this.sketch })
    this.modify.on('modifyend', () => onSketch())
    this.modify.setActive(false)
    map.addInteraction(this.modify)
    // A click used here is marked handled, so identify leaves it alone.
    this.onClick = (e) => {
      if (this.draw || Date.now() - this.drawEndedAt < 600) { e.preventDefault(); return }
      if (this.resourceId === null) return
      const id = this.resourceId
      const fid = layerListOf(map).featureAt(id, e.pixel, 6)
      if (fid !== undefined) {
        e.preventDefault()
        onPick(fid)
      }
    }
    map.on('singleclick', this.onClick)
  }

  /** The layer whose features are picked and highlighted. */
  setLayer(id: number | null): void {
    if (this.resourceId !== null && this.resourceId !== id) layerListOf(this.map).select(this.resourceId, null)
    this.resourceId = id
    this.select(this.selected)
  }

  /** Emphasises one feature (the one whose form is open). */
  select(fid: number | null): void {
    this.selected = fid
    if (this.resourceId !== null) layerListOf(this.map).select(this.resourceId, fid)
  }

  /** Fits the view to a lon/lat extent (the layer's or one feature's). */
  fit(x: LonLatExtent | null, opts: { padding: number; minZoom?: number } = { padding: 40 }): void {
    if (!x || x.minLon === null) return
    const extent = transformExtent([x.minLon, x.minLat!, x.maxLon!, x.maxLat!], 'EPSG:4326', 'EPSG:3857')
    const p = opts.padding
    this.map.getView().fit(extent, { padding: [p, p, p, p], maxZoom: Math.max(17, opts.minZoom ?? 0), duration: 0 })
  }

  /** The device position with its accuracy circle, or nothing. */
  setPosition(p: Position | null): void {
    this.position.clear()
    if (!p) return
    const circle = circular([p.lon, p.lat], Math.max(p.accuracy, 1), 64).transform('EPSG:4326', 'EPSG:3857')
    this.position.addFeatures([new Feature(circle), new Feature(new Point(fromLonLat([p.lon, p.lat])))])
  }

  centerOn(p: Position): void {
    const view = this.map.getView()
    view.setCenter(fromLonLat([p.lon, p.lat]))
    view.setZoom(Math.max(view.getZoom() ?? 0, 16))
  }

  /** Replaces the sketch by a geometry (or clears it) and lets the person reshape it. */
  setSketch(g: GeoJsonGeometry | null): void {
    this.stopDrawing()
    this.sketch.clear()
    if (g) this.sketch.addFeature(new Feature(geojson.readGeometry(g) ?? undefined))
    this.modify.setActive(!!g)
  }

  /** The sketch as GeoJSON (EPSG:3857), or null. */
  getSketch(): GeoJsonGeometry | null {
    const g = this.sketch.getFeatures()[0]?.getGeometry()
    return g ? (geojson.writeGeometryObject(g) as GeoJsonGeometry) : null
  }

  /**
   * The device position into the sketch: the point itself for point layers; otherwise the
   * next vertex of a line, or of a polygon once it has three (walking its outline).
   */
  addPositionVertex(p: Position, type: 'Point' | 'LineString' | 'Polygon'): void {
    this.stopDrawing()
    const c = fromLonLat([p.lon, p.lat])
    if (type === 'Point') {
      this.setSketch({ type: 'Point', coordinates: c })
    } else {
      const g = this.getSketch()
      let coords: number[][] = []
      if (g?.type === 'LineString') coords = g.coordinates as number[][]
      else if (g?.type === 'Polygon') coords = (g.coordinates as number[][][])[0]!.slice(0, -1)
      coords = [...coords, c]
      this.setSketch(type === 'Polygon' && coords.length >= 3
        ? { type: 'Polygon', coordinates: [[...coords, coords[0]!]] }
        : { type: 'LineString', coordinates: coords })
    }
    this.onSketch()
  }

  /** Starts drawing a new sketch of the given type; the first finished drawing replaces the sketch. */
  startDrawing(type: 'Point' | 'LineString' | 'Polygon'): void {
    this.stopDrawing()
    this.modify.setActive(false)
    const draw = new Draw({ type, style: sketchStyle })
    draw.on('drawend', (e) => {
      this.drawEndedAt = Date.now()
      this.sketch.clear()
      this.sketch.addFeature(new Feature(e.feature.getGeometry() as Geometry))
      // After the event: OpenLayers finishes its own handling of the click first.
      setTimeout(() => {
        this.stopDrawing()
        this.modify.setActive(true)
        this.onSketch()
      })
    })
    this.draw = draw
    this.map.addInteraction(draw)
  }

  get drawing(): boolean {
    return this.draw !== null
  }

  stopDrawing(): void {
    if (!this.draw) return
    this.map.removeInteraction(this.draw)
    this.draw = null
  }

  /** Ends editing: no sketch, no drawing. */
  clearSketch(): void {
    this.stopDrawing()
    this.sketch.clear()
    this.modify.setActive(false)
  }

  dispose(): void {
    this.setLayer(null)
    this.clearSketch()
    this.map.un('singleclick', this.onClick)
    this.map.removeInteraction(this.modify)
    for (const l of this.layers) this.map.removeLayer(l)
  }
}
