// Makes sure Debian's GDAL command-line tools exist for the test of GDAL's NGW driver
// (test/api/ngw-driver.test.ts: `ogr2ogr -f NGW`, `gdal_translate -of NGW` against the Node
// host) and of the WMS server (test/api/wms-clients.test.ts: GDAL's WMS driver), and Debian's
// OWSLib (python3-owslib, run by /usr/bin/python3) for the same WMS test: installs `gdal-bin`
// and `python3-owslib` when running as root with apt-get (as CI does on a fresh machine),
// otherwise explains what to do. Measured on this machine: ~40 s on a fresh install.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

const TOOLS = [
  { pkg: 'gdal-bin', have: () => spawnSync('ogr2ogr', ['--version'], { encoding: 'utf8' }).status === 0 },
  { pkg: 'python3-owslib', have: () => spawnSync('/usr/bin/python3', ['-c', 'import owslib'], { encoding: 'utf8' }).status === 0 },
]

const missing = () => TOOLS.filter((t) => !t.have()).map((t) => t.pkg)
if (missing().length && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
  console.log(`Installing Debian ${missing().join(', ')} for the GDAL and WMS client tests…`)
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', ...missing()]]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env })
    if (r.status !== 0) { console.error(`apt-get ${args.join(' ')} failed.`); break }
  }
}
if (missing().length) {
  console.error(`Missing ${missing().join(', ')}. Install Debian's: sudo apt-get update && sudo apt-get install -y ${missing().join(' ')}`)
  process.exit(1)
}
console.log(spawnSync('ogr2ogr', ['--version'], { encoding: 'utf8' }).stdout.trim())
