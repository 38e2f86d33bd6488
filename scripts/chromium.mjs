// Finds a system Chromium for Playwright (this machine cannot download Playwright's own).
import { existsSync } from 'node:fs'

const CANDIDATES = ['/usr/bin/chromium', '/usr/lib/chromium/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

/** The path of a Chromium executable, or undefined. `$CHROMIUM_PATH` wins. */
export function findChromium() {
  if (process.env.CHROMIUM_PATH) return existsSync(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : undefined
  return CANDIDATES.find((p) => existsSync(p))
}

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic']

export const NO_CHROMIUM_HELP = `No Chromium found. Install Debian's: sudo apt-get update && sudo apt-get install -y chromium
or point CHROMIUM_PATH at a Chromium or Chrome executable.`
