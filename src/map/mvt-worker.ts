/**
 * @module map/mvt-worker
 * A dedicated worker that fetches and decodes vector tiles for the map (map/tile-decoder), so a
 * tile of 16,000 points costs the page's thread only the making of its features, not the
 * parsing of its protobuf (docs/rendering.md, "Vector tiles off the page's thread"). Asked to,
 * it also paints a crowded tile's points (the crowded-tile rule, map/layer-kinds) into a bitmap
 * once, here, and sends that with the points' coordinates and ids instead of their features:
 * the page then only copies an image per frame (docs/rendering.md, "Crowded tiles as images").
 * The worker's requests go through the service worker like the page's: a dedicated worker is
 * controlled by its page's service worker.
 */
import MVT from 'ol/format/MVT.js'
import type RenderFeature from 'ol/render/Feature.js'
import type { Extent } from 'ol/extent.js'
import { pack, transferables, type PackedTile } from './mvt-packed.ts'
import { paintDots } from './dots.ts'

/** How to paint a crowded tile's points: more than `limit` features make a tile crowded. */
export interface DotsRequest { limit: number; color: string; size: number; pixelRatio: number }
export interface DecodeRequest { id: number; url: string; extent: Extent; dots?: DotsRequest }
/** A crowded tile's points: painted, and where they are (flat XY, EPSG:3857) with their ids (NaN for none). */
export interface PaintedDots { bitmap: ImageBitmap; coords: Float64Array; ids: Float64Array }
export type DecodeAnswer = { id: number; tile: PackedTile; crowded: boolean; dots?: PaintedDots } | { id: number; error: string }

const format = new MVT()

function paint(points: RenderFeature[], extent: Extent, o: DotsRequest): PaintedDots {
  const coords = new Float64Array(points.length * 2), ids = new Float64Array(points.length)
  points.forEach((f, i) => {
    const xy = f.getFlatCoordinates()
    coords[2 * i] = xy[0]!
    coords[2 * i + 1] = xy[1]!
    const id = f.getId()
    ids[i] = typeof id === 'number' ? id : Number.NaN
  })
  const canvas = new OffscreenCanvas(o.size, o.size)
  paintDots(canvas.getContext('2d')!, coords, extent, o.size, o.pixelRatio, o.color)
  return { bitmap: canvas.transferToImageBitmap(), coords, ids }
}

async function decode({ id, url, extent, dots }: DecodeRequest): Promise<void> {
  try {
    const res = await fetch(url, { credentials: 'same-origin' })
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`)
    const bytes = await res.arrayBuffer()
    // What OpenLayers' own loader does on the page: tile pixels to map coordinates (EPSG:3857).
    let features = format.readFeatures(bytes, { extent, featureProjection: 'EPSG:3857' }) as RenderFeature[]
    const crowded = !!dots && features.length > dots.limit
    let painted: PaintedDots | undefined
    if (crowded) {
      // Only single points become dots (map/styles); anything else stays a feature for the page to draw.
      painted = paint(features.filter((f) => f.getType() === 'Point'), extent, dots)
      features = features.filter((f) => f.getType() !== 'Point')
    }
    const tile = pack(features)
    const transfer: Transferable[] = transferables(tile)
    if (painted) transfer.push(painted.bitmap, painted.coords.buffer, painted.ids.buffer)
    postMessage({ id, tile, crowded, dots: painted } satisfies DecodeAnswer, { transfer })
  } catch (err) {
    postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies DecodeAnswer)
  }
}

onmessage = (e: MessageEvent<DecodeRequest>) => { void decode(e.data) }
