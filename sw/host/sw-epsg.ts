/**
 * @module host/sw-epsg
 * The service worker's EPSG index: `/epsg/epsg.json`, made from the `epsg-index` package at
 * build time (`vite.config.ts`: name and proj4 definition of every code proj4 can use, about
 * 1.2 MB, 140 KB gzipped) and precached, so it works offline. It is fetched and parsed once,
 * on the first code outside the built-in list, never on the worker's start-up path.
 */
import type { EpsgEntry, EpsgSource } from '../geo/srs.ts'
import { sharedStart } from '../core/once.ts'

/** Where the build puts the index (see `vite.config.ts`). */
export const EPSG_INDEX_PATH = '/epsg/epsg.json'

/** An `EpsgSource` over the index at `url`, fetched with `fetch` (the host's engine fetch). */
export function swEpsg(fetch: typeof globalThis.fetch, url = EPSG_INDEX_PATH): EpsgSource {
  const index = sharedStart(async () => {
    const res = await fetch(url)
    if (!res.ok) throw new Error(`The EPSG index ${url} answered ${res.status}.`)
    return new Map(Object.entries(await res.json() as Record<string, [string, string]>))
  })
  return async (code): Promise<EpsgEntry | undefined> => {
    const hit = (await index()).get(String(code))
    return hit && { name: hit[0], proj4: hit[1] }
  }
}
