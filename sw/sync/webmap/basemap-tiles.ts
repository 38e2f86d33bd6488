/**
 * @module sync/webmap/basemap-tiles
 * Brings a basemap's tiles of an area to the device: each tile read within limits (from the
 * team's server with the connection's login when the basemap is served there, else from its
 * own site with no credentials) and kept as a blob. A small pool of fetches serves all the
 * map's basemaps in turn; tiles that fail are counted, not fatal, and a basemap that keeps
 * failing is given up. Tiles kept before (a resumed job) are not fetched again.
 */
import { boundedFetch, type OutboundLimits } from '../../core/outbound.ts'
import type { Platform } from '../../platform/platform.ts'
import type { RemoteClient } from '../client.ts'
import { tileBlobId, tileCount, tilesOf, tileUrl, type Bbox4326 } from './tiles.ts'

/** One tile: a few MiB at most, soon. */
export const TILE_LIMITS: OutboundLimits = { maxBytes: 4 * 1024 * 1024, idleMs: 15_000, totalMs: 30_000 }
/** Fetches at once in all: a small pool shared by the basemaps of a map. */
const POOL = 6
/** Fetches at once from one basemap: a tile server's usual per-client allowance. */
const PER_SOURCE = 4
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
      if (own) return client.bytes(url, TILE_LIMITS)
      const res = await boundedFetch((i, init) => platform.fetch(i, init), url, { credentials: 'omit', signal }, TILE_LIMITS)
      if (res.status === 204 || res.status === 404) { res.discard(); return new Uint8Array() }
      if (!res.ok) { res.discard(); throw new Error(`HTTP ${res.status}`) }
      return res.bytes()
    },
  }
}

/** What came of one basemap: tiles kept (with those kept before), their bytes, failures, whether it was given up. */
export interface TileReport { tiles: number; bytes: number; failed: number; given_up: boolean }

/**
 * One basemap to fetch: its source and blob slot, and the tiles of the slot already kept (a
 * resumed job's: not fetched again). `report` is set when its fetch starts and counts as tiles
 * come, so a stopped job still knows what it stored.
 */
export interface BasemapFetch { source: TileSource; slot: number; kept?: { ids: Set<string>; bytes: number }; report?: TileReport }

type Blobs = { putBlob(id: string, data: Uint8Array): Promise<void> }

/**
 * Fetches every tile of `bbox` × `zooms` of each basemap of `basemaps` into blobs of its slot
 * of saved map `group`, with at most POOL fetches at once in all and PER_SOURCE from one
 * basemap, the basemaps taken in turn (a slow or dead one does not hold the others up).
 * Each blob's id goes into `written` (so a stopped refresh can delete them). `onTiles(n)`
 * after each tile, kept, empty or failed, and once with the rest of a basemap given up, so
 * the count reaches the total exactly. Stops (throwing the signal's reason) when `signal`
 * aborts, once every fetch under way has ended.
 */
export async function fetchTiles(basemaps: BasemapFetch[], blobs: Blobs, group: number, bbox: Bbox4326, zooms: [number, number],
  signal: AbortSignal, written: string[], onTiles: (n: number) => void): Promise<TileReport[]> {
  const total = tileCount(bbox, zooms)
  const runs = basemaps.map((b) => ({ b, all: tilesOf(bbox, zooms), seen: 0, keptSeen: 0, busy: 0, inARow: 0, ended: false,
    report: b.report = { tiles: b.kept?.ids.size ?? 0, bytes: b.kept?.bytes ?? 0, failed: 0, given_up: false } as TileReport }))
  let turn = 0
  /** The next tile to fetch, from the next basemap in turn that has one and room for another fetch. */
  const next = () => {
    for (let k = 0; k < runs.length; k++) {
      const run = runs[(turn + k) % runs.length]!
      if (run.ended || run.busy >= PER_SOURCE) continue
      for (let t = run.all.next(); !t.done; t = run.all.next()) {
        run.seen++
        const [z, x, y] = t.value
        const id = tileBlobId(group, run.b.slot, z, x, y)
        if (run.b.kept?.ids.has(id)) { run.keptSeen++; continue }
        turn = (turn + k + 1) % runs.length
        return { run, z, x, y, id }
      }
      run.ended = true
    }
    return undefined
  }
  const worker = async () => {
    for (let job = next(); job; job = next()) {
      signal.throwIfAborted()
      const { run, z, x, y, id } = job
      run.busy++
      try {
        const bytes = await run.b.source.get(z, x, y, signal)
        run.inARow = 0
        if (bytes.length) {
          written.push(id)
          await blobs.putBlob(id, bytes)
          run.report.tiles++
          run.report.bytes += bytes.length
        }
        onTiles(1)
      } catch {
        signal.throwIfAborted()
        run.report.failed++
        onTiles(1)
        if (++run.inARow >= GIVE_UP_AFTER && !run.report.given_up) {
          // The rest of its tiles are not asked for: counted as done, so the progress still ends at its total
          // (its kept tiles not reached yet were counted at the start).
          run.report.given_up = true
          run.ended = true
          onTiles(total - run.seen - ((run.b.kept?.ids.size ?? 0) - run.keptSeen))
        }
      } finally {
        run.busy--
      }
    }
  }
  // Kept tiles count as done from the start: a resumed job's progress goes on from where it was.
  const kept = runs.reduce((n, r) => n + r.report.tiles, 0)
  if (kept) onTiles(kept)
  // Every worker ends before this returns or throws: none writes a tile after a stopped job cleaned up.
  const ends = await Promise.allSettled(Array.from({ length: Math.min(POOL, PER_SOURCE * runs.length) }, worker))
  signal.throwIfAborted()
  for (const e of ends) if (e.status === 'rejected') throw e.reason
  return runs.map((r) => r.report)
}

/** What kind of image `bytes` are, by their first bytes (tile servers' own types vary). */
export function imageType(bytes: Uint8Array): string {
  if (bytes[0] === 0x89 && bytes[1] === 0x50) return 'image/png'
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return 'image/jpeg'
  if (bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[8] === 0x57) return 'image/webp'
  if (bytes[0] === 0x47 && bytes[1] === 0x49) return 'image/gif'
  return 'application/octet-stream'
}
