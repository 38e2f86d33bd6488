/**
 * @module basemap/service
 * The bundled offline world basemap: vector tiles of Natural Earth land, borders and country
 * names in one PMTiles archive shipped with the app (`public/basemap/world.pmtiles`, built
 * by `scripts/build-basemap.ts`), read through the host's `asset` (the worker's precache, so
 * the map shows the world with no network at all).
 */
import { PMTiles, type Source } from 'pmtiles'
import type { Platform } from '../platform/platform.ts'

export const BASEMAP_ASSET = 'basemap/world.pmtiles'
export const BASEMAP_ATTRIBUTION = 'Made with Natural Earth (public domain)'

/** A PMTiles source over bytes in memory. */
class BytesSource implements Source {
  constructor(private readonly bytes: Uint8Array) {}
  getKey(): string {
    return BASEMAP_ASSET
  }
  async getBytes(offset: number, length: number) {
    return { data: this.bytes.slice(offset, offset + length).buffer as ArrayBuffer }
  }
}

const ARCHIVES = new WeakMap<Platform, Promise<PMTiles | undefined>>()

/** The archive, read once per platform; `undefined` when the host ships none. */
export function worldBasemap(platform: Platform): Promise<PMTiles | undefined> {
  let p = ARCHIVES.get(platform)
  if (!p) {
    p = (async () => {
      const bytes = await platform.asset?.(BASEMAP_ASSET)
      return bytes ? new PMTiles(new BytesSource(bytes)) : undefined
    })()
    // A failed read is tried again on the next request.
    p.catch(() => ARCHIVES.delete(platform))
    ARCHIVES.set(platform, p)
  }
  return p
}

/** One tile's MVT bytes, or `undefined` outside the archive (open sea, beyond its zooms). */
export async function basemapTile(platform: Platform, z: number, x: number, y: number): Promise<Uint8Array | undefined> {
  const archive = await worldBasemap(platform)
  const tile = archive && await archive.getZxy(z, x, y)
  return tile ? new Uint8Array(tile.data) : undefined
}
