/**
 * @module host/service-worker
 * The service-worker host: answers every same-origin `/api/` request from the backend and
 * serves the precached app shell. Nothing heavy starts here; SQLite opens on the first API
 * request. A new version takes over at once (skipWaiting + claim), and the page reloads on
 * `controllerchange`, so no old worker keeps serving an old API.
 */
/// <reference lib="webworker" />
import { cleanupOutdatedCaches, createHandlerBoundToURL, matchPrecache, precacheAndRoute } from 'workbox-precaching'
import { NavigationRoute, registerRoute } from 'workbox-routing'
import { createApp } from '../app.ts'
import { isApiPath } from '../core/http.ts'
import type { Platform } from '../platform/platform.ts'
import { IdbStore } from '../store/idb.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import { createGdalLoader } from '../../wasm/gdal.ts'
import { initGdalBrowser } from '../../wasm/gdal-browser.ts'
import { bridgeCookies, stripCookieCopy } from './sw-cookies.ts'
import { installTileCache } from './tile-cache.ts'

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null }> }

/** Runtime cache for engine files that are too big to precache (GDAL). */
export const ENGINE_CACHE = 'outpost-engines-v1'

// The worker's own fetch() does not pass through its fetch handler, so an engine fetching its
// .wasm while offline would fail. Answer such fetches from the precache or the engine cache.
const networkFetch = self.fetch.bind(self)
self.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const req = new Request(input, init)
  if (req.method === 'GET' && new URL(req.url).origin === self.location.origin) {
    const hit = (await matchPrecache(req.url)) ?? (await caches.match(req, { cacheName: ENGINE_CACHE }))
    if (hit) return hit
    if (new URL(req.url).pathname.startsWith('/gdal/')) {
      const res = await networkFetch(req)
      if (res.ok) await (await caches.open(ENGINE_CACHE)).put(req, res.clone())
      return res
    }
  }
  return networkFetch(req)
}

const platform: Platform = {
  host: 'service-worker',
  store: new IdbStore(),
  sqlite: createSqliteLoader(),
  gdal: createGdalLoader(initGdalBrowser),
  admin: { password: 'admin', mustChange: true },
  demo: true,
  // Shipped files are precached: read them from there, so they are there offline.
  asset: async (name) => {
    const res = await matchPrecache(`/${name}`)
    return res?.ok ? new Uint8Array(await res.arrayBuffer()) : undefined
  },
  now: () => new Date(),
  log: (message, err) => console.error(message, err ?? ''),
}
const app = createApp(platform)

// Registered before Workbox's routes: the first listener to call respondWith wins.
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url)
  if (url.origin !== self.location.origin || !isApiPath(url.pathname)) return
  event.respondWith(bridgeCookies(event.request, (req) => app.fetch(req)).then((res) => {
    const headers = new Headers(res.headers)
    headers.set('x-outpost-host', 'service-worker')
    stripCookieCopy(headers)
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers })
  }))
})

// The chosen basemap's tiles, kept for offline use (cross-origin images only).
installTileCache(self)

self.addEventListener('install', () => { void self.skipWaiting() })
self.addEventListener('activate', (event) => { event.waitUntil(self.clients.claim()) })

cleanupOutdatedCaches()
precacheAndRoute(self.__WB_MANIFEST)
// Client-side routes open the app shell; /api/ never falls through to it.
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: [/^\/api\//i] }))
