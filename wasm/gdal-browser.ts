/**
 * @module wasm/gdal-browser
 * Starts gdal3.js inside the service worker. The library's JavaScript (190 KB) is bundled
 * statically (a module worker cannot `import()`), but nothing of GDAL runs until the first
 * request that needs it calls `initGdalBrowser`: only then are the 40 MB of .wasm/.data
 * fetched from `/gdal/` (the host keeps them in its engine cache for offline use).
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

export async function initGdalBrowser(): Promise<GdalApi> {
  if (typeof initGdalJs !== 'function') throw new Error('gdal3.js did not load in this worker.')
  // Emscripten downloads the .data package with XMLHttpRequest, which workers lack.
  installFetchXhr()
  return initGdalJs({ path: '/gdal', useWorker: false, logHandler: () => {}, errorHandler: () => {} })
}
