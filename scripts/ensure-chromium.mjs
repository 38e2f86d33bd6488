// Makes sure the system tools the tests use exist: Chromium for the browser tests and GDAL's
// GeoPackage validator (`validate_gpkg.py`, Debian `python3-gdal`) for the export tests.
// Installs Debian's packages when running as root with apt-get (as CI does on a fresh
// machine), otherwise explains what to do.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { findChromium, NO_CHROMIUM_HELP } from './chromium.mjs'
import { aptInstall } from './apt.mjs'
import { GPKG_VALIDATOR, NO_VALIDATOR_HELP } from './gpkg-validator.mjs'

let path = findChromium()
if (!path) {
  console.log('Installing Debian chromium for the browser tests…')
  if (aptInstall(['chromium'])) path = findChromium()
}
if (!existsSync(GPKG_VALIDATOR)) {
  console.log('Installing Debian python3-gdal for validate_gpkg.py…')
  aptInstall(['python3-gdal'])
}
if (!path) {
  console.error(NO_CHROMIUM_HELP)
  process.exit(1)
}
if (!existsSync(GPKG_VALIDATOR)) {
  console.error(NO_VALIDATOR_HELP)
  process.exit(1)
}
console.log(execFileSync(path, ['--version'], { encoding: 'utf8' }).trim().split('\n').pop(), `(${path})`)
