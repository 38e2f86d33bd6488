/**
 * Decodes vector tiles with an independent reader (`@mapbox/vector-tile`), for the cases
 * that compare a tile's content with the features it was cut from.
 */
import { VectorTile } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'

export interface DecodedFeature {
  id: number | undefined
  type: number
  properties: Record<string, unknown>
  /** Rings/lines/points as `[x, y]` lists in tile units. */
  geometry: [number, number][][]
}

export interface DecodedLayer { version: number; extent: number; features: DecodedFeature[] }

export function decodeTile(bytes: Uint8Array): Record<string, DecodedLayer> {
  const vt = new VectorTile(new PbfReader(bytes))
  const out: Record<string, DecodedLayer> = {}
  for (const [name, layer] of Object.entries(vt.layers)) {
    const features: DecodedFeature[] = []
    for (let i = 0; i < layer.length; i++) {
      const f = layer.feature(i)
      features.push({ id: f.id, type: f.type, properties: f.properties,
        geometry: f.loadGeometry().map((part) => part.map((p) => [p.x, p.y] as [number, number])) })
    }
    out[name] = { version: layer.version, extent: layer.extent, features: features.sort((a, b) => (a.id ?? 0) - (b.id ?? 0)) }
  }
  return out
}

export const bytesOf = (base64: string | undefined) => new Uint8Array(Buffer.from(base64 ?? '', 'base64'))

const HALF = 20037508.342789244

/** Where an EPSG:3857 position falls in tile z/x/y of `extent` units (rounded, as the tile stores it). */
export function tilePosition(z: number, x: number, y: number, mx: number, my: number, extent = 4096): [number, number] {
  const size = (2 * HALF) / 2 ** z
  return [Math.round(((mx + HALF - x * size) / size) * extent), Math.round(((HALF - y * size - my) / size) * extent)]
}

/** Lon/lat → EPSG:3857. */
export function mercator(lon: number, lat: number): [number, number] {
  return [(lon * HALF) / 180, 6378137 * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360))]
}
