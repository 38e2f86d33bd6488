/**
 * The Node host as its own process, for tests that kill it (SIGKILL mid-write) and restart it
 * on the same data folder.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { NODE_ADMIN_PASSWORD } from './node-client.ts'
import { fromWire, toWire, type Api } from './harness.ts'

export interface Host { proc: ChildProcess; base: string }

/** The host from its TypeScript sources through tsx: no build needed (vitest runs before any build in CI). */
export const SOURCE_ENTRY = ['--import', 'tsx', 'sw/host/node-main.ts']
/** The compiled host (`npm run build`, scripts/build-node.mjs). */
export const COMPILED_ENTRY = ['dist-node/sw/host/node-main.js']

/** Starts `node <entry>` (by default the sources through tsx) with `args` (one process, so SIGKILL really kills the server). */
export function startHost(dataDir: string, args: string[] = [], entry: string[] = SOURCE_ENTRY): Promise<Host> {
  const proc = spawn(process.execPath, [...entry, '--port', '0', '--data', dataDir, ...args],
    { env: { ...process.env, OUTPOST_ADMIN_PASSWORD: NODE_ADMIN_PASSWORD }, stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let out = ''
    const onData = (b: Buffer) => {
      out += b.toString()
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) { proc.stdout!.off('data', onData); resolve({ proc, base: m[1]! }) }
    }
    proc.stdout!.on('data', onData)
    proc.stderr!.on('data', (b: Buffer) => { out += b.toString() })
    proc.once('exit', (code) => reject(new Error(`host exited (${code}) before listening:\n${out}`)))
  })
}

/** An `Api` over real HTTP to `base`, as the administrator by default. */
export function apiOf(base: string): Api {
  return {
    host: 'node',
    async request(method, path, opts = {}) {
      const w = toWire(method, path, opts, NODE_ADMIN_PASSWORD)
      const body = w.bytesBase64 !== undefined ? new Uint8Array(Buffer.from(w.bytesBase64, 'base64')) : w.body
      const res = await fetch(base + w.path, { method: w.method, headers: w.headers, body })
      const bytes = new Uint8Array(await res.arrayBuffer())
      return fromWire(res.status, Object.fromEntries(res.headers), new TextDecoder().decode(bytes), Buffer.from(bytes).toString('base64'))
    },
  }
}

export function kill(host: Host): Promise<void> {
  return new Promise((resolve) => {
    if (host.proc.exitCode !== null || host.proc.signalCode !== null) return resolve()
    host.proc.once('exit', () => resolve())
    host.proc.kill('SIGKILL')
  })
}
