/**
 * @module wasm/gdal-browser
 * Starts gdal3.js inside the service worker. The library's JavaScript (190 KB) is bundled
 * statically (a module worker cannot `import()`), but nothing of GDAL runs until the first
 * request that needs it calls `initGdalBrowser`: only then are the 40 MB of .wasm/.data
 * fetched from `/gdal/`, through the fetch the host passes (which keeps them in its engine
 * cache for offline use).
 */
import gdalDefault from 'gdal3.js'
import type { GdalApi } from './gdal.ts'
import { installFetchXhr } from './gdal-xhr.ts'

type InitGdal = (config: Record<string, unknown>) => Promise<GdalApi>

// The UMD build either exports its init (when the bundler wraps it as CommonJS) or defines
// the global `initGdalJs` (when it runs as a plain script); accept both.
const initGdalJs = (typeof gdalDefault === 'function' ? gdalDefault
  : (globalThis as { initGdalJs?: InitGdal }).initGdalJs) as unknown as InitGdal | undefined

// gdal3.js assigns a global `onmessage` (its worker-proxy code) in any scope with
// `importScripts`, service workers included. Our messages go through addEventListener.
;(globalThis as { onmessage?: unknown }).onmessage = null

/**
 * Starts GDAL from its files at `path` (the app's `gdal/` folder); they are fetched with `fetch` (the host's engine fetch, which keeps them
 * for offline use). Emscripten downloads the .data package with XMLHttpRequest, which workers
 * lack: the stand-in uses `fetch`. The .wasm request is Emscripten's own `fetch()` call on a
 * Module object gdal3.js keeps to itself, so `fetch` is lent as the global one for the start
 * only, and the worker's own is put back when it settles.
 */
export async function initGdalBrowser(fetch: typeof globalThis.fetch, path = '/gdal'): Promise<GdalApi> {
  if (typeof initGdalJs !== 'function') throw new Error('gdal3.js did not load in this worker.')
  installFetchXhr(fetch)
  const scope = globalThis as { fetch: typeof globalThis.fetch }
  const own = scope.fetch
  scope.fetch = fetch
  try {
    return await initGdalJs({ path, useWorker: false, logHandler: () => {}, errorHandler: () => {} })
  } finally {
    scope.fetch = own
  }
}
