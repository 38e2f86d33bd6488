/**
 * @module wasm/gdal-node
 * Starts gdal3.js in Node. gdal3.js resolves its .wasm/.data relative to the working
 * directory, so the path is given relative to `process.cwd()`.
 */
import { createRequire } from 'node:module'
import { dirname, relative } from 'node:path'
import type { GdalApi } from './gdal.ts'

/** gdal3.js keeps its state in module globals: one instance per process, whoever asks. */
let instance: Promise<GdalApi> | undefined

export function initGdalNode(): Promise<GdalApi> {
  return (instance ??= start())
}

async function start(): Promise<GdalApi> {
  const require = createRequire(import.meta.url)
  const entry = require.resolve('gdal3.js/node.js')
  const init = require('gdal3.js/node.js') as (cfg: Record<string, unknown>) => Promise<GdalApi>
  const path = relative(process.cwd(), `${dirname(entry)}/dist/package`) || '.'
  return init({ path, useWorker: false, logHandler: () => {}, errorHandler: () => {} })
}
