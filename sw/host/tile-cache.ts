/**
 * @module host/tile-cache
 * Keeps the tiles of the chosen basemap that the map loaded while online, so it still shows
 * them offline. The page tells the worker which URL prefixes belong to its basemap
 * (`{type: 'outpost-basemap', prefixes}`); image requests under those prefixes go to the
 * network first and fall back to the cache. Tiles are often cross-origin without CORS, so
 * opaque responses are kept too; the cache is capped by entry count.
 */
/// <reference lib="webworker" />

export const TILE_CACHE = 'outpost-basemap-tiles-v1'
/** Where the prefixes survive a worker restart. */
const PREFIX_KEY = '/__outpost/basemap-prefixes'
const MAX_TILES = 3000

let prefixes: string[] | undefined

async function loadPrefixes(): Promise<string[]> {
  if (prefixes) return prefixes
  const hit = await (await caches.open(TILE_CACHE)).match(PREFIX_KEY)
  const stored = hit ? ((await hit.json()) as string[]) : []
  // A message may have set newer prefixes while the cache was read.
  prefixes ??= stored
  return prefixes
}

async function savePrefixes(list: string[]): Promise<void> {
  prefixes = list
  await (await caches.open(TILE_CACHE)).put(PREFIX_KEY, new Response(JSON.stringify(list), { headers: { 'content-type': 'application/json' } }))
}

let puts = 0
async function trim(cache: Cache): Promise<void> {
  if (++puts % 50 !== 0) return
  const keys = await cache.keys()
  // Keys come back in insertion order: drop the oldest tiles.
  for (const k of keys.slice(0, Math.max(0, keys.length - MAX_TILES))) if (!k.url.endsWith(PREFIX_KEY)) await cache.delete(k)
}

async function tileResponse(request: Request): Promise<Response> {
  const cache = await caches.open(TILE_CACHE)
  try {
    const res = await fetch(request)
    if (res.ok || res.type === 'opaque') {
      await cache.put(request.url, res.clone())
      await trim(cache)
    }
    return res
  } catch (err) {
    const hit = await cache.match(request.url)
    if (hit) return hit
    throw err
  }
}

/** Installs the message and fetch listeners; call before other fetch listeners that might answer images. */
export function installTileCache(self: ServiceWorkerGlobalScope): void {
  self.addEventListener('message', (event) => {
    const data = event.data as { type?: string; prefixes?: unknown } | null
    if (data?.type !== 'outpost-basemap' || !Array.isArray(data.prefixes)) return
    const list = data.prefixes.filter((p): p is string => typeof p === 'string' && /^https?:\/\/[^/]+\//.test(p))
    event.waitUntil(savePrefixes(list))
  })
  self.addEventListener('fetch', (event) => {
    const req = event.request
    if (req.method !== 'GET' || req.destination !== 'image' || new URL(req.url).origin === self.location.origin) return
    // Once the prefixes are known, other images are left alone; before that (a fresh worker)
    // the decision waits for them.
    if (prefixes && !prefixes.some((p) => req.url.startsWith(p))) return
    event.respondWith(loadPrefixes().then((list) =>
      list.some((p) => req.url.startsWith(p)) ? tileResponse(req) : fetch(req)))
  })
}
