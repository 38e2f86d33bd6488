/**
 * @module host/service-worker
 * The service-worker host: answers every same-origin `/api/` request under its scope (the app's
 * directory: `/` or e.g. `/demo/`, sw-scope.ts) from the backend and serves the precached app shell. Nothing heavy starts here; SQLite opens on the first API
 * request. A new version takes over at once (skipWaiting + claim), and the page reloads on
 * `controllerchange`, so no old worker keeps serving an old API.
 */
/// <reference lib="webworker" />
import { addPlugins, cleanupOutdatedCaches, createHandlerBoundToURL, matchPrecache, precacheAndRoute } from 'workbox-precaching'
import { NavigationRoute, registerRoute } from 'workbox-routing'
import { createApp } from '../app.ts'
import { seedDemo } from '../demo.ts'
import type { Platform } from '../platform/platform.ts'
import { IdbStore } from '../store/idb.ts'
import { createSqliteLoader } from '../../wasm/sqlite.ts'
import sqliteWasmUrl from '@sqlite.org/sqlite-wasm/sqlite3.wasm?url'
import { createGdalLoader } from '../../wasm/gdal.ts'
import { initGdalBrowser } from '../../wasm/gdal-browser.ts'
import { gdalEngine } from '../../wasm/gdal-engine.ts'
import { bridgeCookies, stripCookieCopy } from './sw-cookies.ts'
import { installTileCache } from './tile-cache.ts'
import { offscreenCanvas } from './offscreen-canvas.ts'
import { EPSG_INDEX_PATH, swEpsg } from './sw-epsg.ts'
import { swSecretKey } from './sw-secret.ts'
import { syncAll, syncHost } from '../sync/round.ts'
import { backendPath, fromBackend, inScope, scopePath, toBackend } from './sw-scope.ts'
import { inwardFetch } from './sw-inward.ts'

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<{ url: string; revision: string | null }> }

/** Runtime cache for engine files that are too big to precache (GDAL). */
export const ENGINE_CACHE = 'outpost-engines-v1'

/** The app's directory on its host: `/`, or e.g. `/demo/` when dist/ is served under a path. */
const BASE = scopePath(self.registration.scope)

/**
 * The fetch the engines get (SQLite's and GDAL's files, the EPSG index). The worker's own
 * fetch() does not pass through its fetch handler, so an engine fetching its files while
 * offline would fail: same-origin GETs are answered from the precache or the engine cache,
 * and GDAL's files (too big to precache) are kept in the engine cache on first use.
 */
const networkFetch = self.fetch.bind(self)
async function engineFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const req = new Request(input, init)
  if (req.method === 'GET' && new URL(req.url).origin === self.location.origin) {
    const hit = (await matchPrecache(req.url)) ?? (await caches.match(req, { cacheName: ENGINE_CACHE }))
    if (hit) return hit
    if (new URL(req.url).pathname.startsWith(inScope(BASE, 'gdal/'))) {
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
  sqlite: createSqliteLoader({ fetch: engineFetch, wasmUrl: sqliteWasmUrl }),
  gdal: createGdalLoader(async () => gdalEngine(await initGdalBrowser(engineFetch, inScope(BASE, 'gdal')))),
  epsg: swEpsg(engineFetch, inScope(BASE, EPSG_INDEX_PATH)),
  canvas: offscreenCanvas,
  admin: { password: 'admin', mustChange: true },
  // The network: a fetch made by the worker does not pass through its own fetch handler.
  fetch: (input, init) => networkFetch(input, init),
  // The WMS client's: this app's own API answers in-process (a WMS service of the app as its remote).
  selfFetch: inwardFetch(self.location.origin, BASE, (request) => app.fetch(request), (input, init) => networkFetch(input, init)),
  secretKey: swSecretKey(indexedDB),
  origin: self.location.origin,
  // Shipped files are precached: read them from there, so they are there offline.
  asset: async (name) => {
    const res = await matchPrecache(inScope(BASE, name))
    return res?.ok ? new Uint8Array(await res.arrayBuffer()) : undefined
  },
  now: () => new Date(),
  log: (message, err) => console.error(message, err ?? ''),
}
// A fresh browser database starts with the demo data set.
const app = createApp(platform, { setup: seedDemo })

// Registered before Workbox's routes: the first listener to call respondWith wins.
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url)
  if (url.origin !== self.location.origin || backendPath(BASE, url.pathname) === undefined) return
  event.respondWith(bridgeCookies(event.request, (req) => app.fetch(toBackend(BASE, req))).then((res) => {
    const headers = new Headers(res.headers)
    headers.set('x-outpost-host', 'service-worker')
    stripCookieCopy(headers)
    fromBackend(BASE, headers, self.location.origin)
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers })
  }))
})

// Background Sync: the page asks for it when changes wait and the network is gone; the browser
// wakes the worker when it is back (also with the app closed), and every linked layer syncs.
self.addEventListener('sync', (event) => {
  const e = event as ExtendableEvent & { tag?: string }
  if (e.tag !== 'outpost-sync') return
  // A round that failed makes the event fail: the browser tries again later.
  e.waitUntil(app.services().then((s) => syncAll(s.classes, syncHost(s.platform, s.data))).then((reports) => {
    if (reports.some((r) => r.status === 'error')) throw new Error('A sync round failed; the browser retries.')
  }))
})

// The chosen basemap's tiles, kept for offline use (cross-origin images only).
installTileCache(self)

self.addEventListener('install', () => { void self.skipWaiting() })
self.addEventListener('activate', (event) => { event.waitUntil(self.clients.claim()) })

/** A message to the pages while precaching (read by src/sw-register.ts): `done` of the manifest's `total` files are saved. */
interface InstallProgress { type: 'outpost-install-progress'; done: number; total: number }

/**
 * Tells the pages (uncontrolled ones too: on a first visit none is controlled yet) how many
 * precache entries the install has handled, so the splash shows the real fraction. Workbox
 * handles the entries one at a time and runs `handlerDidComplete` for each, fetched or found
 * already cached.
 */
function installProgress(total: number): Parameters<typeof addPlugins>[0][number] {
  let done = 0
  return {
    handlerDidComplete: async ({ event }) => {
      if (event?.type !== 'install') return
      const message: InstallProgress = { type: 'outpost-install-progress', done: ++done, total }
      for (const client of await self.clients.matchAll({ type: 'window', includeUncontrolled: true })) client.postMessage(message)
    },
  }
}

// The build replaces this, its only injection point, with the list of files to precache.
const manifest = self.__WB_MANIFEST
cleanupOutdatedCaches()
// Workbox saves each URL once; the manifest may list one twice (the PWA plugin adds the web manifest itself).
addPlugins([installProgress(new Set(manifest.map((entry) => (typeof entry === 'string' ? entry : entry.url))).size)])
precacheAndRoute(manifest)
// The embed page with its query (`embed.html?webmap=3`, which the precache does not match) is
// the precached embed page, so an embedded map opens offline once the app is installed here.
registerRoute(new NavigationRoute(createHandlerBoundToURL(inScope(BASE, 'embed.html')), { allowlist: [new RegExp(`^${BASE}embed\\.html(\\?|$)`)] }))
// Client-side routes open the app shell; /api/ never falls through to it.
registerRoute(new NavigationRoute(createHandlerBoundToURL(inScope(BASE, 'index.html')), { denylist: [new RegExp(`^${BASE}api/`, 'i')] }))
