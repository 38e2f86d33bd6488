/**
 * @module wasm/gdal-browser
 * Starts gdal3.js inside the service worker. (Placeholder until the GDAL loader lands.)
 */
import type { GdalApi } from './gdal.ts'

export async function initGdalBrowser(): Promise<GdalApi> {
  throw new Error('GDAL is not available in the service worker yet.')
}
