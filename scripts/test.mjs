// `npm test`: the import-direction check, type-check, the Node suites (vitest), a production build, then the browser
// suites (Playwright in Debian's Chromium). Ends with one "N passed, N failed" line that
// sums both runners, so CI can read the outcome of the whole run.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'

const results = 'test-results'
rmSync(results, { recursive: true, force: true })
mkdirSync(results, { recursive: true })
let passed = 0
let failed = 0
let skipped = 0

const started = performance.now()
const seconds = (t) => `${Math.round((performance.now() - t) / 1000)} s`

// Each step's time is printed after it: CI has a budget (30 minutes), and the log says where it went.
function run(label, cmd, args, env = {}) {
  console.log(`\n=== ${label}: ${[cmd, ...args].join(' ')}`)
  const t = performance.now()
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } })
  console.log(`=== ${label}: ${seconds(t)}`)
  return r.status === 0
}

function readJson(path) {
  try { return JSON.parse(readFileSync(path, 'utf8')) } catch { return undefined }
}

function finish(ok) {
  console.log(`\n=== all steps: ${seconds(started)}`)
  console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
  process.exit(ok && failed === 0 ? 0 : 1)
}

if (!run('imports', 'node', ['scripts/check-imports.mjs'])) { failed++; finish(false) }
if (!run('types', 'npm', ['run', '-s', 'typecheck'])) { failed++; finish(false) }
// Chromium and validate_gpkg.py: the Node suites validate exported GeoPackages too.
if (!run('system tools', 'node', ['scripts/ensure-chromium.mjs'])) { failed++; finish(false) }

if (!run('gdal-bin', 'node', ['scripts/ensure-gdal.mjs'])) { failed++; finish(false) }
// PostgreSQL + PostGIS: the data port and the Node host are also tested on a real server (test/pg/cluster.ts).
if (!run('postgresql', 'node', ['scripts/ensure-postgres.mjs'])) { failed++; finish(false) }

const unitOk = run('node tests', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}/vitest.json`])
const unit = readJson(`${results}/vitest.json`)
if (unit) {
  passed += unit.numPassedTests
  failed += unit.numFailedTests
  skipped += unit.numPendingTests + unit.numTodoTests
} else if (!unitOk) failed++

if (!run('build', 'npx', ['vite', 'build', '--logLevel', 'warn'])) { failed++; finish(false) }

const e2eOk = run('browser tests', 'npx', ['playwright', 'test', '--reporter=list,json'],
  { PLAYWRIGHT_JSON_OUTPUT_NAME: `${results}/e2e.json` })
const e2e = readJson(`${results}/e2e.json`)
if (e2e?.stats) {
  passed += e2e.stats.expected + (e2e.stats.flaky ?? 0)
  if (e2e.stats.flaky) console.log(`${e2e.stats.flaky} browser test(s) passed only on retry (flaky): see the list above.`)
  failed += e2e.stats.unexpected
  skipped += e2e.stats.skipped
} else if (!e2eOk) failed++

finish(unitOk && e2eOk)
