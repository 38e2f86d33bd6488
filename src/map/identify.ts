/**
 * @module map/identify
 * Identify on the map: a click asks the backend for the features of the visible layers
 * within a few pixels of it; "identify by area" lets the person draw a polygon instead. A
 * click that another tool already used (the field panel picking its feature, a drawing)
 * is left alone: those tools mark the event with `preventDefault`.
 */
import type Map from 'ol/Map.js'
import type { MapBrowserEvent } from 'ol'
import Draw from 'ol/interaction/Draw.js'
import WKT from 'ol/format/WKT.js'
import { fromExtent } from 'ol/geom/Polygon.js'
import type Geometry from 'ol/geom/Geometry.js'
import { buffer as bufferExtent } from 'ol/extent.js'

/** Pixels around a click that count as clicked. */
export const CLICK_TOLERANCE = 6

const wkt = new WKT()

/** A layer to identify in: its title and its feature layer. */
export interface IdentifyLayer { title: string; featureLayer: number }

export interface IdentifyToolOptions {
  /** A geometry to identify by (WKT in EPSG:3857) and where to show the answer. */
  identify(wkt: string, at: number[]): void
}

export class IdentifyTool {
  #draw: Draw | null = null
  readonly #onClick: (e: MapBrowserEvent) => void

  constructor(private readonly map: Map, private readonly opts: IdentifyToolOptions) {
    this.#onClick = (e) => {
      // After the other click listeners: they may have used this click.
      setTimeout(() => {
        if (this.#draw || (e.originalEvent as Event).defaultPrevented) return
        this.identifyAt(e.coordinate)
      })
    }
    map.on('singleclick', this.#onClick)
  }

  /** Identifies around a map coordinate (EPSG:3857). */
  identifyAt(coordinate: number[]): void {
    const r = CLICK_TOLERANCE * (this.map.getView().getResolution() ?? 1)
    const square = fromExtent(bufferExtent([coordinate[0]!, coordinate[1]!, coordinate[0]!, coordinate[1]!], r))
    this.opts.identify(wkt.writeGeometry(square), coordinate)
  }

  /** Lets the person draw a polygon; identifies by it when it is finished. */
  startArea(): void {
    this.stopArea()
    const draw = new Draw({ type: 'Polygon' })
    draw.on('drawend', (e) => {
      const g = e.feature.getGeometry() as Geometry
      const at = (g as unknown as { getInteriorPoint(): { getCoordinates(): number[] } }).getInteriorPoint().getCoordinates()
      // After the event: the click that ended the drawing must not identify again.
      setTimeout(() => this.stopArea(), 300)
      this.opts.identify(wkt.writeGeometry(g), at.slice(0, 2))
    })
    this.#draw = draw
    this.map.addInteraction(draw)
  }

  get drawing(): boolean {
    return this.#draw !== null
  }

  stopArea(): void {
    if (!this.#draw) return
    this.map.removeInteraction(this.#draw)
    this.#draw = null
  }

  dispose(): void {
    this.stopArea()
    this.map.un('singleclick', this.#onClick)
  }
}
