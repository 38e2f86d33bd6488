/**
 * @module render/tile-cache
 * Rendered tiles kept in memory, least recently used out first, within a byte budget. An
 * entry is valid only while its token (the styles' text and their layers' versions) is the
 * one it was made with, so any edit of a layer or a style invalidates its tiles. It counts its
 * hits and misses (a miss is a tile drawn): a map opened again draws nothing (issue 25).
 */

interface Entry { token: string; png: Uint8Array | undefined; size: number }

/** What the cache holds and how often it answered, as `GET /api/component/outpost/render/tile_cache` says. */
export interface TileCacheStats { tiles: number; bytes: number; hits: number; misses: number }

export class TileCache {
  #map = new Map<string, Entry>()
  #bytes = 0
  #hits = 0
  #misses = 0

  /** @param budget bytes of PNG kept at most. @default 64 MiB */
  constructor(private budget = 64 << 20) {}

  /** The tile (or `null` for a cached empty tile) if cached with this token; `undefined` on a miss. */
  get(key: string, token: string): Uint8Array | null | undefined {
    const e = this.#map.get(key)
    if (!e || e.token !== token) {
      if (e) this.#delete(key, e)
      this.#misses++
      return undefined
    }
    this.#hits++
    // Re-insert: a Map iterates in insertion order, so the oldest is first.
    this.#map.delete(key)
    this.#map.set(key, e)
    return e.png ?? null
  }

  set(key: string, token: string, png: Uint8Array | undefined): void {
    const old = this.#map.get(key)
    if (old) this.#delete(key, old)
    const e = { token, png, size: (png?.byteLength ?? 0) + key.length + token.length + 64 }
    this.#map.set(key, e)
    this.#bytes += e.size
    for (const [k, v] of this.#map) {
      if (this.#bytes <= this.budget) break
      this.#delete(k, v)
    }
  }

  stats(): TileCacheStats {
    return { tiles: this.#map.size, bytes: this.#bytes, hits: this.#hits, misses: this.#misses }
  }

  #delete(key: string, e: Entry): void {
    this.#map.delete(key)
    this.#bytes -= e.size
  }
}
