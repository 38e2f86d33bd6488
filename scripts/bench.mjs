// `npm run bench`: runs every benchmark in test/bench/ (each a standalone script that installs
// its native reference tool, measures both sides in the same run, and rewrites its own section
// of docs/benchmarks.md).
import { readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'

const only = process.argv.slice(2)
const files = readdirSync('test/bench').filter((f) => f.endsWith('.bench.ts') && (!only.length || only.some((o) => f.includes(o))))
let ok = true
for (const f of files.sort()) {
  console.log(`\n=== ${f}`)
  const r = spawnSync('npx', ['tsx', `test/bench/${f}`], { stdio: 'inherit' })
  ok &&= r.status === 0
}
process.exit(ok ? 0 : 1)
