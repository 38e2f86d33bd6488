/**
 * @module map/mvt-worker
 * A dedicated worker that fetches and decodes vector tiles for the map (map/tile-decoder), so a
 * tile of 16,000 points costs the page's thread only the making of its features, not the
 * parsing of its protobuf (docs/rendering.md, "Vector tiles off the page's thread"). The
 * worker's requests go through the service worker like the page's: a dedicated worker is
 * controlled by its page's service worker.
 */
import MVT from 'ol/format/MVT.js'
import type RenderFeature from 'ol/render/Feature.js'
import type { Extent } from 'ol/extent.js'
import { pack, transferables, type PackedTile } from './mvt-packed.ts'

export interface DecodeRequest { id: number; url: string; extent: Extent }
export type DecodeAnswer = { id: number; tile: PackedTile } | { id: number; error: string }

const format = new MVT()
async function decode({ id, url, extent }: DecodeRequest): Promise<void> {
  try {
    const res = await fetch(url, { credentials: 'same-origin' })
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`)
    const bytes = await res.arrayBuffer()
    // What OpenLayers' own loader does on the page: tile pixels to map coordinates (EPSG:3857).
    const features = format.readFeatures(bytes, { extent, featureProjection: 'EPSG:3857' }) as RenderFeature[]
    const tile = pack(features)
    postMessage({ id, tile } satisfies DecodeAnswer, { transfer: transferables(tile) })
  } catch (err) {
    postMessage({ id, error: err instanceof Error ? err.message : String(err) } satisfies DecodeAnswer)
  }
}

onmessage = (e: MessageEvent<DecodeRequest>) => { void decode(e.data) }
