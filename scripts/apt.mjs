// Installs Debian packages for the test and benchmark tools when running as root with
// apt-get (as CI does on a fresh machine); `apt-get update` runs once per process.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

let updated = false

/** Installs `packages`; returns false when that is not possible here or apt-get failed. */
export function aptInstall(packages) {
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return false
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const steps = updated ? [] : [['update', '-qq']]
  steps.push(['install', '-y', '-qq', '--no-install-recommends', ...packages])
  for (const args of steps) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env })
    if (r.status !== 0) { console.error(`apt-get ${args.join(' ')} failed.`); return false }
  }
  updated = true
  return true
}
