// Checks which way imports run (docs/architecture.md, "Layers"): every relative import of
// sw/ and wasm/ must go to the same or a lower layer, no module may take part in an import
// circle, and src/ (the UI, an HTTP client) must not import sw/ or wasm/ at all.
// Prints every wrong import and circle and exits 1 when there is one. Run by `npm test`.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

// The tree to check: the repository, or the folder given as the first argument (tests).
const ROOT = resolve(process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '..'))

/**
 * The layers, lowest first. A module may import its own layer and the ones below; the
 * components of one layer may use each other's services but never another's routes, and a
 * class folder no other class folder.
 */
const LAYERS = [
  { name: 'core', match: (p) => p.startsWith('sw/core/') },
  { name: 'geo/store/image/engines', match: (p) => /^sw\/(geo|store|image)\//.test(p) || p.startsWith('wasm/') },
  { name: 'platform', match: (p) => p.startsWith('sw/platform/') },
  { name: 'components', match: (p) => /^sw\/(auth|resource|feature|upload|catalogue|pyramid|diagnostics|export|render|mvt|basemap|sync|ingest|files|port)\//.test(p) },
  { name: 'implementations', match: (p) => p.startsWith('sw/sqlite/') },
  { name: 'classes', match: (p) => p.startsWith('sw/classes/') && p !== 'sw/classes/registry.ts' },
  { name: 'class registry', match: (p) => p === 'sw/classes/registry.ts' },
  { name: 'app', match: (p) => /^sw\/[^/]+\.ts$/.test(p) },
  { name: 'host', match: (p) => p.startsWith('sw/host/') },
]

function layerOf(path) {
  const i = LAYERS.findIndex((l) => l.match(path))
  return i < 0 ? undefined : i
}

/** The component (`sw/feature`) or class folder (`sw/classes/vector_layer`) a module belongs to. */
function unitOf(path) {
  const m = /^sw\/classes\/([^/]+)\//.exec(path)
  if (m) return `sw/classes/${m[1]}`
  return path.split('/').slice(0, 2).join('/')
}

function files(dir, exts) {
  const out = []
  let names
  try { names = readdirSync(join(ROOT, dir)) } catch { return out }
  for (const name of names) {
    const rel = `${dir}/${name}`
    if (statSync(join(ROOT, rel)).isDirectory()) out.push(...files(rel, exts))
    else if (exts.some((e) => name.endsWith(e)) && !name.endsWith('.d.ts')) out.push(rel)
  }
  return out
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** Relative imports of a module, as repository paths (without `?url` suffixes). */
function importsOf(path) {
  const text = readFileSync(join(ROOT, path), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')
  const out = []
  for (const m of text.matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2]).replace(/\?.*$/, '')
    if (!spec.startsWith('.')) continue
    out.push(relative(ROOT, resolve(join(ROOT, dirname(path)), spec)))
  }
  return out
}

const problems = []
const graph = new Map()

for (const path of [...files('sw', ['.ts']), ...files('wasm', ['.ts'])]) {
  const from = layerOf(path)
  if (from === undefined) { problems.push(`${path}: in no layer (add its folder to scripts/check-imports.mjs)`); continue }
  const deps = importsOf(path)
  graph.set(path, deps)
  for (const dep of deps) {
    if (!dep.startsWith('sw/') && !dep.startsWith('wasm/')) { problems.push(`${path} → ${dep}: outside sw/ and wasm/`); continue }
    const to = layerOf(dep)
    if (to === undefined) continue // reported as a module of its own
    if (to > from) {
      problems.push(`${path} → ${dep}: ${LAYERS[from].name} must not import ${LAYERS[to].name} (imports run downwards)`)
    } else if (to === from && unitOf(path) !== unitOf(dep)) {
      if (LAYERS[from].name === 'components' && /\/routes\.ts$/.test(dep)) {
        problems.push(`${path} → ${dep}: a component calls another's services, never its routes`)
      } else if (LAYERS[from].name === 'classes' && unitOf(dep) !== 'sw/classes' && unitOf(path) !== 'sw/classes') {
        problems.push(`${path} → ${dep}: a class folder must not import another class`)
      }
    }
  }
}

for (const path of files('src', ['.ts', '.vue'])) {
  for (const dep of importsOf(path)) {
    if (dep.startsWith('sw/') || dep.startsWith('wasm/')) problems.push(`${path} → ${dep}: the UI talks to the backend over HTTP only`)
  }
}

// Import circles: depth-first search, reporting each circle once by its smallest member.
const seen = new Set()
const reported = new Set()
function visit(path, stack, onStack) {
  seen.add(path)
  stack.push(path)
  onStack.add(path)
  for (const dep of graph.get(path) ?? []) {
    if (!graph.has(dep)) continue
    if (onStack.has(dep)) {
      const circle = stack.slice(stack.indexOf(dep))
      const key = [...circle].sort().join(' ')
      if (!reported.has(key)) {
        reported.add(key)
        problems.push(`import circle: ${[...circle, dep].join(' → ')}`)
      }
    } else if (!seen.has(dep)) visit(dep, stack, onStack)
  }
  stack.pop()
  onStack.delete(path)
}
for (const path of graph.keys()) if (!seen.has(path)) visit(path, [], new Set())

if (problems.length) {
  console.error(`${problems.length} import problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`)
  process.exit(1)
}
console.log(`imports: ${graph.size} modules of sw/ and wasm/ import only downwards, no circles; src/ imports no backend module`)
