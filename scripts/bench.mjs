// `npm run bench`: runs every benchmark in test/bench/ (each a standalone script that installs
// its native reference tool, measures both sides in the same run, and rewrites its own section
// of docs/benchmarks.md). `npm run bench -- storage features` runs those whose names contain
// the words. Long opt-in steps run only when named exactly (`npm run bench -- storage-5m`).
import { readdirSync } from 'node:fs'
import { spawnSync } from 'node:child_process'

const OPT_IN = ['storage-5m']
const only = process.argv.slice(2)
const files = readdirSync('test/bench').filter((f) => {
  if (!f.endsWith('.bench.ts')) return false
  const name = f.slice(0, -'.bench.ts'.length)
  if (OPT_IN.includes(name)) return only.includes(name)
  return !only.length || only.some((o) => name.includes(o))
})
let ok = true
for (const f of files.sort()) {
  console.log(`\n=== ${f}`)
  const r = spawnSync('npx', ['tsx', `test/bench/${f}`], { stdio: 'inherit' })
  ok &&= r.status === 0
}
process.exit(ok ? 0 : 1)
