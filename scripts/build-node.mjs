// `npm run build:node` (part of `npm run build`): compiles the Node host (sw/host/node-main.ts,
// the GDAL thread's wasm/gdal-worker-node.ts and all they import) to JavaScript in dist-node/
// with tsc (tsconfig.build-node.json). The build goes to a private folder that then replaces
// dist-node/ by rename, so a host starting beside a build (tests, a second terminal) never
// loads half-written files.
import { existsSync, renameSync, rmSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
export const OUT = join(ROOT, 'dist-node')
export const ENTRY = join(OUT, 'sw', 'host', 'node-main.js')

/** Whether TypeScript is installed (not after `npm install --omit=dev`). */
function tscPath() {
  try { return createRequire(import.meta.url).resolve('typescript/bin/tsc') } catch { return undefined }
}

/**
 * Builds dist-node/; returns false (tsc's errors printed) when it does not build. `check: false`
 * only emits (tsc's --noCheck): the same files, byte for byte, in a third of the CPU time, for
 * node-build.test.ts, which runs after `npm run typecheck` has checked these sources already.
 */
export function buildNode({ check = true } = {}) {
  const tsc = tscPath()
  if (!tsc) { console.error('TypeScript is not installed: `npm install` (with dev dependencies), then `npm run build`.'); return false }
  const tmp = `${OUT}.tmp-${process.pid}`
  const r = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build-node.json'), '--outDir', tmp, ...(check ? [] : ['--noCheck'])], { stdio: 'inherit' })
  if (r.status !== 0) { rmSync(tmp, { recursive: true, force: true }); return false }
  const old = `${OUT}.old-${process.pid}`
  if (existsSync(OUT)) renameSync(OUT, old)
  try {
    renameSync(tmp, OUT)
  } catch (err) {
    // Another build (a test beside a start) put its dist-node/ in place meanwhile: that one stands.
    rmSync(tmp, { recursive: true, force: true })
    if (!existsSync(ENTRY)) throw err
  }
  rmSync(old, { recursive: true, force: true })
  return true
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(buildNode({ check: !process.argv.includes('--no-check') }) ? 0 : 1)
