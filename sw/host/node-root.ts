/**
 * @module host/node-root
 * The project's folder (the one holding package.json), wherever this module runs from: from the
 * TypeScript sources (`sw/host/`, under tsx or vitest) or from the compiled host
 * (`dist-node/sw/host/`, one level deeper). Files the host reads at run time from the project
 * (dist/, public/) are found from here, not from a fixed number of `../`.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) return from
  }
}

/** The project folder, as a `file:` URL ending in `/`. */
export const PROJECT_ROOT = pathToFileURL(findRoot(dirname(fileURLToPath(import.meta.url))) + '/')
