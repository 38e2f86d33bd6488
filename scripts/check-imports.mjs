// Checks which way imports run (docs/architecture.md, "Layers"): every relative import of
// sw/ and wasm/ must go to the same or a lower layer, no module may take part in an import
// circle, and src/ (the UI, an HTTP client) must not import sw/ or wasm/ at all. And the data
// port's rules (docs/architecture.md, "Data port"; issue 22):
//   R1. sw/sqlite/ and sw/postgres/ (the implementations) are imported only by sw/services.ts,
//       sw/host/ and themselves (each its own; neither the other).
//   R2. The SQLite kernel (sw/store/{database,bulk,row-reader,vfs,paged-file,residency}.ts and
//       the package @sqlite.org/sqlite-wasm) is imported only by sw/sqlite/, sw/store/,
//       sw/host/, wasm/sqlite.ts and (the package, for the loader's type) sw/platform/platform.ts.
//   R3. No SQL, and no `.sqlite()` call, outside sw/sqlite/, sw/postgres/ and sw/store/.
//   R4. The PostgreSQL driver (the package `pg`) only in sw/postgres/ (Node only: the service
//       worker's bundle never reaches it).
// No exemptions: the moves of issue 22 are done, so the marker that once exempted a file from
// R2 and R3 while it waited for its move is itself an error wherever it is left.
// Prints every problem and exits 1 when there is one. Run by `npm test`.
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
  // sw/port is the engine-neutral glue of the data port: one more unit of this layer.
  { name: 'components', match: (p) => /^sw\/(auth|resource|feature|upload|catalogue|pyramid|diagnostics|export|render|mvt|basemap|sync|ingest|files|spatialdb|port|ogc)\//.test(p) },
  // Implementations of the data port (sw/sqlite; a future sw/postgres): they use the components' types and pure helpers, never a class.
  { name: 'implementations', match: (p) => p.startsWith('sw/sqlite/') || p.startsWith('sw/postgres/') },
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

/** The exemption marker of the transition (issue 22): no file may carry it any more. */
const MARKER = '// port: legacy-sql (issue 22)'
const KERNEL = new Set(['database', 'bulk', 'row-reader', 'vfs', 'paged-file', 'residency'].map((n) => `sw/store/${n}.ts`))
const SQLITE_PACKAGE = '@sqlite.org/sqlite-wasm'
/** SQL as code writes it (case-sensitive, so English prose in messages passes), and the connection's loader. */
const SQL = /\b(SELECT\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\S+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(TEMP\s+)?(TABLE|INDEX|TRIGGER|VIRTUAL)\s|ALTER\s+TABLE|DROP\s+TABLE|PRAGMA\s|ATTACH\s|DETACH\s|WITH\s+RECURSIVE|BEGIN\s+IMMEDIATE)|\.sqlite\(\)/
const inSqlHome = (p) => p.startsWith('sw/sqlite/') || p.startsWith('sw/postgres/') || p.startsWith('sw/store/')
const IMPLEMENTATIONS = ['sw/sqlite/', 'sw/postgres/']
/** Who may import implementation `dep` (R1): the app, the hosts, and the implementation itself. */
const choosesImplementation = (p, dep) => p === 'sw/services.ts' || p.startsWith('sw/host/') ||
  IMPLEMENTATIONS.some((i) => dep.startsWith(i) && p.startsWith(i))
const PG_PACKAGE = 'pg'
/** Who may hold the SQLite kernel (R2); the package's type also reaches the platform (its loader). */
const holdsKernel = (p, dep) => inSqlHome(p) || p.startsWith('sw/host/') || p === 'wasm/sqlite.ts' ||
  (dep === SQLITE_PACKAGE && p === 'sw/platform/platform.ts')

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

/** A module's source without its comments. */
const codeOf = (path) => readFileSync(join(ROOT, path), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')

/** Relative imports of a module, as repository paths (without `?url` suffixes); with `bare`, package names too. */
function importsOf(path, bare = []) {
  const out = []
  for (const m of codeOf(path).matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2]).replace(/\?.*$/, '')
    if (!spec.startsWith('.')) { bare.push(spec); continue }
    out.push(relative(ROOT, resolve(join(ROOT, dirname(path)), spec)))
  }
  return out
}

/** The data port's problems of one module (R1–R3, and a leftover marker). */
function portProblems(path, deps, bare) {
  const out = []
  for (const dep of deps) {
    if (IMPLEMENTATIONS.some((i) => dep.startsWith(i)) && !choosesImplementation(path, dep)) {
      out.push(`${path} → ${dep}: only the app (sw/services.ts) and the hosts choose an implementation of the data port (R1)`)
    }
    if (KERNEL.has(dep) && !holdsKernel(path, dep)) out.push(`${path} → ${dep}: the SQLite kernel belongs to sw/sqlite and sw/store (R2)`)
  }
  if (bare.includes(SQLITE_PACKAGE) && !holdsKernel(path, SQLITE_PACKAGE)) {
    out.push(`${path} → ${SQLITE_PACKAGE}: the SQLite kernel belongs to sw/sqlite and sw/store (R2)`)
  }
  if (bare.includes(PG_PACKAGE) && !path.startsWith('sw/postgres/')) {
    out.push(`${path} → ${PG_PACKAGE}: the PostgreSQL driver belongs to sw/postgres (R4)`)
  }
  if (!inSqlHome(path)) {
    const sql = SQL.exec(codeOf(path))
    if (sql) out.push(`${path}: SQL ('${sql[0].trim()}') belongs to sw/sqlite, behind the data port (R3)`)
  }
  if (readFileSync(join(ROOT, path), 'utf8').includes(MARKER)) {
    out.push(`${path}: '${MARKER}' exempts nothing any more (the port is complete): remove it and move the SQL behind the port`)
  }
  return out
}

const problems = []
const graph = new Map()

for (const path of [...files('sw', ['.ts']), ...files('wasm', ['.ts'])]) {
  const from = layerOf(path)
  if (from === undefined) { problems.push(`${path}: in no layer (add its folder to scripts/check-imports.mjs)`); continue }
  const bare = []
  const deps = importsOf(path, bare)
  graph.set(path, deps)
  problems.push(...portProblems(path, deps, bare))
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
