// `npm run serve` / `npm start`: the Node host from its build (dist-node/, `npm run build`),
// imported into this same process (no second Node process and its memory). A fresh clone has
// no build: it is made here first when TypeScript is installed, else the start stops saying
// how to make it. A build older than the sources is used as it is, with a note.
// package.json starts this with `node --max-semi-space-size=2 --v8-pool-size=1`: V8 reads these
// only at start. The first keeps the young generation from staying at 2 × 16 MiB after a burst
// of work; the second runs V8's background work (concurrent marking, compiles) on one thread
// instead of four, each with its own malloc arena (docs/architecture.md "Memory").
import { existsSync, readdirSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ENTRY, buildNode } from './build-node.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The newest modification time among the host's sources (sw/ and wasm/), in ms. */
function newestSource() {
  let newest = 0
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs)
    }
  }
  for (const d of ['sw', 'wasm']) if (existsSync(join(ROOT, d))) walk(join(ROOT, d))
  return newest
}

if (!existsSync(ENTRY)) {
  console.error('The Node host is not built yet (dist-node/): building it now, once (`npm run build` rebuilds it).')
  if (!buildNode() || !existsSync(ENTRY)) {
    console.error('The Node host is not built: run `npm run build`.')
    process.exit(1)
  }
} else if (newestSource() > statSync(ENTRY).mtimeMs) {
  console.error('Note: sources in sw/ or wasm/ changed since the Node host was built; `npm run build` brings dist-node/ up to date.')
}
await import(pathToFileURL(ENTRY).href)
