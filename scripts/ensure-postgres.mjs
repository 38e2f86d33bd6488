// Makes sure Debian's PostgreSQL and PostGIS exist for the tests that run the data port and the
// Node host on a real PostgreSQL (test/pg/cluster.ts starts a throwaway cluster of them):
// installs `postgresql` and `postgis` when running as root with apt-get (as CI does on a fresh
// machine), otherwise explains what to do. Prints the server's version.
import { readdirSync, existsSync } from 'node:fs'
import { spawnSync } from 'node:child_process'
import { aptInstall } from './apt.mjs'

/** The newest installed server whose PostGIS extension is there too, as `{ version, bin }`. */
function installed() {
  let versions = []
  try { versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) } catch {}
  for (const v of versions) {
    if (existsSync(`/usr/lib/postgresql/${v}/bin/initdb`) && existsSync(`/usr/share/postgresql/${v}/extension/postgis.control`)) {
      return { version: v, bin: `/usr/lib/postgresql/${v}/bin` }
    }
  }
  return undefined
}

if (!installed()) {
  console.log('Installing Debian postgresql and postgis for the PostgreSQL tests…')
  aptInstall(['postgresql', 'postgis'])
}
const found = installed()
if (!found) {
  console.error("No PostgreSQL server with PostGIS found. Install Debian's: sudo apt-get update && sudo apt-get install -y postgresql postgis")
  process.exit(1)
}
if (spawnSync('id', ['-u', 'postgres']).status !== 0) {
  console.error("No 'postgres' user to run the throwaway cluster as (initdb refuses root); Debian's postgresql package creates it.")
  process.exit(1)
}
console.log(spawnSync(`${found.bin}/postgres`, ['--version'], { encoding: 'utf8' }).stdout.trim(), '+ PostGIS')
