/**
 * @module map/tile-decoder
 * Vector tiles for the map's layers, fetched and decoded in a dedicated worker
 * (map/mvt-worker) and made into OpenLayers `RenderFeature`s on the page from transferred
 * arrays (map/mvt-packed). `workerTileLoad` is a `tileLoadFunction` for a `VectorTile` source.
 * One worker serves every layer: decoding is short, and the machine the app runs on may have
 * two cores. localStorage `outpost.map.tileDecode` = `page` turns it off (OpenLayers' own
 * loader, on the page's thread, every tile drawn as vectors as before issue 25). Crowded tiles
 * can come back painted (map/crowded-tiles).
 */
import type Tile from 'ol/Tile.js'
import type VectorTile from 'ol/VectorTile.js'
import type RenderFeature from 'ol/render/Feature.js'
import type { Extent } from 'ol/extent.js'
import { unpack } from './mvt-packed.ts'
import type { DecodeAnswer, DecodeRequest, DotsRequest, PaintedDots } from './mvt-worker.ts'

/** A decoded tile: its features for the page to draw, and a crowded tile's points painted (if asked for). */
export interface DecodedTile { features: RenderFeature[]; crowded: boolean; dots?: PaintedDots }

let worker: Worker | undefined
let nextId = 1
const waiting = new Map<number, { resolve(t: DecodedTile): void; reject(e: Error): void }>()

function theWorker(): Worker {
  if (worker) return worker
  worker = new Worker(new URL('./mvt-worker.ts', import.meta.url), { type: 'module', name: 'outpost-mvt' })
  worker.onmessage = (e: MessageEvent<DecodeAnswer>) => {
    const m = e.data
    const w = waiting.get(m.id)
    if (!w) return
    waiting.delete(m.id)
    if ('error' in m) w.reject(new Error(m.error))
    else w.resolve({ features: unpack(m.tile), crowded: m.crowded, dots: m.dots })
  }
  // The worker failed as a whole (its script did not load): its tiles fail, the next tile starts a new one.
  worker.onerror = () => {
    worker?.terminate()
    worker = undefined
    for (const w of waiting.values()) w.reject(new Error('the tile worker failed'))
    waiting.clear()
  }
  return worker
}

/** The tile at `url` covering `extent` (EPSG:3857); with `dots`, a crowded tile's points come painted. */
export function decodeTile(url: string, extent: Extent, dots?: DotsRequest): Promise<DecodedTile> {
  const id = nextId++
  const w = theWorker()
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject })
    // The worker resolves relative URLs against its own script: give it the page's answer.
    w.postMessage({ id, url: new URL(url, location.href).href, extent, dots } satisfies DecodeRequest)
  })
}

/** Whether the map's vector tiles are decoded in the worker (the default). */
export const decodeInWorker = () => localStorage.getItem('outpost.map.tileDecode') !== 'page'

/** A `tileLoadFunction` decoding in the worker; an error marks the tile failed, as OpenLayers' own loader does. */
export function workerTileLoad(tile: Tile, url: string): void {
  const t = tile as VectorTile<RenderFeature>
  t.setLoader((extent) => {
    decodeTile(url, extent).then((d) => t.setFeatures(d.features), () => t.onError())
  })
}
