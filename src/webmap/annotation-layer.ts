/**
 * @module webmap/annotation-layer
 * A web map's annotations on an OpenLayers map: drawn from their WKT (EPSG:3857), new ones
 * drawn with ol's Draw, the reader's own ones reshaped with ol's Modify. Clicks that draw are
 * kept from identify (map/identify leaves prevented clicks alone).
 */
import type Map from 'ol/Map.js'
import type { MapBrowserEvent } from 'ol'
import Feature from 'ol/Feature.js'
import VectorLayer from 'ol/layer/Vector.js'
import VectorSource from 'ol/source/Vector.js'
import Draw from 'ol/interaction/Draw.js'
import Modify from 'ol/interaction/Modify.js'
import WKT from 'ol/format/WKT.js'
import type Geometry from 'ol/geom/Geometry.js'
import Style from 'ol/style/Style.js'
import Fill from 'ol/style/Fill.js'
import Stroke from 'ol/style/Stroke.js'
import CircleStyle from 'ol/style/Circle.js'
import type { Annotation } from '../api/webmap.ts'

export type AnnotationShape = 'Point' | 'LineString' | 'Polygon'

const wkt = new WKT()
const COLOR = '#d9480f'
const STYLE = new Style({
  fill: new Fill({ color: 'rgba(217, 72, 15, 0.2)' }),
  stroke: new Stroke({ color: COLOR, width: 3 }),
  image: new CircleStyle({ radius: 7, fill: new Fill({ color: COLOR }), stroke: new Stroke({ color: '#fff', width: 2 }) }),
})
/** A click this soon after a drawing ends was the drawing's last click. */
const AFTER_DRAW_MS = 600

export interface AnnotationLayerOptions {
  /** A shape was drawn (WKT, EPSG:3857). */
  drawn(geom: string): void
  /** An own annotation was reshaped. */
  reshaped(id: number, geom: string): void
}

export class AnnotationLayer {
  readonly #source = new VectorSource<Feature<Geometry>>()
  readonly #layer = new VectorLayer({ source: this.#source, style: STYLE, zIndex: 150, properties: { name: 'webmap-annotations' } })
  readonly #own = new VectorSource<Feature<Geometry>>()
  readonly #modify = new Modify({ source: this.#own })
  #draw: Draw | null = null
  #drawnAt = 0
  readonly #onClick = (e: MapBrowserEvent) => {
    if (this.#draw || performance.now() - this.#drawnAt < AFTER_DRAW_MS) (e.originalEvent as Event).preventDefault()
  }

  constructor(private readonly map: Map, private readonly opts: AnnotationLayerOptions) {
    map.addLayer(this.#layer)
    map.addInteraction(this.#modify)
    map.on('singleclick', this.#onClick)
    this.#modify.on('modifyend', (e) => {
      for (const f of e.features.getArray()) this.opts.reshaped(f.get('annotation') as number, wkt.writeGeometry(f.getGeometry()!))
    })
  }

  /** Shows `list`; the reader's own annotations may be reshaped. */
  show(list: readonly Annotation[]): void {
    this.#source.clear()
    this.#own.clear()
    for (const a of list) {
      const f = new Feature({ geometry: wkt.readGeometry(a.geom), annotation: a.id })
      this.#source.addFeature(f)
      if (a.own) this.#own.addFeature(f)
    }
  }

  /** Starts drawing one shape; it ends with `drawn`, or with `stopDrawing`. */
  startDrawing(shape: AnnotationShape): void {
    this.stopDrawing()
    this.#draw = new Draw({ type: shape })
    this.#draw.on('drawend', (e) => {
      this.#drawnAt = performance.now()
      const geom = wkt.writeGeometry(e.feature.getGeometry()!)
      // Removed after the event: Draw is still handling it.
      setTimeout(() => this.stopDrawing())
      this.opts.drawn(geom)
    })
    this.map.addInteraction(this.#draw)
  }

  stopDrawing(): void {
    if (this.#draw) this.map.removeInteraction(this.#draw)
    this.#draw = null
  }

  dispose(): void {
    this.stopDrawing()
    this.map.un('singleclick', this.#onClick)
    this.map.removeInteraction(this.#modify)
    this.map.removeLayer(this.#layer)
  }
}
