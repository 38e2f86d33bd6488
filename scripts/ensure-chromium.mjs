// Makes sure a system Chromium exists for the browser tests: installs Debian's package when
// running as root with apt-get (as CI does on a fresh machine), otherwise explains what to do.
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { findChromium, NO_CHROMIUM_HELP } from './chromium.mjs'

let path = findChromium()
if (!path && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
  console.log('Installing Debian chromium for the browser tests…')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'chromium']]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env })
    if (r.status !== 0) { console.error(`apt-get ${args.join(' ')} failed.`); break }
  }
  path = findChromium()
}
if (!path) {
  console.error(NO_CHROMIUM_HELP)
  process.exit(1)
}
console.log(execFileSync(path, ['--version'], { encoding: 'utf8' }).trim().split('\n').pop(), `(${path})`)
