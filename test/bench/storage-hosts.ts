/**
 * Shared by the storage benchmarks: both hosts behind one small interface (a real Node host
 * process over a data folder; Chromium's service worker in a persistent profile), point
 * layers filled through the API in batches, and the measured operations on them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
// @ts-expect-error plain JS helper shared with the scripts
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs'
import { median } from './report.ts'

export const BATCH = 10_000
const PASSWORD = 'bench-password'
const FIELDS = [{ keyname: 'name', datatype: 'STRING' }, { keyname: 'n', datatype: 'INTEGER' },
  { keyname: 'v', datatype: 'REAL' }, { keyname: 'day', datatype: 'DATE' }]

/**
 * The PATCH body of points `from`…`from + count` of an `n`-point layer: spread pseudo-randomly
 * over a square of √n × 100 m, so any layer has about 100 points per km². Self-contained: it
 * also runs in the page (passed as source text).
 */
export function pointsBody(from: number, count: number, n: number): string {
  const side = Math.sqrt(n) * 100
  const rand = (i: number, k: number) => {
    let x = (Math.imul(i, 2654435761) ^ Math.imul(k + 1, 40503)) >>> 0
    x ^= x >>> 15; x = Math.imul(x, 2246822519) >>> 0; x ^= x >>> 13; x = Math.imul(x, 3266489917) >>> 0; x ^= x >>> 16
    return (x >>> 0) / 4294967296
  }
  const parts: string[] = []
  for (let i = from; i < from + count; i++) {
    const x = (4_000_000 + rand(i, 0) * side).toFixed(2)
    const y = (7_500_000 + rand(i, 1) * side).toFixed(2)
    const day = `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`
    parts.push(`{"geom":"POINT(${x} ${y})","fields":{"name":"feature ${i}","n":${i},"v":${i / 7},"day":"${day}"}}`)
  }
  return `[${parts.join(',')}]`
}

/** A box of 1 km² inside the layer's square (about 100 points), the `k`-th of a fixed walk. */
export function smallBox(n: number, k: number): string {
  const side = Math.sqrt(n) * 100
  const x = 4_000_000 + ((k * 0.618034) % 1) * (side - 1000)
  const y = 7_500_000 + ((k * 0.414214) % 1) * (side - 1000)
  return `POLYGON((${x} ${y}, ${x + 1000} ${y}, ${x + 1000} ${y + 1000}, ${x} ${y + 1000}, ${x} ${y}))`
}

export interface Answer { ms: number; status: number; body: unknown }

export interface Host {
  readonly label: string
  /** One request, timed from send to the whole answer read. */
  request(method: string, path: string, body?: string): Promise<Answer>
  /** PATCHes points `from`…`from + count` of an `n`-point layer (the body made where it is sent). */
  patch(layer: number, from: number, count: number, n: number): Promise<Answer>
  /** Bytes the host has written so far, where it can tell (Node: the process's `wchar`). */
  written?(): number
}

async function ok(host: Host, method: string, path: string, body?: string): Promise<Answer> {
  const a = await host.request(method, path, body)
  if (a.status >= 300) throw new Error(`${host.label}: ${method} ${path} → ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`)
  return a
}

export interface Layer {
  id: number
  n: number
  firstFid: number
  batches: number[]
  ingestMs: number
  /** Bytes written per batch over the last ten batches, where the host can tell. */
  batchBytes?: number
}

/** Creates an `n`-point layer and fills it through batch PATCHes of 10,000. */
export async function fillLayer(host: Host, n: number, log = true): Promise<Layer> {
  const id = ((await ok(host, 'POST', '/api/resource/', JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 },
    display_name: `storage ${n} ${Date.now()}` }, vector_layer: { srs: { id: 3857 }, geometry_type: 'POINT', fields: FIELDS } }))).body as { id: number }).id
  const batches: number[] = []
  const lastTen = Math.max(0, Math.ceil(n / BATCH) - 10) * BATCH
  let writtenBefore = 0
  for (let from = 0; from < n; from += BATCH) {
    if (from === lastTen) writtenBefore = host.written?.() ?? 0
    const a = await host.patch(id, from, Math.min(BATCH, n - from), n)
    if (a.status !== 200) throw new Error(`${host.label}: batch at ${from} → ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`)
    batches.push(a.ms)
    if (log && (batches.length % 10 === 0 || from + BATCH >= n)) {
      console.log(`${host.label}: ${Math.min(n, from + BATCH).toLocaleString('en')} of ${n.toLocaleString('en')} points, last batch ${a.ms.toFixed(0)} ms`)
    }
  }
  const batchBytes = host.written ? (host.written() - writtenBefore) / Math.min(10, batches.length) : undefined
  const first = ((await ok(host, 'GET', `/api/resource/${id}/feature/?limit=1&fields=&geom=no`)).body as { id: number }[])[0]!.id
  return { id, n, firstFid: first, batches, ingestMs: batches.reduce((a, b) => a + b, 0), batchBytes }
}

/** Median ms of `runs` single-feature PUTs (geometry and two fields), after one warm-up. */
export async function editMedian(host: Host, layer: Layer, runs = 15): Promise<number> {
  const ms: number[] = []
  for (let i = 0; i <= runs; i++) {
    // The lower half of the layer: the crash test edits the upper one.
    const fid = layer.firstFid + ((i * 7919 + 13) % Math.floor(layer.n / 2))
    const a = await ok(host, 'PUT', `/api/resource/${layer.id}/feature/${fid}`,
      JSON.stringify({ geom: `POINT(${4e6 + i} ${7.5e6 + i})`, fields: { name: `edited ${i}`, n: -i } }))
    if (i) ms.push(a.ms)
  }
  return median(ms)
}

/** Median ms of `runs` listings with `intersects` on a small box (after 3 warm-ups); checks they found points. */
export async function intersectsMedian(host: Host, layer: Layer, runs = 15): Promise<{ ms: number; found: number }> {
  const ms: number[] = []
  let found = 0
  for (let i = 0; i < runs + 3; i++) {
    const a = await ok(host, 'GET', `/api/resource/${layer.id}/feature/?intersects=${encodeURIComponent(smallBox(layer.n, i + 1))}`)
    found += (a.body as unknown[]).length
    if (i >= 3) ms.push(a.ms)
  }
  if (!found) throw new Error(`${host.label}: intersects found nothing`)
  return { ms: median(ms), found: Math.round(found / (runs + 3)) }
}

/** The first read of a feature of `layer` (after a restart). */
export async function firstRead(host: Host, layer: Layer): Promise<number> {
  return (await ok(host, 'GET', `/api/resource/${layer.id}/feature/${layer.firstFid + Math.floor(layer.n / 2)}`)).ms
}

// ---- the Node host: a real server process ----

export class NodeHost implements Host {
  readonly label = 'node'
  proc!: ChildProcess
  base = ''
  #auth = 'Basic ' + Buffer.from(`administrator:${PASSWORD}`).toString('base64')

  /** Over the data folder `dataDir`; without one, in memory, serving the built app in `staticDir`. */
  constructor(readonly dataDir?: string, readonly staticDir?: string) {}

  /** Starts the server; resolves with the ms from spawn to listening. */
  async start(): Promise<number> {
    const t0 = performance.now()
    const args = this.dataDir ? ['--data', this.dataDir] : ['--memory', '--static', this.staticDir ?? 'dist']
    const proc = spawn(process.execPath, ['--import', 'tsx', 'sw/host/node-main.ts', '--port', '0', ...args],
      { env: { ...process.env, OUTPOST_ADMIN_PASSWORD: PASSWORD }, stdio: ['ignore', 'pipe', 'inherit'] })
    this.proc = proc
    this.base = await new Promise<string>((resolve, reject) => {
      let out = ''
      proc.stdout!.on('data', (b: Buffer) => {
        out += b.toString()
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
        if (m) resolve(m[1]!)
      })
      proc.once('exit', (code) => reject(new Error(`host exited (${code}):\n${out}`)))
    })
    return performance.now() - t0
  }

  /** Stops the server: SIGTERM, or SIGKILL for a crash. */
  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    return new Promise((resolve) => {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) return resolve()
      this.proc.once('exit', () => resolve())
      this.proc.kill(signal)
    })
  }

  /** Bytes the server process has passed to write(2) (files and sockets). */
  written(): number {
    return Number(/wchar: (\d+)/.exec(readFileSync(`/proc/${this.proc.pid}/io`, 'utf8'))?.[1] ?? 0)
  }

  /** The server process's resident memory in bytes. */
  rss(): number {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${this.proc.pid}/status`, 'utf8'))
    return Number(m?.[1] ?? 0) * 1024
  }

  /** Bytes on disk of layer `id`'s database with its write-ahead log (or of the files ending in `suffix`). */
  layerBytes(id: number, suffix = ''): number {
    const dir = join(this.dataDir!, 'db')
    return readdirSync(dir).filter((f) => f.startsWith(`layer-${id}.sqlite`) && f.endsWith(suffix)).reduce((n, f) => n + statSync(join(dir, f)).size, 0)
  }

  async request(method: string, path: string, body?: string): Promise<Answer> {
    const t0 = performance.now()
    const res = await fetch(this.base + path, { method, headers: { authorization: this.#auth }, body })
    const json = await res.json() as unknown
    return { ms: performance.now() - t0, status: res.status, body: json }
  }

  patch(layer: number, from: number, count: number, n: number): Promise<Answer> {
    return this.request('PATCH', `/api/resource/${layer}/feature/`, pointsBody(from, count, n))
  }
}

// ---- the service worker in Chromium ----

/** Summed RSS of the renderer processes of the Chromium running on `profileDir` (from /proc). */
function rendererRss(profileDir: string): number {
  const procs = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      return { pid: Number(pid), ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]),
        cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8'), rss: Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024 }
    } catch { return undefined }
  }).filter((p) => p !== undefined)
  const browser = procs.find((p) => p.cmd.includes(`--user-data-dir=${profileDir}`) && !p.cmd.includes('--type='))
  if (!browser) return 0
  const mine = new Set([browser.pid])
  for (let grew = true; grew;) {
    grew = false
    for (const p of procs) if (!mine.has(p.pid) && mine.has(p.ppid)) { mine.add(p.pid); grew = true }
  }
  return procs.filter((p) => mine.has(p.pid) && p.cmd.includes('--type=renderer')).reduce((n, p) => n + p.rss, 0)
}

export class SwHost implements Host {
  readonly label = 'service worker'
  context!: BrowserContext
  page!: Page
  #server: NodeHost | undefined

  /** Chromium with a persistent profile in `profileDir` (IndexedDB on disk, as for a user). */
  constructor(readonly profileDir: string, readonly staticDir = 'dist') {}

  async start(): Promise<void> {
    if (!existsSync(join(this.staticDir, 'service-worker.js'))) {
      const r = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { stdio: 'inherit' })
      if (r.status !== 0) throw new Error('vite build failed')
    }
    // The Node host only serves the built files here (--memory): every /api/ request is the worker's.
    const server = new NodeHost(undefined, this.staticDir)
    await server.start()
    this.#server = server
    const executablePath = findChromium()
    if (!executablePath) throw new Error('No Chromium: apt-get install -y chromium')
    this.context = await chromium.launchPersistentContext(this.profileDir, { executablePath,
      args: ['--headless', ...CHROMIUM_ARGS, '--enable-precise-memory-info'] })
    this.page = this.context.pages()[0] ?? await this.context.newPage()
    await this.page.goto(`${server.base}/`)
    await this.page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 30_000 })
    // Measure from a page the worker controls that is not the app (its map and start-up
    // requests would share the threads with the measured ones).
    await this.page.goto(`${server.base}/api/component/pyramid/route`)
    if (!(await this.page.evaluate(() => !!navigator.serviceWorker?.controller))) throw new Error('the API page is not controlled')
    // The function's source as tsx compiled it, with esbuild's name helper it may call.
    await this.page.evaluate(`globalThis.__name = (f) => f; globalThis.pointsBody = ${pointsBody.toString()}`)
  }

  async stop(): Promise<void> {
    await this.context?.close()
    await this.#server?.stop()
  }

  request(method: string, path: string, body?: string): Promise<Answer> {
    return this.page.evaluate(async ({ method, path, body }) => {
      const t0 = performance.now()
      const res = await fetch(path, { method, headers: { authorization: 'Basic ' + btoa('administrator:admin') }, body })
      const json = await res.json() as unknown
      return { ms: performance.now() - t0, status: res.status, body: json }
    }, { method, path, body })
  }

  patch(layer: number, from: number, count: number, n: number): Promise<Answer> {
    return this.page.evaluate(async ({ layer, from, count, n }) => {
      const body = (globalThis as unknown as { pointsBody: typeof pointsBody }).pointsBody(from, count, n)
      const t0 = performance.now()
      const res = await fetch(`/api/resource/${layer}/feature/`, { method: 'PATCH', headers: { authorization: 'Basic ' + btoa('administrator:admin') }, body })
      const json = await res.json() as unknown
      return { ms: performance.now() - t0, status: res.status, body: res.status === 200 ? (json as unknown[]).length : json }
    }, { layer, from, count, n })
  }

  /** When the worker answering now started (`pyramid/ping`): tells a restarted worker apart. */
  started(): Promise<number> {
    return this.page.evaluate(async () => (await (await fetch('/api/component/pyramid/ping')).json()).started as number)
  }

  /** Stops the worker (DevTools protocol); the next request starts a new one. */
  async stopWorker(): Promise<void> {
    const cdp = await this.context.newCDPSession(this.page)
    await cdp.send('ServiceWorker.enable')
    await cdp.send('ServiceWorker.stopAllWorkers')
    await cdp.detach()
    await new Promise((r) => setTimeout(r, 300))
  }

  /**
   * The worker's memory: its V8 heap and array buffers (DevTools protocol), what the storage
   * diagnostics report (SQLite's WASM heap, the layers' pages in JS memory), and the resident
   * memory of this browser's renderer processes (the page's and the worker's).
   */
  async memory(): Promise<{ jsHeap: number; buffers: number; wasm: number; pages: number; renderers: number }> {
    const use = (await this.request('GET', '/api/component/outpost/storage')).body as { wasm_memory: number; layers_resident: number }
    const heap = await this.#workerHeap()
    return { jsHeap: heap.usedSize, buffers: heap.backingStorageSize, wasm: use.wasm_memory, pages: use.layers_resident, renderers: rendererRss(this.profileDir) }
  }

  /** `Runtime.getHeapUsage` of the service worker, through a session attached to its target. */
  async #workerHeap(): Promise<{ usedSize: number; backingStorageSize: number }> {
    const cdp = await this.context.newCDPSession(this.page)
    try {
      const { targetInfos } = await cdp.send('Target.getTargets')
      const sw = targetInfos.find((t) => t.type === 'service_worker')
      if (!sw) return { usedSize: 0, backingStorageSize: 0 }
      const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: sw.targetId, flatten: false })
      const answer = new Promise<{ result: { usedSize: number; backingStorageSize: number } }>((resolve) => {
        cdp.on('Target.receivedMessageFromTarget', (e) => {
          const m = JSON.parse(e.message) as { id?: number; result: { usedSize: number; backingStorageSize: number } }
          if (m.id === 1) resolve(m)
        })
      })
      await cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id: 1, method: 'Runtime.getHeapUsage' }) })
      return (await answer).result
    } finally {
      await cdp.detach()
    }
  }
}

/**
 * A crash under load: 6 clients edit features of `layer` (each a feature of its own) until
 * `after` edits are acknowledged, then `crash()` kills the host with edits in flight; once it
 * is back (`restart()`), every edited feature is read: each acknowledged edit must be there,
 * each other one whole or not done. Returns the counts (throws on a lost or half-done edit).
 */
export async function crashDuringEdits(host: Host, layer: Layer, after: number, crash: () => Promise<void>,
  restart: () => Promise<void>): Promise<{ sent: number; acked: number; present: number }> {
  const sent: { fid: number; name: string; acked: boolean }[] = []
  let acked = 0
  let crashed: Promise<void> | undefined
  const lane = async (l: number) => {
    for (let i = 0; !crashed; i++) {
      const fid = layer.firstFid + Math.floor(layer.n / 2) + l * Math.floor(layer.n / 12) + i
      const s = { fid, name: `crash l${l} n${i}`, acked: false }
      sent.push(s)
      try {
        const a = await host.request('PUT', `/api/resource/${layer.id}/feature/${fid}`,
          JSON.stringify({ geom: `POINT(${4e6 - fid} ${7.5e6})`, fields: { name: s.name, n: -fid } }))
        if (a.status !== 200) throw new Error(`edit → ${a.status}`)
        s.acked = true
        if (++acked >= after) crashed ??= crash()
      } catch (err) {
        if (!crashed) throw err
        return
      }
    }
  }
  await Promise.all(Array.from({ length: 6 }, (_, l) => lane(l)))
  await crashed
  await restart()
  let present = 0
  for (const s of sent) {
    const got = (await ok(host, 'GET', `/api/resource/${layer.id}/feature/${s.fid}?geom=no`)).body as { fields: { name: string; n: number } }
    const i = s.fid - layer.firstFid
    if (got.fields.name === s.name && got.fields.n === -s.fid) present++
    else if (s.acked) throw new Error(`${host.label}: acknowledged edit ${s.name} of feature ${s.fid} was lost`)
    else if (got.fields.name !== `feature ${i}` || got.fields.n !== i) throw new Error(`${host.label}: feature ${s.fid} is half-edited: ${JSON.stringify(got.fields)}`)
  }
  return { sent: sent.length, acked, present }
}
