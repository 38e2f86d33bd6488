/**
 * A/B of the service worker's uncached render across commits, interleaved so that the shared
 * machine's load falls on every side alike: two or more worktrees (AB_DIRS, each with its
 * dist/ built by `npx vite build`), each served by `vite preview` on its own port, one Chromium
 * with a context per side, render.bench.ts's layer and style loaded into each worker, then the
 * same uncached tiles asked in turn A, B, A, B… (the order flipped every round). AB_MIMIC=1
 * asks each tile as render.bench.ts does (3 uncached, then 6 cached, no warm-up beyond one tile);
 * Usage: git worktree add --detach ../wt-base <commit>; cp -al node_modules ../wt-base/;
 *   (cd ../wt-base && npx vite build) && npx vite build &&
 *   AB_DIRS=../wt-base,. AB_LABELS=before,after npx tsx test/bench/ab-render.ts
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { loadavg } from 'node:os'
import { chromium, type Page } from 'playwright-core'
// @ts-expect-error plain JS helper shared with the scripts
import { CHROMIUM_ARGS, findChromium } from '../../scripts/chromium.mjs'
import { fieldsOf, N, polygonWkt, STYLE, tileSet } from './render-data.ts'
import { median } from './report.ts'

if (!process.env.AB_DIRS) throw new Error('AB_DIRS: the worktrees to compare, comma-separated (see the usage above)')
const DIRS = process.env.AB_DIRS.split(',')
const LABELS = (process.env.AB_LABELS ?? 'before,after').split(',')
const PORT = Number(process.env.E2E_PORT ?? 4377)
const PORTS = DIRS.map((_, i) => PORT + 10_000 * i)
const ROUNDS = Number(process.env.AB_ROUNDS ?? 5)
async function call(page: Page, method: string, path: string, body?: string) {
  return page.evaluate(async ({ method, path, body }) => {
    const t0 = performance.now()
    const res = await fetch(path, { method, headers: { authorization: 'Basic ' + btoa('administrator:admin') }, body })
    const buf = await res.arrayBuffer()
    const ms = performance.now() - t0
    const json = res.headers.get('content-type')?.includes('json')
    return { ms, status: res.status, text: json ? new TextDecoder().decode(buf) : undefined, size: buf.byteLength }
  }, { method, path, body })
}

async function setup(page: Page, label: string): Promise<number> {
  const create = await call(page, 'POST', '/api/resource/', JSON.stringify({ resource: { cls: 'vector_layer', parent: { id: 0 }, display_name: `ab ${Date.now()}` },
    vector_layer: { srs: { id: 3857 }, geometry_type: 'POLYGON', fields: [{ keyname: 'cls', datatype: 'INTEGER' }, { keyname: 'name', datatype: 'STRING' }, { keyname: 'num', datatype: 'REAL' }] } }))
  const layer = (JSON.parse(create.text!) as { id: number }).id
  for (let i = 0; i < N; i += 5000) {
    const body = JSON.stringify(Array.from({ length: Math.min(5000, N - i) }, (_, k) => ({ geom: polygonWkt(i + k), fields: fieldsOf(i + k) })))
    const r = await call(page, 'PATCH', `/api/resource/${layer}/feature/`, body)
    if (r.status !== 200) throw new Error(`${label}: PATCH ${r.status} ${r.text?.slice(0, 200)}`)
  }
  const style = (JSON.parse((await call(page, 'POST', '/api/resource/', JSON.stringify({ resource: { cls: 'engine_style', parent: { id: layer }, display_name: 'ab' },
    engine_style: { xml: STYLE } }))).text!) as { id: number }).id
  return style
}

const procs: ChildProcess[] = []
const browser = await chromium.launch({ executablePath: findChromium(), args: ['--headless', ...CHROMIUM_ARGS] })
try {
  const pages: Page[] = []
  for (let i = 0; i < DIRS.length; i++) {
    const p = spawn('npx', ['vite', 'preview', '--port', String(PORTS[i]), '--strictPort'], { cwd: DIRS[i], stdio: 'ignore', detached: true })
    procs.push(p)
  }
  for (let i = 0; i < DIRS.length; i++) {
    const ctx = await browser.newContext()
    let page: Page | undefined
    for (let k = 0; k < 60 && !page; k++) {
      try { const pg = await ctx.newPage(); await pg.goto(`http://127.0.0.1:${PORTS[i]}/`); page = pg } catch { await new Promise((r) => setTimeout(r, 500)) }
    }
    if (!page) throw new Error('preview did not start')
    await page.waitForFunction(() => !!navigator.serviceWorker?.controller, undefined, { timeout: 30_000 })
    await page.goto(`http://127.0.0.1:${PORTS[i]}/api/component/pyramid/route`)
    pages.push(page)
  }
  const styles: number[] = []
  for (let i = 0; i < pages.length; i++) {
    const t0 = performance.now()
    styles.push(await setup(pages[i]!, LABELS[i]!))
    console.log(`${LABELS[i]}: loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  }
  const tiles = tileSet()
  const url = (t: [number, number, number], s: number) => `/api/component/render/tile?z=${t[0]}&x=${t[1]}&y=${t[2]}&resource=${s}&cache=false`
  // Warm-up: every tile once on each side (AB_MIMIC: only the first, as render.bench.ts does).
  for (const t of process.env.AB_MIMIC ? tiles.slice(0, 1) : tiles) for (let i = 0; i < pages.length; i++) await call(pages[i]!, 'GET', url(t, styles[i]!))
  const times: Record<string, number[]>[] = pages.map(() => ({}))
  const load0 = loadavg()[0]
  for (let r = 0; r < ROUNDS; r++) {
    for (const t of tiles) {
      // Alternate which side goes first, so neither always follows the other.
      const order = pages.map((_, i) => i)
      if (r % 2) order.reverse()
      for (const i of order) {
        for (let k = 0; k < (process.env.AB_MIMIC ? 3 : 1); k++) {
          const res = await call(pages[i]!, 'GET', url(t, styles[i]!))
          if (res.status !== 200) throw new Error(`${LABELS[i]}: ${res.status}`)
          ;(times[i]![`z${t[0]}`] ??= []).push(res.ms)
          ;(times[i]!.all ??= []).push(res.ms)
        }
        // The bench's cached requests between the uncached ones.
        if (process.env.AB_MIMIC) for (let k = 0; k < 6; k++) (times[i]!.cached ??= []).push((await call(pages[i]!, 'GET', url(t, styles[i]!).replace('cache=false', 'cache=true'))).ms)
      }
    }
  }
  console.log(`load average ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}; ${ROUNDS} rounds of ${tiles.length} tiles, interleaved`)
  // Paired: each side's time over the first side's for the same tile in the same round, so a
  // change of load between rounds cancels out.
  for (let i = 1; i < pages.length; i++) {
    const ratios = times[i]!.all!.map((ms, k) => ms / times[0]!.all![k]!).sort((a, b) => a - b)
    const q = (f: number) => ratios[Math.floor(f * (ratios.length - 1))]!.toFixed(2)
    console.log(`${LABELS[i]} ÷ ${LABELS[0]}, paired by tile and round: median ${q(0.5)} (quartiles ${q(0.25)}–${q(0.75)}, n=${ratios.length})`)
  }
  for (const key of ['z6', 'z8', 'z10', 'z12', 'all', ...(process.env.AB_MIMIC ? ['cached'] : [])]) {
    console.log(`${key.padEnd(4)} ` + pages.map((_, i) => `${LABELS[i]} ${median(times[i]![key]!).toFixed(1)} ms`).join('  '))
  }
} finally {
  await browser.close()
  for (const p of procs) try { process.kill(-p.pid!, 'SIGTERM') } catch { /* gone */ }
}
