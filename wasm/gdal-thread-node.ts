/**
 * @module wasm/gdal-thread-node
 * The Node host's GDAL: gdal3.js in one `node:worker_threads` Worker, behind the same
 * `GdalEngine` the service worker calls in-process. GDAL's calls are synchronous WASM that
 * run for seconds to minutes on a big file; on the request thread they would stop every
 * other request (a 100000×100000 GeoTIFF held it 201 s). In the worker they only take its
 * time. One thread, not a pool: jobs are serialized anyway (`ingest/gdal-workspace`: one
 * error state and global config per GDAL instance), each instance's heap grows to the
 * largest file it has read and never shrinks, and on a 2-core machine a second GDAL thread
 * would compete with the request thread for the other core. Bytes cross by transfer, not copy.
 */
import { Worker } from 'node:worker_threads'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { GdalEngine } from './gdal.ts'

/** `idle`: whether GDAL's memory holds no job's files (nothing under /input or /output). */
type Op = keyof GdalEngine | 'idle'

/**
 * An idle GDAL thread ends after this long without calls, and with it its heap (gdal3.js's
 * WASM memory grows to the largest file read and never shrinks: 145 MiB of RSS after one small
 * inspect, measured in docs/benchmarks.md "Node host memory"). The next call starts a new one
 * (1–3 s, off the request thread).
 */
export const GDAL_IDLE_MS = 60_000
interface Call { resolve(v: unknown): void; reject(e: unknown): void }

/**
 * The worker's script. The compiled host (dist-node/, `npm run build`) starts the compiled
 * `gdal-worker-node.js` directly; from TypeScript sources (tsx, vitest) the worker registers
 * tsx's loader in itself first, since a worker does not inherit the parent's loader hooks.
 */
function bootstrap(): string {
  if (import.meta.url.endsWith('.js')) {
    return `import(${JSON.stringify(new URL('./gdal-worker-node.js', import.meta.url).href)})`
  }
  const require = createRequire(import.meta.url)
  const tsx = pathToFileURL(join(dirname(require.resolve('tsx/esm/api')), 'index.mjs')).href
  const entry = new URL('./gdal-worker-node.ts', import.meta.url).href
  return `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}) })`
}

/** The thread's engine, and whether a thread is running now (false before the first call and after it ended idle). */
export type GdalThread = GdalEngine & { readonly running: boolean }

/**
 * A `GdalEngine` whose calls run in a worker thread, started on the first call (and again after
 * a crash or after it ended idle: `idleMs` without calls and no job's files in its memory).
 */
export function gdalThread(idleMs = GDAL_IDLE_MS): GdalThread {
  let worker: Worker | undefined
  const calls = new Map<number, Call>()
  let serial = 0
  let idle: ReturnType<typeof setTimeout> | undefined

  /** After the last pending call: the thread ends if nothing comes for `idleMs`. */
  function settled(): void {
    if (calls.size || !worker) return
    clearTimeout(idle)
    idle = setTimeout(retire, idleMs)
    idle.unref()
  }

  async function retire(): Promise<void> {
    const w = worker
    if (!w || calls.size) return
    // A job may be between its calls (its files written, its dataset open): the thread stays.
    const empty = await call<boolean>('idle', []).catch(() => false)
    if (!empty || calls.size || worker !== w) return
    worker = undefined
    clearTimeout(idle)
    // Ended on purpose: nothing pending to fail, and the next call starts a new thread.
    w.removeAllListeners('exit')
    w.removeAllListeners('error')
    w.on('error', () => undefined)
    void w.terminate()
  }

  function start(): Worker {
    const w = new Worker(bootstrap(), { eval: true })
    // Not counted as work of its own (tsx's loader, registered inside, may still hold the
    // process once serving has stopped; the host's process ends by signal anyway).
    w.unref()
    w.on('message', (m: { id: number; value?: unknown; error?: unknown; failed?: boolean }) => {
      const call = calls.get(m.id)
      if (!call) return
      calls.delete(m.id)
      if (m.failed) call.reject(m.error)
      else call.resolve(m.value)
      settled()
    })
    const fail = (err: unknown) => {
      if (worker === w) worker = undefined
      for (const c of calls.values()) c.reject(err)
      calls.clear()
    }
    w.on('error', fail)
    w.on('exit', (code: number) => fail(new Error(`The GDAL thread stopped (exit code ${code}).`)))
    return w
  }

  function call<T>(op: Op, args: unknown[], transfer: ArrayBuffer[] = []): Promise<T> {
    worker ??= start()
    const id = ++serial
    return new Promise<T>((resolve, reject) => {
      calls.set(id, { resolve: resolve as (v: unknown) => void, reject })
      worker!.postMessage({ id, op, args }, transfer)
    })
  }

  return {
    get running() { return worker !== undefined },
    openEx: (path, kind, options) => call('openEx', [path, kind, options]),
    close: (ds) => call('close', [ds]),
    ogrinfo: (ds, args) => call('ogrinfo', [ds, args]),
    gdalinfo: (ds, args) => call('gdalinfo', [ds, args]),
    ogr2ogr: (ds, args, out) => call('ogr2ogr', [ds, args, out]),
    gdalwarp: (ds, args, out) => call('gdalwarp', [ds, args, out]),
    gdal_translate: (ds, args, out) => call('gdal_translate', [ds, args, out]),
    writeFile: (path, bytes) => {
      const own = transferable(bytes)
      return call('writeFile', [path, own], [own.buffer as ArrayBuffer])
    },
    mkdir: (path) => call('mkdir', [path]),
    readFile: (path) => call('readFile', [path]),
    readdir: (path) => call('readdir', [path]),
    remove: (path) => call('remove', [path]),
  }
}

/** `bytes` when they are their whole (non-shared) buffer, else a copy that is. */
export function transferable(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice()
}
