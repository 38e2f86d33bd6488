/**
 * Shared by the benchmarks: both hosts behind one small interface — a real Node host process
 * over a data folder, Chromium's service worker in a persistent profile — with what each can
 * tell about its memory and writes. The layers and operations are in `storage-layers.ts`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
// @ts-expect-error plain JS helper shared with the scripts
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs'
import { pointsBody, type Answer, type Host } from './storage-layers.ts'

/** The administrator's password of the Node hosts the benchmarks start. */
export const PASSWORD = 'bench-password'

// ---- the Node host: a real server process ----

export class NodeHost implements Host {
  readonly label = 'node'
  proc!: ChildProcess
  base = ''
  #auth = 'Basic ' + Buffer.from(`administrator:${PASSWORD}`).toString('base64')

  /**
   * Over the data folder `dataDir`; without one, in memory, serving the built app in `staticDir`.
   * `run`: how the host is started (default its sources through tsx) from the folder `cwd`, with `args` added.
   */
  constructor(readonly dataDir?: string, readonly staticDir?: string,
    readonly run: { entry?: string[]; cwd?: string; args?: string[] } = {}) {}

  /** Starts the server; resolves with the ms from spawn to listening. */
  async start(): Promise<number> {
    const t0 = performance.now()
    const args = this.dataDir ? ['--data', this.dataDir] : ['--memory', '--static', this.staticDir ?? 'dist']
    const entry = this.run.entry ?? ['--import', 'tsx', 'sw/host/node-main.ts']
    const proc = spawn(process.execPath, [...entry, '--port', '0', ...args, ...this.run.args ?? []],
      { cwd: this.run.cwd, env: { ...process.env, OUTPOST_ADMIN_PASSWORD: PASSWORD }, stdio: ['ignore', 'pipe', 'inherit'] })
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

  patch(layer: number, from: number, count: number, n: number, strips = false): Promise<Answer> {
    return this.request('PATCH', `/api/resource/${layer}/feature/`, pointsBody(from, count, n, strips))
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

  patch(layer: number, from: number, count: number, n: number, strips = false): Promise<Answer> {
    return this.page.evaluate(async ({ layer, from, count, n, strips }) => {
      const body = (globalThis as unknown as { pointsBody: typeof pointsBody }).pointsBody(from, count, n, strips)
      const t0 = performance.now()
      const res = await fetch(`/api/resource/${layer}/feature/`, { method: 'PATCH', headers: { authorization: 'Basic ' + btoa('administrator:admin') }, body })
      const json = await res.json() as unknown
      return { ms: performance.now() - t0, status: res.status, body: res.status === 200 ? (json as unknown[]).length : json }
    }, { layer, from, count, n, strips })
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
