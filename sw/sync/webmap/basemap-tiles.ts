/**
 * @module sync/webmap/basemap-tiles
 * Brings a basemap's tiles of an area to the device: each tile read within limits (from the
 * team's server with the connection's login when the basemap is served there, else from its
 * own site with no credentials) and kept as a blob. A few fetches run at once; tiles that
 * fail are counted, not fatal, and a basemap that keeps failing is given up.
 */
import { boundedFetch, type OutboundLimits } from '../../core/outbound.ts'
import type { Platform } from '../../platform/platform.ts'
import type { RemoteClient } from '../client.ts'
import { tileBlobId, tilesOf, tileUrl, type Bbox4326 } from './tiles.ts'

/** One tile: a few MiB at most, soon. */
export const TILE_LIMITS: OutboundLimits = { maxBytes: 4 * 1024 * 1024, idleMs: 15_000, totalMs: 30_000 }
/** Fetches at once: a tile server's usual per-client allowance. */
const PARALLEL = 4
/** Failures in a row after which a basemap is given up (its server is down or refuses us). */
const GIVE_UP_AFTER = 20

export interface TileSource {
  /** The tile's bytes; empty for a tile the server has not (204, 404). Throws when it cannot be read. */
  get(z: number, x: number, y: number, signal: AbortSignal): Promise<Uint8Array>
}

/** Where the tiles of `template` come from: the team's server (a path of it, or its origin) with its login, or elsewhere without. */
export function tileSource(template: string, client: RemoteClient, platform: Pick<Platform, 'fetch'>): TileSource {
  const own = template.startsWith('/') || new URL(template).origin === new URL(client.creds.url).origin
  return {
    async get(z, x, y, signal) {
      const url = tileUrl(template, z, x, y)
      if (own) return client.bytes(url)
      const res = await boundedFetch((i, init) => platform.fetch(i, init), url, { credentials: 'omit', signal }, TILE_LIMITS)
      if (res.status === 204 || res.status === 404) { res.discard(); return new Uint8Array() }
      if (!res.ok) { res.discard(); throw new Error(`HTTP ${res.status}`) }
      return res.bytes()
    },
  }
}

export interface TileReport { tiles: number; bytes: number; failed: number; given_up: boolean }

/**
 * Fetches every tile of `bbox` × `zooms` from `source` into blobs of basemap `index` of saved
 * map `group`, adding each blob's id to `written` (so a stopped job can delete them); `onTile`
 * after each. Stops (throwing the signal's reason) when `signal` aborts.
 */
export async function fetchTiles(source: TileSource, blobs: { putBlob(id: string, data: Uint8Array): Promise<void> }, group: number, index: number,
  bbox: Bbox4326, zooms: [number, number], signal: AbortSignal, written: string[], onTile: () => void): Promise<TileReport> {
  const report: TileReport = { tiles: 0, bytes: 0, failed: 0, given_up: false }
  const all = tilesOf(bbox, zooms)
  let inARow = 0
  const worker = async () => {
    for (let next = all.next(); !next.done; next = all.next()) {
      signal.throwIfAborted()
      if (report.given_up) return
      const [z, x, y] = next.value
      try {
        const bytes = await source.get(z, x, y, signal)
        inARow = 0
        if (bytes.length) {
          const id = tileBlobId(group, index, z, x, y)
          written.push(id)
          await blobs.putBlob(id, bytes)
          report.tiles++
          report.bytes += bytes.length
        }
      } catch {
        signal.throwIfAborted()
        report.failed++
        if (++inARow >= GIVE_UP_AFTER) report.given_up = true
      }
      onTile()
    }
  }
  // Every worker ends before this returns or throws: none writes a tile after a stopped job cleaned up.
  const ends = await Promise.allSettled(Array.from({ length: PARALLEL }, worker))
  signal.throwIfAborted()
  for (const e of ends) if (e.status === 'rejected') throw e.reason
  return report
}

/** What kind of image `bytes` are, by their first bytes (tile servers' own types vary). */
export function imageType(bytes: Uint8Array): string {
  if (bytes[0] === 0x89 && bytes[1] === 0x50) return 'image/png'
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg'
  if (bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[8] === 0x57) return 'image/webp'
  if (bytes[0] === 0x47 && bytes[1] === 0x49) return 'image/gif'
  return 'application/octet-stream'
}
