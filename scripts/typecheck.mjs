// `npm run typecheck`: the three TypeScript projects (the UI, the service worker, Node and the
// tests) checked at the same time. Each checker is one thread; one after the other they left
// a core of CI's two idle for about a minute. Each project's output is printed whole once it
// ends, so the lines of one never interleave with another's.
import { spawn } from 'node:child_process'

const PROJECTS = [
  ['vue-tsc', '--noEmit', '-p', 'tsconfig.app.json'],
  ['tsc', '--noEmit', '-p', 'tsconfig.sw.json'],
  ['tsc', '--noEmit', '-p', 'tsconfig.node.json'],
]

function check([bin, ...args]) {
  return new Promise((resolve) => {
    const proc = spawn(`node_modules/.bin/${bin}`, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    proc.stdout.on('data', (b) => { out += b })
    proc.stderr.on('data', (b) => { out += b })
    proc.once('error', (err) => resolve({ ok: false, out: `${bin}: ${err.message}\n` }))
    proc.once('close', (code) => resolve({ ok: code === 0, out }))
  })
}

const results = await Promise.all(PROJECTS.map(check))
for (const r of results) process.stdout.write(r.out)
process.exit(results.every((r) => r.ok) ? 0 : 1)
