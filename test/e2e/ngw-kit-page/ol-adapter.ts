/**
 * The map adapter `@nextgis/webmap` draws into, over OpenLayers, for the ngw-kit spec only.
 * NextGIS's own (`@nextgis/ol-map-adapter`) is not on npm for the 1.19 line (the registry has
 * 0.4.2, for OpenLayers 5), so this gives the kit's `WebMap` what that adapter gives it for a
 * web map's layers: an `IMAGE` layer adapter that asks the kit's `updateWmsParams` to turn
 * OpenLayers' WMS-style image request into ours (as NextGIS's does), a `TILE` one over XYZ, and
 * the view calls. It holds no knowledge of our API: every URL comes from the kit.
 */
import { EventEmitter } from 'events'
import OlMap from 'ol/Map.js'
import View from 'ol/View.js'
import ImageLayer from 'ol/layer/Image.js'
import TileLayer from 'ol/layer/Tile.js'
import ImageWMS from 'ol/source/ImageWMS.js'
import XYZ from 'ol/source/XYZ.js'
import BaseLayerClass from 'ol/layer/Base.js'
import type BaseLayer from 'ol/layer/Base.js'
import type ImageWrapper from 'ol/Image.js'
import { fromLonLat, toLonLat, transformExtent } from 'ol/proj.js'

type Options = Record<string, any>

/** WebMap hands a layer adapter's `layer` back: one OpenLayers layer, or (a group's, as the kit's web map's) a list. */
const olLayers = (layer: unknown): BaseLayer[] => [layer].flat().filter((l): l is BaseLayer => l instanceof BaseLayerClass)

class ImageAdapter {
  layer?: ImageLayer<ImageWMS>
  constructor(public map: OlMap, public options: Options) {}
  addLayer(o: Options) {
    const source = new ImageWMS({ url: o.url, params: { ...o.params }, ratio: 1,
      imageLoadFunction: (image: ImageWrapper, src: string) => {
        const [path, query] = src.split('?')
        const { BBOX, WIDTH, HEIGHT, ...rest } = Object.fromEntries(new URLSearchParams(query))
        const wanted = o.updateWmsParams ? o.updateWmsParams({ ...rest, bbox: BBOX, width: WIDTH, height: HEIGHT }) : rest
        ;(image.getImage() as HTMLImageElement).src = `${path}?${new URLSearchParams(Object.entries(wanted).map(([k, v]) => [k, String(v)]))}`
      } })
    this.layer = new ImageLayer({ source, opacity: o.opacity })
    return this.layer
  }
}

class TileAdapter {
  layer?: TileLayer<XYZ>
  constructor(public map: OlMap, public options: Options) {}
  addLayer(o: Options) {
    this.layer = new TileLayer({ source: new XYZ({ url: o.url, transition: 0 }), opacity: o.opacity })
    return this.layer
  }
}

export class OlTestAdapter {
  map?: OlMap
  readonly emitter = new EventEmitter()
  layerAdapters = { IMAGE: ImageAdapter, TILE: TileAdapter }
  controlAdapters = {}
  #target?: HTMLElement

  create(o: Options = {}): void {
    this.#target = typeof o.target === 'string' ? document.getElementById(o.target)! : o.target
    this.map = new OlMap({ target: this.#target, controls: [], view: new View({ projection: 'EPSG:3857',
      center: fromLonLat(o.center ?? [0, 0]), zoom: o.zoom ?? 2 }) })
    this.emitter.emit('create', this)
  }
  destroy(): void { this.map?.setTarget(undefined) }
  showLayer(layer: unknown): void {
    for (const l of olLayers(layer)) if (!this.map!.getLayers().getArray().includes(l)) this.map!.addLayer(l)
  }
  hideLayer(layer: unknown): void { for (const l of olLayers(layer)) this.map!.removeLayer(l) }
  removeLayer(layer: unknown): void { this.hideLayer(layer) }
  setLayerOpacity(layer: unknown, opacity: number): void { for (const l of olLayers(layer)) l.setOpacity(opacity) }
  setLayerOrder(layer: unknown, order: number): void { for (const l of olLayers(layer)) l.setZIndex(order) }
  fitBounds(e: [number, number, number, number]): void {
    this.map!.getView().fit(transformExtent(e, 'EPSG:4326', 'EPSG:3857'), { size: this.map!.getSize() })
  }
  getZoom(): number | undefined { return this.map?.getView().getZoom() }
  setZoom(zoom: number): void { this.map!.getView().setZoom(zoom) }
  getCenter(): [number, number] | undefined {
    const c = this.map?.getView().getCenter()
    return c && (toLonLat(c) as [number, number])
  }
  setCenter(lngLat: [number, number]): void { this.map!.getView().setCenter(fromLonLat(lngLat)) }
  getContainer(): HTMLElement | undefined { return this.#target }
  addControl(): void {}
  removeControl(): void {}
  onMapClick(): void {}
}
