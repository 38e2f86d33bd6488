/**
 * @module host/node-epsg
 * The Node host's EPSG index: the `epsg-index` package, one small JSON file per code, read
 * when a code is first used (never the whole 8 MB index).
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { EpsgEntry, EpsgSource } from '../geo/srs.ts'

const DIR = join(dirname(createRequire(import.meta.url).resolve('epsg-index/package.json')), 's')

export const nodeEpsg: EpsgSource = async (code) => {
  const text = await readFile(join(DIR, `${code}.json`), 'utf8').catch(() => undefined)
  if (!text) return undefined
  const rec = JSON.parse(text) as { name?: string; proj4?: string | null }
  return rec.proj4 ? { name: rec.name ?? `EPSG:${code}`, proj4: rec.proj4 } satisfies EpsgEntry : undefined
}
