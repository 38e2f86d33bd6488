// Makes sure Debian's GDAL command-line tools exist for the test of GDAL's NGW driver
// (test/api/ngw-driver.test.ts: `ogr2ogr -f NGW`, `gdal_translate -of NGW` against the Node
// host): installs `gdal-bin` when running as root with apt-get (as CI does on a fresh machine),
// otherwise explains what to do. Measured on this machine: ~40 s on a fresh install.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const have = () => spawnSync('ogr2ogr', ['--version'], { encoding: 'utf8' }).status === 0
if (!have() && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
  console.log('Installing Debian gdal-bin for the NGW driver test…')
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', 'gdal-bin']]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env })
    if (r.status !== 0) { console.error(`apt-get ${args.join(' ')} failed.`); break }
  }
}
if (!have()) {
  console.error('No ogr2ogr found. Install Debian\'s: sudo apt-get update && sudo apt-get install -y gdal-bin')
  process.exit(1)
}
console.log(spawnSync('ogr2ogr', ['--version'], { encoding: 'utf8' }).stdout.trim())
